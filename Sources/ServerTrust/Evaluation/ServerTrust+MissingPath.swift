import X509

extension ServerTrust {
    /// How to make a root trusted, for messages.
    static let howToTrustARoot =
        "add it to the policy's trust anchors: \"trustAnchors\" in the policy file or TrustAnchors.system(adding:)"

    /// The most signature checks ``diagnoseMissingPath(_:appAnchors:)`` makes.
    static let maximumDiagnosisSignatureChecks = 16

    /// Why no path to an anchor was found when no rule failed: no candidate path existed.
    ///
    /// Following the presented issuers up from the leaf:
    /// - a self-signed leaf is ``ServerTrustError/Code/selfSigned``;
    /// - a path that reaches a presented self-issued CA is ``ServerTrustError/Code/untrustedRoot``
    ///   naming that root;
    /// - a leaf whose issuer is not presented is ``ServerTrustError/Code/missingIntermediate``;
    /// - a presented CA whose issuer is not presented is ``ServerTrustError/Code/untrustedRoot``
    ///   naming the issuer: servers do not send their root, so the chain leads to a root the policy
    ///   does not trust (or, less often, the server left out an upper intermediate; the message
    ///   says both).
    ///
    /// `issuerNotPresented` is true when the walk stopped at an issuer the server did not send
    /// (which may be a presented certificate that could not be parsed).
    static func diagnoseMissingPath(
        _ presented: [Certificate],
        appAnchors: [Certificate] = []
    ) -> (failure: ServerTrustError, issuerNotPresented: Bool, signatureChecks: Int) {
        let leaf = presented[0]
        if leaf.isSelfIssued, leaf.publicKey.isValidSignature(leaf.signature, for: leaf) {
            return (
                ServerTrustError(.selfSigned, "the leaf (\(leaf.subjectText)) is self-signed and not a trust anchor"),
                false,
                1
            )
        }
        var current = leaf
        var seen: Set<Certificate> = [leaf]
        // A hostile chain of many same-name certificates would otherwise cost a signature check
        // per pair on this failure path: the walk stops once its budget is spent.
        var signatureChecks = 0
        while let issuer = presented.first(where: {
            guard !seen.contains($0), $0.subject == current.issuer,
                signatureChecks < Self.maximumDiagnosisSignatureChecks
            else { return false }
            signatureChecks += 1
            return $0.publicKey.isValidSignature(current.signature, for: current)
        }) {
            if issuer.isSelfIssued {
                return (
                    ServerTrustError(
                        .untrustedRoot,
                        "the chain ends at the root \(issuer.subjectText), which is not a trust anchor of this policy; to trust it, \(Self.howToTrustARoot)"
                    ),
                    false,
                    signatureChecks
                )
            }
            seen.insert(issuer)
            current = issuer
        }
        let issuerName = OutsideText.escaped(String(describing: current.issuer))
        let sameName = appAnchors.contains { $0.subject == current.issuer }
        let rekeyed =
            sameName
            ? "; a trust anchor of this policy is named \(issuerName) but did not sign \(current.subjectText) (a CA minted again with a new key, such as a new `securenet serve` run?)"
            : ""
        if current == leaf {
            return (
                ServerTrustError(
                    .missingIntermediate,
                    "no presented or trusted certificate issued \(current.subjectText) (issuer \(issuerName))\(rekeyed)"
                ),
                true,
                signatureChecks
            )
        }
        return (
            ServerTrustError(
                .untrustedRoot,
                "the chain leads to \(issuerName) (the issuer of \(current.subjectText), not sent by the server), which is not a trust anchor of this policy\(rekeyed); if it is the root CA to trust, \(Self.howToTrustARoot); if it is an intermediate, the server must send it"
            ),
            true,
            signatureChecks
        )
    }
}
