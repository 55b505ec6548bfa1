import Foundation
import X509

/// The policy file's `"trustAnchors"` object:
/// `{"system": true, "certificates": ["ca.pem", "-----BEGIN CERTIFICATE-----…"], "profile": "webPKI"}`.
extension PolicyReader {
    static let trustAnchorKeys: Set<String> = ["system", "certificates", "profile"]
    /// More entries than any app needs; each may be a bundle of many certificates.
    static let maximumAnchorEntries = 64

    func trustAnchors(_ value: JSONValue, _ path: String) throws(ServerTrustError) -> TrustAnchors {
        let fields = try self.object(value, path, allowed: Self.trustAnchorKeys)
        let system = try self.bool(fields, "system", path) ?? true
        var profile = CertificateProfile.webPKI
        if let name = try self.string(fields, "profile", path) {
            switch name {
            case "webPKI": profile = .webPKI
            case "privatePKI": profile = .privatePKI
            default:
                throw self.fail(
                    path + ".profile",
                    "unknown profile '\(name.prefix(40))': use \"webPKI\" or \"privatePKI\""
                )
            }
        }
        if system, profile == .privatePKI {
            throw self.fail(
                path + ".profile",
                "\"privatePKI\" needs \"system\": false (a chain to a system root is always held to the Web PKI profile)"
            )
        }
        let certificates = try self.anchorCertificates(fields["certificates"], path + ".certificates")
        if system { return .system(adding: certificates) }
        guard !certificates.isEmpty else {
            throw self.fail(
                path + ".certificates",
                "missing: with \"system\": false the policy needs at least one CA certificate"
            )
        }
        return .only(certificates, profile: profile)
    }

    /// The certificates of every entry: a file path or inline PEM.
    private func anchorCertificates(_ value: JSONValue?, _ path: String) throws(ServerTrustError) -> [Certificate] {
        guard let value else { return [] }
        guard case .array(let items) = value else {
            throw self.fail(path, "expected an array of PEM file paths or PEM texts, found \(value.typeName)")
        }
        guard items.count <= Self.maximumAnchorEntries else {
            throw self.fail(
                path,
                "\(items.count) entries; at most \(Self.maximumAnchorEntries) (a file may hold many certificates)"
            )
        }
        var certificates: [Certificate] = []
        for (index, item) in items.enumerated() {
            let itemPath = "\(path)[\(index)]"
            guard case .string(let text) = item else {
                throw self.fail(itemPath, "expected a PEM file path or PEM text, found \(item.typeName)")
            }
            certificates += try self.anchorEntry(text, itemPath)
        }
        return certificates
    }

    private func anchorEntry(_ text: String, _ path: String) throws(ServerTrustError) -> [Certificate] {
        if text.contains("-----BEGIN") {
            guard text.utf8.count <= TrustAnchors.maximumCertificateFileSize else {
                throw self.fail(path, "the PEM text is longer than \(TrustAnchors.maximumCertificateFileSize) bytes")
            }
            do {
                return try TrustAnchors.loadCertificates(pem: text)
            } catch {
                throw self.fail(path, error.message)
            }
        }
        guard !text.isEmpty else { throw self.fail(path, "an empty string is neither a file path nor PEM text") }
        let file: String
        if text.hasPrefix("/") {
            file = text
        } else if let baseDirectory = self.baseDirectory {
            file = baseDirectory.appendingPathComponent(text).standardizedFileURL.path
        } else {
            throw self.fail(
                path,
                "'\(text.prefix(200))' is a relative path and the policy has no folder to resolve it against: load it with TransportSecurityPolicy(contentsOfFile:) or init(json:relativeTo:), or give an absolute path"
            )
        }
        do {
            return try TrustAnchors.loadCertificates(pemFile: file)
        } catch {
            throw self.fail(path, error.message)
        }
    }
}
