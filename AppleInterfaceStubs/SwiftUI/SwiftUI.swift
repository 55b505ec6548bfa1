// Interface stubs for the part of Apple's SwiftUI that the session-model example uses
// (AppleInterfaceStubs/Checks/SecureSession/SessionScreens.swift, quoted by the README and the
// SecureSession DocC article), so that it type-checks on Linux against SecureSession. Transcribed
// from the iOS 18 SDK's SwiftUI interface (SwiftUI.framework/Modules/SwiftUI.swiftmodule/
// arm64-apple-ios.swiftinterface) and Apple's documentation (developer.apple.com/documentation/swiftui/
// <symbol>); each declaration names its page. Only what the example needs, with the same labels,
// generic constraints, isolation and escaping as Apple's; nothing here is ever run (every body is
// `fatalError()`). SwiftUI re-exports Foundation (and with it CGFloat).
//
// Availability, from each symbol's documentation page (its "availability" list): SwiftUI's first
// release (iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0) for everything but
// `ProgressView`, `ScenePhase` and `EnvironmentValues.scenePhase` (iOS 14.0, macOS 11.0, tvOS 14.0,
// watchOS 7.0: swiftui/progressview/init(_:)-l5vj, swiftui/scenephase, swiftui/environmentvalues/
// scenephase), `task(priority:_:)` (iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0:
// swiftui/view/task(name:priority:file:line:_:), the same method with the iOS 26.4 SDK's added
// parameters) and `onChange(of:initial:_:)` (iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0:
// swiftui/view/onchange(of:initial:_:)-4psgg), the one newer than the package's floor.
// AppleInterfaceStubs/availability.py checks the example against them per platform.

@_exported import Foundation

// swiftui/view: `@MainActor @preconcurrency public protocol View { associatedtype Body : View;
// @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get } }` (iOS 13.0; main-actor
// isolated since the iOS 18 SDK).
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@MainActor @preconcurrency
public protocol View {
    associatedtype Body: View
    @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

// swiftui/never: `extension Never : View`; the body of the primitive views.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
extension Never: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}

// swiftui/emptyview: `@frozen public struct EmptyView : View { @inlinable public init() }`.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public struct EmptyView: View {
    public init() {}
    public var body: Never { fatalError() }
}

// swiftui/tupleview: `@frozen public struct TupleView<T> : View { public var value: T }`.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public struct TupleView<T>: View {
    public var value: T
    public init(_ value: T) { self.value = value }
    public var body: Never { fatalError() }
}

// swiftui/_conditionalcontent: `@frozen public struct _ConditionalContent<TrueContent, FalseContent>`
// with `extension _ConditionalContent : View where TrueContent : View, FalseContent : View`.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public struct _ConditionalContent<TrueContent: View, FalseContent: View>: View {
    public var body: Never { fatalError() }
}

// swiftui/optional: `extension Optional : View where Wrapped : View`.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
extension Optional: View where Wrapped: View {
    public var body: Never { fatalError() }
}

// swiftui/viewbuilder: `@resultBuilder public struct ViewBuilder` with `buildExpression`, `buildBlock()`,
// `buildBlock<Content>(_ content: Content) -> Content`, `buildBlock<each Content>(_ content: repeat each
// Content) -> TupleView<(repeat each Content)> where repeat each Content : View` (back-deployed to
// iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0: swiftui/viewbuilder/buildblock(_:)-2bj1g), `buildIf`,
// `buildEither(first:)` and `buildEither(second:)`.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@resultBuilder
public struct ViewBuilder {
    public static func buildExpression<Content: View>(_ content: Content) -> Content { fatalError() }
    public static func buildBlock() -> EmptyView { fatalError() }
    public static func buildBlock<Content: View>(_ content: Content) -> Content { fatalError() }
    public static func buildBlock<each Content: View>(
        _ content: repeat each Content
    ) -> TupleView<(repeat each Content)> {
        fatalError()
    }
    public static func buildIf<Content: View>(_ content: Content?) -> Content? { fatalError() }
    public static func buildEither<TrueContent: View, FalseContent: View>(
        first: TrueContent
    ) -> _ConditionalContent<TrueContent, FalseContent> { fatalError() }
    public static func buildEither<TrueContent: View, FalseContent: View>(
        second: FalseContent
    ) -> _ConditionalContent<TrueContent, FalseContent> { fatalError() }
}

// swiftui/localizedstringkey: `@frozen public struct LocalizedStringKey : Equatable,
// ExpressibleByStringInterpolation`.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public struct LocalizedStringKey: Equatable, ExpressibleByStringInterpolation {
    public init(_ value: String) {}
    public init(stringLiteral value: String) {}
}

// swiftui/text: `@frozen public struct Text : Equatable, Sendable` with `init(verbatim content: String)`,
// `init(_ key: LocalizedStringKey, …)` and `init<S>(_ content: S) where S : StringProtocol`.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public struct Text: View, Equatable, Sendable {
    public init(verbatim content: String) {}
    public init(_ key: LocalizedStringKey) {}
    @_disfavoredOverload
    public init<S: StringProtocol>(_ content: S) {}
    public var body: Never { fatalError() }
}

