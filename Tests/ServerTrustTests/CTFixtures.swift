import SecureNetworkingTesting

// Also compiled into SecurenetCLITests (a symbolic link there): `securenet ct` is tested with
// the same logs.

/// Three test logs from two operators, and one from a third, minted once.
enum CTFixtures {
    static let argon = TestPKI.CTLog(description: "Test Argon", operatorName: "Operator A")
    static let xenon = TestPKI.CTLog(description: "Test Xenon", operatorName: "Operator A")
    static let oak = TestPKI.CTLog(description: "Test Oak", operatorName: "Operator B")
    static let nimbus = TestPKI.CTLog(description: "Test Nimbus", operatorName: "Operator C")
    /// A log that is not in the list.
    static let stranger = TestPKI.CTLog(description: "Unlisted", operatorName: "Operator D")

    static var logs: [TestPKI.CTLog] { [argon, xenon, oak, nimbus] }
}
