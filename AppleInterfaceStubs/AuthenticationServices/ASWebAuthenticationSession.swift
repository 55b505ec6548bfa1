// AuthenticationServices/ASWebAuthenticationSession.h (see ModuleExports.swift for the source).

// `AS_EXTERN API_AVAILABLE(ios(12.0), macCatalyst(13.0), macos(10.15), watchos(6.2))
// API_UNAVAILABLE(tvos) NSErrorDomain const ASWebAuthenticationSessionErrorDomain;`
@available(macOS 10.15, iOS 12.0, watchOS 6.2, *)
@available(tvOS, unavailable)
public let ASWebAuthenticationSessionErrorDomain: String = { fatalError() }()

// `typedef NS_ERROR_ENUM(ASWebAuthenticationSessionErrorDomain, ASWebAuthenticationSessionErrorCode)
// { ASWebAuthenticationSessionErrorCodeCanceledLogin = 1, …PresentationContextNotProvided = 2,
// …PresentationContextInvalid = 3 }`: imported as the bridged error struct
// `ASWebAuthenticationSessionError` with a nested `Code` (the NS_ERROR_ENUM import rule, as for
// LAError in the LocalAuthentication stub).
@available(macOS 10.15, iOS 12.0, watchOS 6.2, *)
@available(tvOS, unavailable)
public struct ASWebAuthenticationSessionError: _BridgedStoredNSError, Sendable {
    public let _nsError: NSError
    public init(_nsError: NSError) { fatalError() }

    public static var errorDomain: String { fatalError() }
    // corelibs-foundation's bridging requirement (as in the LAError stub).
    public static var _nsErrorDomain: String { fatalError() }

    // NS_ERROR_ENUM is an open C enum, imported non-frozen (see the LocalAuthentication stub's LAError).
    @nonexhaustive
    public enum Code: Int, _ErrorCodeProtocol, Sendable {
        public typealias _ErrorType = ASWebAuthenticationSessionError

        case canceledLogin = 1
        // iOS 13.0, macOS 10.15, visionOS 1.0 (developer.apple.com/documentation/authenticationservices/
        // aswebauthenticationsessionerror/code/presentationcontextinvalid and …/presentationcontextnotprovided).
        // UNVERIFIED: watchOS — the documentation lists none; whether the header says API_UNAVAILABLE(watchos).
        @available(macOS 10.15, iOS 13.0, visionOS 1.0, *)
        case presentationContextNotProvided = 2
        @available(macOS 10.15, iOS 13.0, visionOS 1.0, *)
        case presentationContextInvalid = 3
    }

    public static var canceledLogin: ASWebAuthenticationSessionError.Code { fatalError() }
}

// `@interface ASWebAuthenticationSession : NSObject`, `AS_EXTERN API_AVAILABLE(ios(12.0),
// macCatalyst(13.0), macos(10.15), watchos(6.2)) API_UNAVAILABLE(tvos)`.
@available(macOS 10.15, iOS 12.0, watchOS 6.2, *)
@available(tvOS, unavailable)
open class ASWebAuthenticationSession: NSObject {
    // `typedef void (^ASWebAuthenticationSessionCompletionHandler)(NSURL *_Nullable callbackURL,
    // NSError *_Nullable error) NS_SWIFT_NAME(ASWebAuthenticationSession.CompletionHandler);`
    public typealias CompletionHandler = (URL?, (any Error)?) -> Void

    // `- (instancetype)initWithURL:(NSURL *)URL callbackURLScheme:(nullable NSString *)callbackURLScheme
    // completionHandler:(ASWebAuthenticationSessionCompletionHandler)completionHandler;`
    public init(url URL: URL, callbackURLScheme: String?, completionHandler: @escaping CompletionHandler) {
        fatalError()
    }

    // `@property (nonatomic, weak) id <ASWebAuthenticationPresentationContextProviding>
    // presentationContextProvider API_AVAILABLE(ios(13.0), macos(10.15)) API_UNAVAILABLE(watchos);` (visionOS
    // inferred from iOS).
    @available(macOS 10.15, iOS 13.0, visionOS 1.0, *)
    @available(watchOS, unavailable)
    weak open var presentationContextProvider: (any ASWebAuthenticationPresentationContextProviding)? {
        get { fatalError() }
        set { fatalError() }
    }

    // `@property (nonatomic) BOOL prefersEphemeralWebBrowserSession API_AVAILABLE(ios(13.0),
    // macos(10.15), watchos(6.2));`
    @available(macOS 10.15, iOS 13.0, watchOS 6.2, *)
    open var prefersEphemeralWebBrowserSession: Bool {
        get { fatalError() }
        set { fatalError() }
    }

    // `@property (nonatomic, readonly) BOOL canStart API_AVAILABLE(ios(13.4), macos(10.15.4), watchos(6.2));`
    @available(macOS 10.15.4, iOS 13.4, watchOS 6.2, *)
    open var canStart: Bool { fatalError() }

    // `- (BOOL)start;`
    open func start() -> Bool { fatalError() }

    // `- (void)cancel;`
    open func cancel() { fatalError() }
}

// `API_AVAILABLE(ios(13.0), macos(10.15)) API_UNAVAILABLE(tvos, watchos) @protocol
// ASWebAuthenticationPresentationContextProviding <NSObject>` with
// `- (ASPresentationAnchor)presentationAnchorForWebAuthenticationSession:(ASWebAuthenticationSession *)session;`
// Apple's documentation (developer.apple.com/documentation/authenticationservices/
// aswebauthenticationpresentationcontextproviding): `@MainActor protocol
// ASWebAuthenticationPresentationContextProviding : NSObjectProtocol`; iOS 13.0, macOS 10.15, visionOS 1.0,
// no tvOS or watchOS. `@preconcurrency` as the importer applies it to Objective-C declarations.
@available(macOS 10.15, iOS 13.0, visionOS 1.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
@MainActor @preconcurrency
public protocol ASWebAuthenticationPresentationContextProviding: NSObjectProtocol {
    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor
}
