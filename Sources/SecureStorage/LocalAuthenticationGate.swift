#if canImport(LocalAuthentication)
import LocalAuthentication

/// A ``UserPresenceGate`` backed by LocalAuthentication: Face ID, Touch ID or Optic ID, and
/// optionally the device passcode.
///
/// Each check uses a fresh `LAContext`, so the system never silently reuses an earlier
/// evaluation; reuse is decided by ``UserPresenceProtectedStore``'s window instead.
public struct LocalAuthenticationGate: UserPresenceGate {
    /// Which proofs of presence are accepted.
    public struct Policy: Sendable, Hashable {
        fileprivate let biometricsOnly: Bool

        /// Biometry only (`.deviceOwnerAuthenticationWithBiometrics`).
        public static let biometrics = Policy(biometricsOnly: true)
        /// Biometry, falling back to the device passcode (`.deviceOwnerAuthentication`).
        public static let biometricsOrPasscode = Policy(biometricsOnly: false)
    }

    /// The accepted proofs.
    public var policy: Policy

    /// Creates a gate.
    public init(policy: Policy = .biometricsOrPasscode) {
        self.policy = policy
    }

    /// Evaluates the policy with a fresh `LAContext`.
    ///
    /// - Throws: ``SecureStoreError/Code/authenticationCancelled`` for a user, system or app
    ///   cancellation, ``SecureStoreError/Code/lockedOut`` for a biometry lockout, and
    ///   ``SecureStoreError/Code/authenticationFailed`` for everything else (including biometry
    ///   that is not available or not enrolled).
    public func authenticate(reason: String) async throws(SecureStoreError) {
        let context = LAContext()
        let policy: LAPolicy =
            self.policy.biometricsOnly
            ? .deviceOwnerAuthenticationWithBiometrics
            : .deviceOwnerAuthentication
        let succeeded: Bool
        do {
            succeeded = try await context.evaluatePolicy(policy, localizedReason: reason)
        } catch let error as LAError {
            throw Self.error(for: error.code)
        } catch {
            throw SecureStoreError(.authenticationFailed, "the user-presence check failed")
        }
        guard succeeded else {
            throw SecureStoreError(.authenticationFailed, "the user-presence check failed")
        }
    }

    static func error(for code: LAError.Code) -> SecureStoreError {
        switch code {
        case .userCancel, .systemCancel, .appCancel:
            SecureStoreError(.authenticationCancelled, "the user-presence check was cancelled")
        case .biometryLockout:
            SecureStoreError(.lockedOut, "biometry is locked after too many failed attempts")
        default:
            SecureStoreError(.authenticationFailed, "the user-presence check failed (LAError \(code.rawValue))")
        }
    }
}
#endif
