#if Tools
import SwiftSyntax

// Concurrency rules for Swift sources: SN016 a main-actor closure handed to an Apple API that calls it
// on a thread of its own.
extension SwiftRuleVisitor {
    // MARK: SN016 isolated-completion-handler

    /// Apple APIs that call their completion handler on a queue of their own, by call name: the argument
    /// labels that take the handler (a trailing closure counts too), and whether the call is a method (on
    /// a receiver) rather than an initializer.
    static let offMainCompletionAPIs: [String: (labels: Set<String>, method: Bool)] = [
        // AuthenticationServices: always off the main thread on macOS, sometimes on iOS.
        "ASWebAuthenticationSession": (["completionHandler"], false)
        // Not LAContext's `evaluatePolicy`/`evaluateAccessControl` (`reply:`) nor URLSession's
        // `dataTask`/`uploadTask`/`downloadTask`: the SDK declares those handlers `@escaping @Sendable`
        // (Apple's documentation of `evaluatePolicy(_:localizedReason:reply:)`,
        // `evaluateAccessControl(_:operation:localizedReason:reply:)` and
        // `dataTask(with:completionHandler:)`), so a closure literal passed there is not main-actor
        // isolated and cannot trap. All four findings on issue 39's corpus were these.
    ]

    /// Types whose members are main-actor isolated: UIKit and AppKit classes, SwiftUI's `View` and `App`,
    /// and the `@MainActor` protocol of the web authentication session's presentation anchor (a type that
    /// adopts it in its declaration is inferred `@MainActor`).
    static let mainActorSupertypes: Set<String> = [
        "UIResponder", "UIViewController", "UITableViewController", "UICollectionViewController",
        "UINavigationController", "UITabBarController", "UIView", "UIApplicationDelegate", "UISceneDelegate",
        "UIWindowSceneDelegate", "NSResponder", "NSViewController", "NSWindowController", "NSView",
        "NSApplicationDelegate", "View", "App", "ASWebAuthenticationPresentationContextProviding",
    ]

    /// A closure literal handed as the completion handler of one of ``offMainCompletionAPIs`` inside a
    /// main-actor context, without `@Sendable`. Under Swift 6 the closure is main-actor isolated, and
    /// because the API is not in Swift 6 mode the compiler checks the executor at the closure's entry
    /// (SE-0423); the framework calls it on its own thread and the check traps.
    func checkIsolatedCompletionHandler(_ node: FunctionCallExprSyntax, callee: Callee) {
        guard let api = Self.offMainCompletionAPIs[callee.name], (callee.base != nil) == api.method else { return }
        var closures: [ClosureExprSyntax] = node.arguments.compactMap { argument in
            guard let label = argument.label?.text, api.labels.contains(label) else { return nil }
            return argument.expression.as(ClosureExprSyntax.self)
        }
        if let trailing = node.trailingClosure { closures.append(trailing) }
        for closure in closures where !Self.hasAttribute("Sendable", closure.signature?.attributes) {
            guard let context = Self.mainActorContext(of: closure) else { continue }
            report(
                .isolatedCompletionHandler,
                at: closure,
                message: "the completion handler of \(callee.name) is formed \(context), so it is main-actor "
                    + "isolated; the framework calls it on its own thread, where Swift 6 traps"
            )
        }
    }

    /// A synchronous URLSession delegate method (`urlSession(_ session: URLSession, …)`) that is main-actor
    /// isolated: URLSession calls it on the session's delegate queue, a background queue unless it is
    /// `.main`, and the executor check of the `@preconcurrency` conformance Swift 6 requires traps there.
    /// `async` delegate methods are not reported: their Objective-C thunk starts a task that hops.
    func checkIsolatedDelegateMethod(_ node: FunctionDeclSyntax) {
        guard node.name.text == "urlSession",
            node.signature.parameterClause.parameters.first?.type.trimmedDescription == "URLSession",
            node.signature.effectSpecifiers?.asyncSpecifier == nil,
            let context = Self.memberContext(Syntax(node))
        else { return }
        report(
            .isolatedCompletionHandler,
            at: node.name,
            message: "the URLSession delegate method urlSession(_:…) is isolated to the main actor (\(context)); "
                + "URLSession calls it on its delegate queue, where Swift 6 traps unless that queue is .main"
        )
    }

