public import X509

/// The certificates a chain must lead to.
///
/// Anchors are trusted by configuration: the certificate-profile rules judge the certificates
/// the server presents, not the anchor. Two exceptions, both under the Web PKI profile and only
/// for anchors the app supplies (the system's roots were admitted by their root program, some
/// before the Baseline Requirements existed): an app-supplied root must meet the root profile of
/// the Baseline Requirements §7.1.2.1 (see ``AnchorProfilePolicy``).
public struct TrustAnchors: Hashable, Sendable {
    /// The platform's root store (on Linux, the CA bundle under `/etc/ssl`), under the Web PKI profile.
    public static let system = TrustAnchors(certificates: [], includesSystemRoots: true, profile: .webPKI)

    /// The system roots and these certificates (a company CA, a development CA), under the Web
    /// PKI profile: a chain may end at either, so the stricter profile holds for both.
    public static func system(adding certificates: [Certificate]) -> TrustAnchors {
        TrustAnchors(certificates: certificates, includesSystemRoots: true, profile: .webPKI)
    }

    /// These certificates only, in place of the system roots.
    ///
    /// - Parameters:
    ///   - certificates: the anchors.
    ///   - profile: the certificate profile chains to them are held to; default ``CertificateProfile/webPKI``.
    ///     Pass ``CertificateProfile/privatePKI`` for a CA of your own whose certificates do not
    ///     follow the Baseline Requirements.
    public static func only(_ certificates: [Certificate], profile: CertificateProfile = .webPKI) -> TrustAnchors {
        TrustAnchors(certificates: certificates, includesSystemRoots: false, profile: profile)
    }

    /// The app-supplied anchors.
    public let certificates: [Certificate]
    /// Whether the system roots are trusted too.
    public let includesSystemRoots: Bool
    /// The certificate profile chains are held to.
    public let profile: CertificateProfile

    var store: CertificateStore {
        if self.includesSystemRoots {
            return CertificateStore.systemTrustRoots.appending(contentsOf: self.certificates)
        }
        return CertificateStore(self.certificates)
    }
}