// swiftui/button: `@MainActor @preconcurrency public struct Button<Label> : View where Label : View`;
// `extension Button where Label == Text { nonisolated public init(_ titleKey: LocalizedStringKey,
// action: @escaping @MainActor () -> Void) }` (the action's isolation as the iOS 18 SDK declares it).
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@MainActor @preconcurrency
public struct Button<Label: View>: View {
    public var body: Never { fatalError() }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
extension Button where Label == Text {
    nonisolated public init(_ titleKey: LocalizedStringKey, action: @escaping @MainActor () -> Void) {}
}

// swiftui/textfield: `@MainActor @preconcurrency public struct TextField<Label> : View where Label : View`;
// `extension TextField where Label == Text { nonisolated public init(_ titleKey: LocalizedStringKey,
// text: Binding<String>) }`.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@MainActor @preconcurrency
public struct TextField<Label: View>: View {
    public var body: Never { fatalError() }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
extension TextField where Label == Text {
    nonisolated public init(_ titleKey: LocalizedStringKey, text: Binding<String>) {}
}

// swiftui/securefield: `@MainActor @preconcurrency public struct SecureField<Label> : View where Label :
// View`; `extension SecureField where Label == Text { nonisolated public init(_ titleKey:
// LocalizedStringKey, text: Binding<String>) }`.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@MainActor @preconcurrency
public struct SecureField<Label: View>: View {
    public var body: Never { fatalError() }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
extension SecureField where Label == Text {
    nonisolated public init(_ titleKey: LocalizedStringKey, text: Binding<String>) {}
}

// swiftui/vstack: `@frozen public struct VStack<Content> : View where Content : View`; `@inlinable
// nonisolated public init(alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil,
// @ViewBuilder content: () -> Content)` (alignment left out: the example does not use it).
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public struct VStack<Content: View>: View {
    nonisolated public init(spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {}
    public var body: Never { fatalError() }
}

// swiftui/group: `@frozen public struct Group<Content>`; `extension Group : View where Content : View
// { @inlinable nonisolated public init(@ViewBuilder content: () -> Content) }`.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public struct Group<Content: View>: View {
    nonisolated public init(@ViewBuilder content: () -> Content) {}
    public var body: Never { fatalError() }
}

// swiftui/progressview: `@MainActor @preconcurrency public struct ProgressView<Label, CurrentValueLabel>
// : View where Label : View, CurrentValueLabel : View`; `extension ProgressView where Label ==
// EmptyView, CurrentValueLabel == EmptyView { nonisolated public init() }`.
@available(macOS 11.0, iOS 14.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
@MainActor @preconcurrency
public struct ProgressView<Label: View, CurrentValueLabel: View>: View {
    public var body: Never { fatalError() }
}

@available(macOS 11.0, iOS 14.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
extension ProgressView where Label == EmptyView, CurrentValueLabel == EmptyView {
    nonisolated public init() {}
}

// swiftui/dynamicproperty: `public protocol DynamicProperty`.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public protocol DynamicProperty {}

// swiftui/binding: `@frozen @propertyWrapper @dynamicMemberLookup public struct Binding<Value>`;
// swiftui/binding/init(get:set:)-6g3d5: `public init(get: @escaping () -> Value, set: @escaping (Value)
// -> Void)`.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@propertyWrapper
public struct Binding<Value> {
    public init(get: @escaping () -> Value, set: @escaping (Value) -> Void) {}
    public var wrappedValue: Value {
        get { fatalError() }
        nonmutating set {}
    }
    public var projectedValue: Binding<Value> { self }
}

// swiftui/state: `@frozen @propertyWrapper public struct State<Value> : DynamicProperty` with
// `init(wrappedValue value: Value)`, `var wrappedValue: Value { get nonmutating set }` and
// `var projectedValue: Binding<Value> { get }`.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@propertyWrapper
public struct State<Value>: DynamicProperty {
    public init(wrappedValue value: Value) {}
    public var wrappedValue: Value {
        get { fatalError() }
        nonmutating set {}
    }
    public var projectedValue: Binding<Value> { fatalError() }
}

// swiftui/scenephase: `public enum ScenePhase : Comparable { case background, inactive, active }`.
@available(macOS 11.0, iOS 14.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
public enum ScenePhase: Comparable, Hashable {
    case background
    case inactive
    case active
}

// swiftui/environmentvalues: `public struct EnvironmentValues : CustomStringConvertible`;
// swiftui/environmentvalues/scenephase: `public var scenePhase: ScenePhase { get set }`.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public struct EnvironmentValues {
    @available(macOS 11.0, iOS 14.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
    public var scenePhase: ScenePhase {
        get { fatalError() }
        set {}
    }
}

// swiftui/environment: `@frozen @propertyWrapper public struct Environment<Value> : DynamicProperty`
// with `@inlinable public init(_ keyPath: KeyPath<EnvironmentValues, Value>)` and `@inlinable public
// var wrappedValue: Value { get }`.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@propertyWrapper
public struct Environment<Value>: DynamicProperty {
    public init(_ keyPath: KeyPath<EnvironmentValues, Value>) {}
    public var wrappedValue: Value { fatalError() }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
extension View {
    // swiftui/view/task(priority:_:): `nonisolated public func task(priority: TaskPriority =
    // .userInitiated, _ action: @escaping @isolated(any) @Sendable () async -> Void) -> some View`.
    @available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    nonisolated public func task(
        priority: TaskPriority = .userInitiated,
        _ action: @escaping @isolated(any) @Sendable () async -> Void
    ) -> some View { EmptyView() }

    // swiftui/view/onchange(of:initial:_:)-4psgg: `nonisolated public func onChange<V>(of value: V,
    // initial: Bool = false, _ action: @escaping (_ oldValue: V, _ newValue: V) -> Void) -> some View
    // where V : Equatable` (iOS 17).
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    nonisolated public func onChange<V: Equatable>(
        of value: V,
        initial: Bool = false,
        _ action: @escaping (_ oldValue: V, _ newValue: V) -> Void
    ) -> some View { EmptyView() }
}
