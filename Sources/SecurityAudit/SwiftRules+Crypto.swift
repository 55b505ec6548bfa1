#if Tools
import SwiftSyntax

// Crypto rules for Swift sources: SN010 weak password hashing, SN013 insecure randomness.
extension SwiftRuleVisitor {
    static let insecureRandomFunctions: Set<String> = [
        "arc4random", "arc4random_uniform", "random", "rand", "srand", "srandom", "drand48", "lrand48", "mrand48",
        "srand48",
    ]

    /// `CC_MD5`/`CC_SHA1`/`Insecure.MD5.hash`/`Insecure.SHA1.hash` over password data, and
    /// `SHA256/384/512.hash(data:)` over password data with no salt in the same expression.
    func checkWeakPasswordHash(_ node: FunctionCallExprSyntax, callee: Callee) {
        let algorithm: String
        let broken: Bool
        if callee.base == nil, callee.name == "CC_MD5" || callee.name == "CC_SHA1" {
            algorithm = callee.name
            broken = true
        } else if callee.name == "hash", let base = callee.base {
            let text = base.trimmedDescription
            switch text {
            case "Insecure.MD5", "Insecure.SHA1":
                algorithm = text
                broken = true
            case "SHA256", "SHA384", "SHA512", "CryptoKit.SHA256", "CryptoKit.SHA512", "Crypto.SHA256":
                algorithm = text
                broken = false
            default:
                return
            }
        } else {
            return
        }
        let names = NameCollector.collect(node.arguments).names.map(\.name)
        guard let password = names.first(where: SecretNames.isPassword) else { return }
        if !broken, names.contains(where: { NameWords.split($0).contains("salt") }) { return }
        let message =
            broken
            ? "\(algorithm) is a broken, fast hash applied to '\(password)'"
            : "unsalted \(algorithm) of '\(password)' is fast to brute-force"
        report(.weakPasswordHash, at: node, message: message)
    }

    /// A libc/arc4random generator whose result is bound, in the same statement, to a name that holds key material (key, nonce, iv, salt, token,
    /// secret, otp, password, pin, seed), or is what a function or computed property named like key
    /// material returns (`func makeNonce() -> String { String(arc4random()) }`).
    func checkInsecureRandom(_ node: FunctionCallExprSyntax, callee: Callee) {
        guard callee.base == nil, Self.insecureRandomFunctions.contains(callee.name) else { return }
        var names = SyntaxHelpers.boundNames(of: node, throughExpressions: true)
        if names.isEmpty, let producer = SyntaxHelpers.returningDeclarationName(of: node) { names = [producer] }
        guard let target = names.first(where: SecretNames.isKeyMaterial) else { return }
        report(
            .insecureRandom,
            at: node,
            message: "\(callee.name)() is not a CSPRNG but produces '\(target)'"
        )
    }
}
#endif