    /// Why `closure` is main-actor isolated ("in @MainActor func signIn"), or nil when it is not known to
    /// be. Walking out: an enclosing closure marked `@MainActor` or `@Sendable`, or handed to a call that
    /// runs it elsewhere, decides; closures and local declarations without either inherit; the first
    /// member declaration decides by its own attributes, else by its type's.
    static func mainActorContext(of closure: ClosureExprSyntax) -> String? {
        var current = closure.parent
        while let node = current {
            if let enclosing = node.as(ClosureExprSyntax.self) {
                let attributes = enclosing.signature?.attributes
                if hasAttribute("MainActor", attributes) { return "in a @MainActor closure" }
                if hasAttribute("Sendable", attributes) || runsElsewhere(enclosing) { return nil }
            } else if declarationName(node) != nil {
                switch isolation(ofDeclaration: node) {
                case .mainActor(let context): return context
                case .notMainActor: return nil
                case .inherited: break
                }
            } else if node.isProtocol(DeclGroupSyntax.self) || node.is(SourceFileSyntax.self) {
                return nil
            }
            current = node.parent
        }
        return nil
    }

    /// What a declaration that holds code says about the isolation of the code in it.
    private enum DeclarationIsolation {
        /// Main-actor isolated, and why.
        case mainActor(String)
        /// Not known to be main-actor isolated (`nonisolated`, or a member of such a type).
        case notMainActor
        /// A local declaration without attributes: the enclosing context decides.
        case inherited
    }

    /// `@MainActor` on the declaration, `nonisolated` on it, or, for a member, its type's isolation.
    private static func isolation(ofDeclaration node: Syntax) -> DeclarationIsolation {
        guard let name = declarationName(node), let declaration = node.asProtocol(WithAttributesSyntax.self) else {
            return .inherited
        }
        if hasAttribute("MainActor", declaration.attributes) { return .mainActor("in @MainActor \(name)") }
        let modifiers = node.asProtocol(WithModifiersSyntax.self)?.modifiers
        if modifiers?.contains(where: { $0.name.text == "nonisolated" }) == true { return .notMainActor }
        guard node.parent?.is(MemberBlockItemSyntax.self) == true else { return .inherited }
        return typeContext(name, of: node).map(DeclarationIsolation.mainActor) ?? .notMainActor
    }

    /// Why a member declaration is main-actor isolated, or nil.
    static func memberContext(_ node: Syntax) -> String? {
        if case .mainActor(let context) = isolation(ofDeclaration: node) { return context }
        return nil
    }

    /// `func name`, `init`, `var name` or `subscript` for the declarations that hold code; nil otherwise.
    private static func declarationName(_ node: Syntax) -> String? {
        if let function = node.as(FunctionDeclSyntax.self) { return "func \(function.name.text)" }
        if node.is(InitializerDeclSyntax.self) { return "init" }
        if node.is(SubscriptDeclSyntax.self) { return "subscript" }
        if let variable = node.as(VariableDeclSyntax.self) {
            return "var \(variable.bindings.first?.pattern.trimmedDescription ?? "")"
        }
        return nil
    }

    /// The isolation a member declaration takes from its type: `@MainActor` on the type, or a main-actor
    /// supertype or protocol in its declaration.
    private static func typeContext(_ name: String, of member: Syntax) -> String? {
        var current = member.parent
        while let node = current, !node.isProtocol(DeclGroupSyntax.self) { current = node.parent }
        guard let type = current?.asProtocol(DeclGroupSyntax.self) else { return nil }
        if hasAttribute("MainActor", type.attributes) { return "in \(name) of a @MainActor type" }
        let inherited = type.inheritanceClause?.inheritedTypes.map { $0.type.trimmedDescription } ?? []
        if let supertype = inherited.first(where: { mainActorSupertypes.contains($0) }) {
            return "in \(name) of a \(supertype) (main actor)"
        }
        return nil
    }

    /// A closure handed to `Task.detached`, `DispatchQueue….async`/`asyncAfter` or a thread: it runs off
    /// the main actor, so closures formed inside it are not main-actor isolated.
    private static func runsElsewhere(_ closure: ClosureExprSyntax) -> Bool {
        guard let call = SyntaxHelpers.enclosing(FunctionCallExprSyntax.self, of: closure) else { return false }
        let isArgument =
            call.trailingClosure?.id == closure.id
            || call.arguments.contains { $0.expression.id == closure.id }
        guard isArgument else { return false }
        let callee = Callee(call)
        switch callee.name {
        case "detached": return callee.baseText == "Task"
        case "async", "asyncAfter": return callee.baseText != "DispatchQueue.main"
        case "detachNewThread", "Thread": return true
        default: return false
        }
    }

    private static func hasAttribute(_ name: String, _ attributes: AttributeListSyntax?) -> Bool {
        attributes?.contains { element in
            element.as(AttributeSyntax.self)?.attributeName.trimmedDescription == name
        } ?? false
    }
}
#endif
