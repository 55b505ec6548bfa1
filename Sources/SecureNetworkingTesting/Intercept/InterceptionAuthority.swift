#if TestServers
import Crypto
public import Foundation
public import ServerTrust
import SwiftASN1
public import X509

/// The CA of `securenet intercept`: what a debugging proxy such as Charles or mitmproxy asks
/// you to install on a device, so that it can mint a certificate for any host on the fly.
///
/// A device (or simulator) that trusts it lets the proxy read every connection of an app that
/// does not pin; an app that pins refuses the minted certificates whatever the device trusts.
/// The key stays in the folder the CA was written to (``write(to:)``, mode 0600): anyone who
/// holds it can intercept the traffic of every device that trusts the CA, so remove the CA from
/// the device when you are done.
public struct InterceptionAuthority: Sendable {
    /// The CA certificate (self-signed, P-256).
    public let certificate: Certificate
    /// The CA's private key.
    public let privateKey: Certificate.PrivateKey
    /// One key for every leaf this instance mints (minting is then one signature).
    private let leafKey: Certificate.PrivateKey

    /// The files ``write(to:)`` creates.
    public enum File {
        /// The CA certificate as PEM (for `xcrun simctl keychain booted add-root-cert`).
        public static let certificatePEM = "securenet-intercept-ca.pem"
        /// The CA certificate as DER (for a device: AirDrop or mail it, then trust it in
        /// Settings).
        public static let certificateDER = "securenet-intercept-ca.cer"
        /// The CA's private key, PEM, readable by the owner only.
        public static let privateKeyPEM = "securenet-intercept-ca-key.pem"
        /// How to install and remove the CA.
        public static let instructions = "INSTALL.txt"
    }

    /// Creates a new CA valid from an hour before `now` for two years.
    public static func create(
        commonName: String = "SecureNetworking Intercept CA",
        now: Date = Date()
    ) throws -> InterceptionAuthority {
        var options = TestPKI.CAOptions(name: commonName)
        options.subject = try DistinguishedName {
            OrganizationName("securenet intercept (debugging only)")
            CommonName(commonName)
        }
        options.maximumPathLength = 0
        let identity = try TestPKI.makeCA(
            options,
            key: Certificate.PrivateKey(P256.Signing.PrivateKey()),
            issuer: nil,
            notBefore: now.addingTimeInterval(-3_600),
            notAfter: now.addingTimeInterval(2 * 365 * 86_400)
        )
        return InterceptionAuthority(certificate: identity.certificate, privateKey: identity.privateKey)
    }

    /// A CA from its certificate and key (PEM, as ``write(to:)`` writes them).
    ///
    /// - Throws: `ServerTrustError` `notACertificate` when the certificate cannot be read or
    ///   is not a CA certificate, and `unreadableFile` when the key cannot be read or is not the
    ///   certificate's.
    public init(certificatePEM: String, privateKeyPEM: String) throws {
        let certificate: Certificate
        do {
            certificate = try Certificate(pemEncoded: certificatePEM)
        } catch {
            throw ServerTrustError(.notACertificate, "the intercept CA certificate cannot be read")
        }
        guard (try? certificate.extensions.basicConstraints) == .isCertificateAuthority(maxPathLength: 0) else {
            throw ServerTrustError(.notACertificate, "the intercept CA certificate is not a CA certificate")
        }
        let key: Certificate.PrivateKey
        do {
            key = try Certificate.PrivateKey(pemEncoded: privateKeyPEM)
        } catch {
            throw ServerTrustError(.unreadableFile, "the intercept CA key cannot be read")
        }
        guard key.publicKey == certificate.publicKey else {
            throw ServerTrustError(.unreadableFile, "the intercept CA key does not belong to its certificate")
        }
        self.init(certificate: certificate, privateKey: key)
    }

    private init(certificate: Certificate, privateKey: Certificate.PrivateKey) {
        self.certificate = certificate
        self.privateKey = privateKey
        self.leafKey = Certificate.PrivateKey(P256.Signing.PrivateKey())
    }

    /// The CA in `directory` if one was written there, else a new one written there.
    ///
    /// Whoever can write the folder or read the key can intercept every device that trusts the
    /// CA, so the folder must be a directory owned by this user with no access for group or
    /// others (0700), and the key a regular file (not a symbolic link) owned by this user with
    /// mode 0600 or stricter, as ``write(to:)`` creates them.
    ///
    /// - Returns: the CA, and whether it was created now.
    /// - Throws: `ServerTrustError` `unreadableFile` naming the folder or key that is not
    ///   private, or as ``init(certificatePEM:privateKeyPEM:)`` and ``write(to:)``.
    public static func loadOrCreate(
        in directory: URL,
        now: Date = Date()
    ) throws -> (
        authority: InterceptionAuthority, created: Bool
    ) {
        let certificateURL = directory.appendingPathComponent(File.certificatePEM)
        let keyURL = directory.appendingPathComponent(File.privateKeyPEM)
        if FileManager.default.fileExists(atPath: certificateURL.path) {
            try PrivateFile.checkDirectory(directory.path)
            let key = try PrivateFile.readKey(keyURL.path)
            let certificate = try PrivateFile.read(certificateURL.path, what: "the intercept CA certificate")
            let authority = try InterceptionAuthority(
                certificatePEM: String(decoding: certificate, as: UTF8.self),
                privateKeyPEM: String(decoding: key, as: UTF8.self)
            )
            return (authority, false)
        }
        let authority = try InterceptionAuthority.create(now: now)
        try authority.write(to: directory)
        return (authority, true)
    }

