#if canImport(LocalAuthentication)
import LocalAuthentication
#endif

extension SecureStoreError {
    /// The error a failed LocalAuthentication evaluation becomes, from its `LAError.Code` raw value.
    ///
    /// Portable (Linux tests it) and by raw value, so one table serves every platform: the codes are
    /// LocalAuthentication's (LAPublicDefines.h: userCancel -2, systemCancel -4, biometryLockout -8,
    /// appCancel -9), `LAError.Code.biometryLockout` cannot be named on watchOS, and new SDKs add
    /// codes (companionNotAvailable, -11, in iOS 18), which read as a failure.
    static func localAuthentication(code: Int) -> SecureStoreError {
        switch code {
        case -2, -4, -9:
            SecureStoreError(.authenticationCancelled, "the user-presence check was cancelled")
        case -8:
            SecureStoreError(.lockedOut, "biometry is locked after too many failed attempts")
        default:
            SecureStoreError(.authenticationFailed, "the user-presence check failed (LAError \(code))")
        }
    }
}

#if canImport(LocalAuthentication)
/// A ``UserPresenceGate`` backed by LocalAuthentication: Face ID, Touch ID or Optic ID, and
/// optionally the device passcode.
///
/// Each check uses a fresh `LAContext`, so the system never silently reuses an earlier
/// evaluation; reuse is decided by ``UserPresenceProtectedStore``'s window instead.
///
/// The prompt's text is the `reason` the gate is asked with, passed to LocalAuthentication as
/// `localizedReason`: it is ``UserPresenceProtectedStore/Configuration/reason``, set where the gate
/// is put in front of the store (`PresenceUnlock(wrapping:gate:configuration:)` in SecureSession):
///
/// ```swift
/// let presence = PresenceUnlock(
///     wrapping: KeychainStore(configuration: .init(service: "com.example.app")),
///     gate: LocalAuthenticationGate(),
///     configuration: .init(reason: String(localized: "Unlock your account")))
/// ```
///
/// Touch ID and the Mac show it in their dialog under the app's name; Face ID shows no dialog for
/// a scan that succeeds, and shows the reason in the one that follows a failed scan. Face ID also
/// needs `NSFaceIDUsageDescription` in the app's Info.plist (the system shows it once, when the
/// app first uses Face ID; an app without it is terminated there). A blank reason is replaced by
/// ``UserPresenceProtectedStore/Configuration/defaultReason``: LocalAuthentication raises an
/// exception for an empty one.
///
/// What each platform offers follows Apple's declarations of `LAPolicy`:
/// - iOS, iPadOS, macOS and visionOS: ``Policy/biometrics`` and ``Policy/biometricsOrPasscode``.
/// - watchOS: no biometry. ``Policy/biometricsOrPasscode`` asks for the passcode;
///   ``Policy/passcodeOrWristDetection`` also accepts a watch that stayed on the wrist since it
///   was unlocked. ``Policy/biometrics`` is unavailable there.
/// - tvOS: no gate. LocalAuthentication cannot evaluate a policy there, so this type is unavailable;
///   an app that needs a presence check supplies its own ``UserPresenceGate``.
@available(tvOS, unavailable)
public struct LocalAuthenticationGate: UserPresenceGate {
    /// Which proofs of presence are accepted.
    public struct Policy: Sendable, Hashable {
        fileprivate let policy: LAPolicy

        /// Biometry only (`.deviceOwnerAuthenticationWithBiometrics`).
        @available(watchOS, unavailable, message: "watchOS has no biometry; use .biometricsOrPasscode")
        public static var biometrics: Policy { Policy(policy: .deviceOwnerAuthenticationWithBiometrics) }

        /// Biometry, falling back to the device passcode (`.deviceOwnerAuthentication`); the passcode
        /// alone on watchOS.
        public static var biometricsOrPasscode: Policy { Policy(policy: .deviceOwnerAuthentication) }

        /// watchOS only: the passcode, or a watch that has stayed on the wrist since it was unlocked
        /// with the passcode (`.deviceOwnerAuthenticationWithWristDetection`).
        ///
        /// - Important: with wrist detection on, this succeeds without asking anything while the
        ///   watch stays on the wrist; use ``biometricsOrPasscode`` to ask for the passcode each time.
        @available(iOS, unavailable)
        @available(macOS, unavailable)
        @available(visionOS, unavailable)
        public static var passcodeOrWristDetection: Policy {
            Policy(policy: .deviceOwnerAuthenticationWithWristDetection)
        }
    }

    /// The accepted proofs.
    public var policy: Policy

    /// Creates a gate.
    public init(policy: Policy = .biometricsOrPasscode) {
        self.policy = policy
    }

    /// Whether a fresh `LAContext` can evaluate the policy now (`canEvaluatePolicy(_:error:)`):
    /// false when biometry is not available or not enrolled, or no passcode is set.
    public func canEvaluate() async -> Bool {
        LAContext().canEvaluatePolicy(self.policy.policy, error: nil)
    }

    /// Evaluates the policy with a fresh `LAContext`.
    ///
    /// - Throws: ``SecureStoreError/Code/authenticationCancelled`` for a user, system or app
    ///   cancellation, ``SecureStoreError/Code/lockedOut`` for a biometry lockout, and
    ///   ``SecureStoreError/Code/authenticationFailed`` for everything else (including biometry
    ///   that is not available or not enrolled).
    public func authenticate(reason: String) async throws(SecureStoreError) {
        let context = LAContext()
        let reason = UserPresenceProtectedStore.Configuration.usableReason(reason)
        let succeeded: Bool
        do {
            succeeded = try await context.evaluatePolicy(self.policy.policy, localizedReason: reason)
        } catch let error as LAError {
            throw SecureStoreError.localAuthentication(code: error.code.rawValue)
        } catch {
            throw SecureStoreError(.authenticationFailed, "the user-presence check failed")
        }
        guard succeeded else {
            throw SecureStoreError(.authenticationFailed, "the user-presence check failed")
        }
    }
}
#endif
