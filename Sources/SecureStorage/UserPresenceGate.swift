/// Asks the user to prove they are present (Face ID, Touch ID, the device passcode, or whatever
/// the app uses) before a secret is released.
///
/// `LocalAuthenticationGate` is the gate on iOS, macOS, visionOS and watchOS; on tvOS (which has no
/// LocalAuthentication) and elsewhere the app supplies its own. ``DevelopmentPresenceGate``
/// answers as it is told, for development and tests on any platform (it is not a security
/// boundary). <doc:WritingAUserPresenceGate> says what a gate must do.
///
/// A gate is asked only by the code in front of the secrets (``UserPresenceProtectedStore``),
/// which decides when to ask, reuses a success for its window and counts failures for its
/// lockout: a gate only runs one check and reports how it went.
public protocol UserPresenceGate: Sendable {
    /// Asks the user to authenticate; returns when they did.
    ///
    /// Returning normally releases the secret: a gate returns only once the user passed the
    /// check, never by default or on an error it does not recognise. It must not block the task
    /// it runs on (await the system's prompt; it may take as long as the user does).
    ///
    /// - Parameter reason: why access is needed, shown to the user (the prompt's text; see
    ///   ``UserPresenceProtectedStore/Configuration/reason``). Never a secret.
    /// - Throws: ``SecureStoreError`` with code ``SecureStoreError/Code/authenticationFailed``
    ///   when the check failed, ``SecureStoreError/Code/authenticationCancelled`` when the user
    ///   or the system cancelled it, or ``SecureStoreError/Code/lockedOut`` when the system has
    ///   locked the authenticator.
    func authenticate(reason: String) async throws(SecureStoreError)

    /// Whether the gate can ask the user now: the device has what its policy needs (enrolled
    /// biometry, a passcode). An app offers presence-gated unlock only when it can. Default:
    /// true.
    func canEvaluate() async -> Bool
}

extension UserPresenceGate {
    /// A gate that does not say is assumed able to ask.
    public func canEvaluate() async -> Bool { true }
}
