/// Which certificate profile a chain is held to, on top of RFC 5280.
///
/// - ``webPKI`` (the default for every anchor): the CA/Browser Forum Baseline Requirements
///   profile that publicly trusted certificates follow — extended key usage present in the
///   leaf, key identifiers, common name consistency, no extended key usage in an app-supplied root.
/// - ``privatePKI``: RFC 5280 alone, for an organisation's own CA whose certificates were never
///   meant to meet the Baseline Requirements (no extended key usage, no key identifiers).
///   It can only be chosen for app-supplied anchors (``TrustAnchors/only(_:profile:)``); a chain to
///   a system root is always held to the Web PKI profile.
///
/// The rules that hold under both profiles (name constraints, basic constraints, serial numbers,
/// key strength, host names, public suffixes) are listed in <doc:WhatServerTrustChecks>.
public struct CertificateProfile: Hashable, Sendable, CustomStringConvertible {
    fileprivate enum Base: String, Hashable, Sendable {
        case webPKI, privatePKI
    }

    fileprivate let base: Base

    /// The CA/Browser Forum Baseline Requirements profile (RFC 5280 plus BR §7.1).
    public static let webPKI = CertificateProfile(base: .webPKI)

    /// RFC 5280 without the Baseline Requirements' extra rules, for a private CA.
    /// - Important: a leaf without extended key usage, or without key identifiers, is accepted.
    ///   Use it only for a CA your organisation runs, never for public servers.
    public static let privatePKI = CertificateProfile(base: .privatePKI)

    /// Whether the Baseline Requirements' own rules apply.
    public var appliesBaselineRequirements: Bool { self.base == .webPKI }

    /// `webPKI` or `privatePKI`.
    public var description: String { self.base.rawValue }
}