    /// The CA certificate's DER bytes.
    public var derBytes: [UInt8] { TestPKI.Identity.der(self.certificate) }
    /// The CA certificate as PEM.
    public var pem: String { TestPKI.Identity.pem(self.certificate) }
    /// The CA's SPKI pin.
    public var pin: Pin { Pin(certificate: self.certificate) }

    /// Writes the certificate (PEM and DER), the key (mode 0600) and the install instructions
    /// to `directory` (created with mode 0700 if missing).
    ///
    /// The folder must then be private (see ``loadOrCreate(in:now:)``). The key file is created
    /// with `O_CREAT | O_EXCL` and mode 0600, so it is never readable by others, not even for a
    /// moment, and an existing file or a symbolic link planted in its place is refused rather
    /// than written through; the public files are never written through a symbolic link either.
    /// - Throws: `ServerTrustError` `unreadableFile` when the folder is not private or a file
    ///   cannot be created.
    public func write(to directory: URL) throws {
        try PrivateFile.createDirectory(directory.path)
        try PrivateFile.checkDirectory(directory.path)
        let keyPEM = try self.privateKey.serializeAsPEM().pemString
        let files: [(String, Data, mode_t)] = [
            (File.privateKeyPEM, Data(keyPEM.utf8), 0o600),
            (File.certificatePEM, Data(self.pem.utf8), 0o644),
            (File.certificateDER, Data(self.derBytes), 0o644),
            (File.instructions, Data(self.instructions(directory: directory).utf8), 0o644),
        ]
        for (name, contents, mode) in files {
            try PrivateFile.create(directory.appendingPathComponent(name).path, contents, mode: mode)
        }
    }

    /// How to install the CA on a simulator or device, and how to remove it.
    public func instructions(directory: URL) -> String {
        let pemPath = directory.appendingPathComponent(File.certificatePEM).path
        return """
            securenet intercept CA (\(self.pin))

            Simulator (booted):
              xcrun simctl keychain booted add-root-cert \(pemPath)
              Remove it with: xcrun simctl keychain booted reset
              The simulator uses the Mac's proxy settings: set System Settings > Network >
              (your network) > Details > Proxies > Secure web proxy (HTTPS) to 127.0.0.1 and the
              port `securenet intercept` prints, and turn it off when you are done.
            Device: send \(File.certificateDER) to it (AirDrop, mail), install the profile in
              Settings > General > VPN & Device Management, then turn on full trust in
              Settings > General > About > Certificate Trust Settings; remove it there when you
              are done. The proxy listens on 127.0.0.1 only, so a device reaches it through a
              tunnel you set up yourself (such as `ssh -R` from a machine on its network).

            An app that pins its server's keys refuses every connection through the proxy
            ("held"); one that does not pin is read in full ("intercepted"). The key in
            \(File.privateKeyPEM) can intercept every device that trusts this CA: keep it private
            and remove the CA from devices after testing.

            """
    }

    /// Mints a certificate for `host` (a DNS name or an IP address): valid from an hour before
    /// `now` for 30 days, `serverAuth`, the host in its subject alternative names. Returns the
    /// leaf and the CA, as the proxy presents them.
    public func chain(for host: String, now: Date = Date()) throws -> TestPKI.Chain {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let isAddress = (try? TestPKI.addressBytes(bare)) != nil
        let name: GeneralName =
            isAddress
            ? .ipAddress(ASN1OctetString(contentBytes: ArraySlice(try TestPKI.addressBytes(bare))))
            : .dnsName(bare.lowercased())
        let subject = try DistinguishedName {
            OrganizationName("securenet intercept (debugging only)")
            CommonName(bare)
        }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            TestPKI.authorityKeyIdentifier(of: self.certificate)
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames([name])
        }
        let leaf = try TestPKI.sign(
            serialNumber: TestPKI.randomSerialNumber(),
            publicKey: self.leafKey.publicKey,
            notBefore: now.addingTimeInterval(-3_600),
            notAfter: now.addingTimeInterval(30 * 86_400),
            issuer: self.certificate.subject,
            subject: subject,
            extensions: extensions,
            issuerKey: self.privateKey,
            signatureAlgorithm: nil
        )
        return TestPKI.Chain(certificates: [leaf, self.certificate], leafKey: self.leafKey)
    }
}
#endif
