public import X509

/// The certificates a chain must lead to.
public struct TrustAnchors: Hashable, Sendable {
    /// The platform's root store (on Linux, the CA bundle under `/etc/ssl`).
    public static let system = TrustAnchors(certificates: [], includesSystemRoots: true)

    /// The system roots and these certificates (a company CA, a development CA).
    public static func system(adding certificates: [Certificate]) -> TrustAnchors {
        TrustAnchors(certificates: certificates, includesSystemRoots: true)
    }

    /// These certificates only, in place of the system roots.
    public static func only(_ certificates: [Certificate]) -> TrustAnchors {
        TrustAnchors(certificates: certificates, includesSystemRoots: false)
    }

    /// The app-supplied anchors.
    public let certificates: [Certificate]
    /// Whether the system roots are trusted too.
    public let includesSystemRoots: Bool

    var store: CertificateStore {
        if self.includesSystemRoots {
            return CertificateStore.systemTrustRoots.appending(contentsOf: self.certificates)
        }
        return CertificateStore(self.certificates)
    }
}
