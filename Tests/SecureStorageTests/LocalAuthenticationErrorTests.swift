import Testing

@testable import SecureStorage

/// How `LocalAuthenticationGate` reads LocalAuthentication's error codes: portable, so checked here
/// on every platform, watchOS and tvOS included (codes from LAPublicDefines.h).
@Suite struct LocalAuthenticationErrorTests {
    @Test(arguments: [-2, -4, -9])  // userCancel, systemCancel, appCancel
    func cancellationsAreCancelled(code: Int) {
        #expect(SecureStoreError.localAuthentication(code: code).code == .authenticationCancelled)
    }

    @Test func biometryLockoutIsLockedOut() {
        #expect(SecureStoreError.localAuthentication(code: -8).code == .lockedOut)
    }

    // authenticationFailed, userFallback, passcodeNotSet, biometryNotAvailable, biometryNotEnrolled,
    // invalidContext, notInteractive; companionNotAvailable (-11) and a code no SDK has yet (the enum is open).
    @Test(arguments: [-1, -3, -5, -6, -7, -10, -1004, -11, -99])
    func everythingElseIsAFailureThatNamesTheCode(code: Int) {
        let error = SecureStoreError.localAuthentication(code: code)
        #expect(error.code == .authenticationFailed)
        #expect(error.message.contains("LAError \(code)"))
    }
}
