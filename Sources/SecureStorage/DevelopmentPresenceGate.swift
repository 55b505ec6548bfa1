import SecureNetworkingInternal

/// A ``UserPresenceGate`` for development and tests, on every platform: it asks nobody, and
/// answers each check as it is told, always the same way, from a script, or from a closure.
///
/// Use it where the machine has no presence check to ask: Linux, a simulator or a Mac without
/// enrolled biometry, a CI job, a tvOS app before it has its own gate. It drives every branch of
/// the code around the gate (a pass, a failure, a cancelled prompt, a lockout) exactly as
/// `LocalAuthenticationGate` reports them, so ``UserPresenceProtectedStore``'s reuse window and
/// lockout, and the session model above it, behave as they will on a device.
///
/// ```swift
/// #if DEBUG && !canImport(LocalAuthentication)
/// let gate: any UserPresenceGate = DevelopmentPresenceGate.always(.approve)
/// #else
/// let gate: any UserPresenceGate = LocalAuthenticationGate()
/// #endif
/// ```
///
/// - Important: It is not a security boundary. It confirms nobody: whoever runs the process gets
///   every secret behind it, whatever the answers say. Nothing in the library uses it unless the
///   app passes it; ship a gate backed by a real check (`LocalAuthenticationGate` on Apple
///   platforms) in a release build.
public struct DevelopmentPresenceGate: UserPresenceGate, CustomStringConvertible {
    /// The answer to one check.
    public struct Answer: Hashable, Sendable, CustomStringConvertible {
        /// The error the check fails with; nil for a pass.
        let failure: SecureStoreError.Code?

        /// The user is taken as present: the check passes.
        public static let approve = Answer(failure: nil)
        /// The check fails (``SecureStoreError/Code/authenticationFailed``, a face or finger
        /// that does not match); it counts toward ``UserPresenceProtectedStore``'s lockout.
        public static let deny = Answer(failure: .authenticationFailed)
        /// The user (or the system) cancelled the prompt
        /// (``SecureStoreError/Code/authenticationCancelled``).
        public static let cancel = Answer(failure: .authenticationCancelled)
        /// The system has locked the authenticator after too many failures
        /// (``SecureStoreError/Code/lockedOut``, biometry lockout).
        public static let lockOut = Answer(failure: .lockedOut)

        /// `approve`, or the code of the error the check fails with.
        public var description: String { self.failure.map { "\($0)" } ?? "approve" }
    }

    private let answer: @Sendable (_ reason: String) async -> Answer
    private let evaluable: Bool

    /// A gate that answers each check with what `answer` returns for the check's reason.
    ///
    /// The closure may ask a person in a way of the developer's choosing (a dialog of a
    /// development build, a command-line prompt read off the cooperative thread pool); it must
    /// not block the task it runs on.
    ///
    /// - Parameters:
    ///   - canEvaluate: what ``canEvaluate()`` says (false plays a device without enrolled
    ///     biometry or a passcode, where the app does not offer presence unlock).
    ///   - answer: the answer to a check, given the reason the prompt would show.
    public init(canEvaluate: Bool = true, answer: @escaping @Sendable (_ reason: String) async -> Answer) {
        self.evaluable = canEvaluate
        self.answer = answer
    }

    /// A gate that answers every check with `answer`.
    public static func always(_ answer: Answer, canEvaluate: Bool = true) -> DevelopmentPresenceGate {
        DevelopmentPresenceGate(canEvaluate: canEvaluate) { _ in answer }
    }

    /// A gate that answers the checks with `answers`, in order, then with `fallback` once they
    /// run out (a denial unless told otherwise, so a script that is too short fails closed).
    public static func scripted(
        _ answers: [Answer],
        then fallback: Answer = .deny,
        canEvaluate: Bool = true
    ) -> DevelopmentPresenceGate {
        let remaining = Locked(answers[...])
        return DevelopmentPresenceGate(canEvaluate: canEvaluate) { _ in
            remaining.withLock { $0.popFirst() } ?? fallback
        }
    }

    /// Answers the check as the gate was told.
    ///
    /// - Parameter reason: the text a real gate's prompt would show; passed to the answer closure.
    /// - Throws: ``SecureStoreError`` with ``SecureStoreError/Code/authenticationFailed``
    ///   (``Answer/deny``), ``SecureStoreError/Code/authenticationCancelled``
    ///   (``Answer/cancel``) or ``SecureStoreError/Code/lockedOut`` (``Answer/lockOut``).
    public func authenticate(reason: String) async throws(SecureStoreError) {
        guard let failure = await self.answer(reason).failure else { return }
        throw SecureStoreError(failure, "the development presence gate answered \(failure)")
    }

    /// What the gate was told at init: true unless it plays a device that cannot ask.
    public func canEvaluate() async -> Bool { self.evaluable }

    /// Says what the gate is, so that a log or a debugger never mistakes it for a real check.
    public var description: String { "DevelopmentPresenceGate (not a security boundary)" }
}
