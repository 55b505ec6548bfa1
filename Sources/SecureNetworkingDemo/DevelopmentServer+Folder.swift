#if Tools
import Foundation
import SecureNetworking
import SecureNetworkingInternal
import SecureNetworkingTesting
import X509

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The folder of `securenet serve`: a development PKI and pin-update key made once and kept, so
/// that an app that trusts its CA, pins its keys or compiled in its update key keeps working
/// across restarts.
///
/// The rules:
/// - An empty folder (none of the files below) gets a new PKI and update key.
/// - A folder with every ``kept`` file is reused as it is: the CA certificates, the keys and so
///   the pins stay. A leaf certificate (``Name/serverChain``, ``Name/clientCertificate``) is
///   issued again, for the same key, when it is missing or expires within a week; a missing
///   policy file or public update key is written again from the kept files; the others are left
///   as they are (the policy file may have been edited; the signed update may be a newer
///   version, and a removed one stays removed: nothing is published until one is signed into
///   ``Name/pinSetUpdate``, as while the server runs).
/// - Anything else is refused, and nothing is written: some kept files without the others (a
///   folder of an older `securenet serve`, which kept no CA key), or files that do not belong
///   together (a key that is not its certificate's, a certificate another CA issued). No key is
///   ever overwritten: a key file is created with `O_EXCL`, mode 0600 from its first byte.
///
/// The root CA's key is not kept (nothing needs it: the intermediate, valid for ten years,
/// issues the server's leaf), so nothing can mint another CA that devices trusting `ca.pem`
/// would trust.
struct DevelopmentFolder: Sendable {
    /// The files' names.
    enum Name {
        /// The root CA certificate (PEM), to trust.
        static let ca = "ca.pem"
        /// The intermediate CA certificate (PEM), which issues the server's leaf.
        static let intermediate = "intermediate-ca.pem"
        /// Its key (0600).
        static let intermediateKey = "intermediate-ca-key.pem"
        /// The server leaf's key (0600): the leaf pin stays when the leaf is issued again.
        static let serverKey = "server-key.pem"
        /// The server's chain (PEM, leaf first).
        static let serverChain = "server-chain.pem"
        /// The CA of client certificates (PEM).
        static let clientCA = "client-ca.pem"
        /// Its key (0600).
        static let clientCAKey = "client-ca-key.pem"
        /// A client certificate for `/mtls/whoami` (PEM).
        static let clientCertificate = "client.pem"
        /// Its key (0600).
        static let clientKey = "client-key.pem"
        /// The pin-update signing key (0600), for `securenet pins sign`.
        static let updateKey = "pin-update-key.pem"
        /// Its public half, to compile into the app.
        static let updatePublicKey = "pin-update-key.pub.pem"
        /// A policy file that trusts the CA and pins localhost.
        static let policy = "policy.json"
        /// The signed pin-set update the server publishes.
        static let pinSetUpdate = "pins.signed.json"
    }

    /// The audience of the pin-set updates the folder's key signs (``PinSetUpdate/audience``):
    /// an app that fetches them from this server gives it to its `PinUpdateVerifier`.
    static let pinUpdateAudience = "securenet-dev"

    /// The files a reused folder must have, all of them: the CA certificates and every key.
    static let kept = [
        Name.ca, Name.intermediate, Name.intermediateKey, Name.serverKey, Name.clientCA, Name.clientCAKey,
        Name.clientKey, Name.updateKey,
    ]
    /// The files made from the kept ones (the leaves, the policy file and the public update key
    /// again when missing; the signed update only in a new folder).
    static let derived = [
        Name.serverChain, Name.clientCertificate, Name.updatePublicKey, Name.policy, Name.pinSetUpdate,
    ]
    /// A leaf certificate that expires sooner than this is issued again.
    static let renewalMargin: TimeInterval = 7 * 86_400
    /// The client certificate's common name.
    static let clientCommonName = "securenet-dev-client"

    /// What the server runs with.
    struct Contents: Sendable {
        /// The server's chain: leaf and intermediate.
        var serverChain: TestPKI.Chain
        /// The CA of client certificates.
        var clientCA: TestPKI.Identity
        /// The pins: leaf, intermediate, root.
        var pins: [(name: String, pin: Pin)]
        /// The pin-update key's public half.
        var updateKey: PinUpdateKey
        /// Whether the folder's PKI and update key were there already.
        var reused: Bool
        /// The files written now (every file when the folder was empty).
        var written: [String]
    }

    /// The folder.
    let directory: URL

    func url(_ name: String) -> URL { self.directory.appendingPathComponent(name) }

    /// Reuses the folder's PKI and update key, or makes them in an empty folder (created 0700).
    /// Blocks on file I/O and key generation: call it on a thread of its own.
    ///
    /// - Throws: ``DevelopmentServerError`` when the folder is incomplete or inconsistent, or a
    ///   file cannot be read or written; nothing is written then.
    func prepare(now: Date) throws -> Contents {
        let manager = FileManager.default
        do {
            try manager.createDirectory(
                at: self.directory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
            try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: self.directory.path)
        } catch {
            throw DevelopmentServerError(.unwritableFile, "cannot create the folder \(self.directory.path)")
        }
        // A symbolic link counts as there (even a dangling one): it is never written through.
        let present = (Self.kept + Self.derived).filter {
            (try? manager.attributesOfItem(atPath: self.url($0).path)) != nil
        }
        if present.isEmpty { return try self.create(now: now) }
        let missing = Self.kept.filter { !present.contains($0) }
        guard missing.isEmpty else {
            throw DevelopmentServerError(
                .incompleteFolder,
                "\(self.directory.path) holds part of what securenet serve keeps: \(present.joined(separator: ", ")) "
                    + "\(present.count == 1 ? "is" : "are") there, \(missing.joined(separator: ", ")) "
                    + "\(missing.count == 1 ? "is" : "are") missing. Nothing was changed. A folder written by an older "
                    + "securenet serve keeps no CA key to reuse: remove the folder (or choose another --directory) and "
                    + "serve again, then give the app the new ca.pem, pins and pin-update-key.pub.pem; or put the "
                    + "missing files back"
            )
        }
        return try self.load(now: now)
    }

    /// Mints a PKI and an update key into the empty folder.
    private func create(now: Date) throws -> Contents {
        let pki = try TestPKI(referenceTime: now)
        let chain = try pki.validChain()
        let client = try pki.clientIdentity(commonName: Self.clientCommonName)
        let updateKey = PinUpdateSigningKey.generate(.ed25519)
        let pins = Self.pins(chain, root: pki.root.certificate)
        let files: [(name: String, text: String, isPrivate: Bool)] = [
            (Name.intermediateKey, try Self.pem(pki.intermediate.privateKey), true),
            (Name.serverKey, try Self.pem(chain.leafKey), true),
            (Name.clientCAKey, try Self.pem(pki.clientCA.privateKey), true),
            (Name.clientKey, try Self.pem(client.leafKey), true),
            (Name.updateKey, updateKey.pemEncoded + "\n", true),
            (Name.ca, pki.root.pem, false),
            (Name.intermediate, pki.intermediate.pem, false),
            (Name.clientCA, pki.clientCA.pem, false),
            (Name.serverChain, chain.pem, false),
            (Name.clientCertificate, client.pem, false),
            (Name.updatePublicKey, updateKey.publicKey.pemEncoded + "\n", false),
            (Name.policy, Self.samplePolicy(caFile: Name.ca, pins: [pki.intermediate.pin, pki.root.pin]), false),
            (Name.pinSetUpdate, try Self.firstUpdate(pins: pins, key: updateKey, now: now), false),
        ]
        for file in files {
            try self.createNew(file.name, Data(file.text.utf8), mode: file.isPrivate ? 0o600 : 0o644)
        }
        return Contents(
            serverChain: chain,
            clientCA: pki.clientCA,
            pins: pins,
            updateKey: updateKey.publicKey,
            reused: false,
            written: files.map(\.name)
        )
    }

    /// Reads the kept files, checks that they belong together, and writes what is missing or
    /// expiring (not the signed update: a removed one stays removed).
    private func load(now: Date) throws -> Contents {
        let root = try self.certificate(Name.ca)
        let intermediate = try self.identity(Name.intermediate, key: Name.intermediateKey)
        try self.expect(intermediate.certificate, Name.intermediate, issuedBy: root, Name.ca)
        let clientCA = try self.identity(Name.clientCA, key: Name.clientCAKey)
        let serverKey = try self.privateKey(Name.serverKey)
        let clientKey = try self.privateKey(Name.clientKey)
        let updateKey: PinUpdateSigningKey
        do {
            updateKey = try PinUpdateSigningKey(pemEncoded: try self.text(Name.updateKey))
        } catch let error as DevelopmentServerError {
            throw error
        } catch {
            throw self.unreadable(Name.updateKey, "is not a pin-update signing key (\(error))")
        }

        var written: [String] = []
        if self.exists(Name.updatePublicKey) {
            let publicKey: PinUpdateKey
            do {
                publicKey = try PinUpdateKey(pemEncoded: try self.text(Name.updatePublicKey))
            } catch let error as DevelopmentServerError {
                throw error
            } catch {
                throw self.unreadable(Name.updatePublicKey, "is not a pin-update public key (\(error))")
            }
            guard publicKey == updateKey.publicKey else {
                throw self.mismatch("\(Name.updatePublicKey) is not the public half of \(Name.updateKey)")
            }
        }
        let serverLeaf = try self.currentLeaf(
            Name.serverChain,
            key: serverKey,
            Name.serverKey,
            issuer: intermediate.certificate,
            Name.intermediate,
            now: now
        )
        let clientLeaf = try self.currentLeaf(
            Name.clientCertificate,
            key: clientKey,
            Name.clientKey,
            issuer: clientCA.certificate,
            Name.clientCA,
            now: now
        )
        // Only to issue leaves (for the keys kept), valid from a day before now for 90 days.
        let pki = serverLeaf == nil || clientLeaf == nil ? try TestPKI(referenceTime: now) : nil
        let chain: TestPKI.Chain
        if let serverLeaf {
            chain = TestPKI.Chain(certificates: [serverLeaf, intermediate.certificate], leafKey: serverKey)
        } else if let pki {
            chain = try pki.leaf {
                $0.issuer = .custom(intermediate, presenting: [intermediate])
                $0.key = .existing(serverKey)
            }
            try self.replace(Name.serverChain, Data(chain.pem.utf8))
            written.append(Name.serverChain)
        } else {
            preconditionFailure("a PKI is minted whenever a leaf is issued")
        }
        if clientLeaf == nil, let pki {
            let client = try pki.leaf {
                $0.issuer = .custom(clientCA, presenting: [])
                $0.key = .existing(clientKey)
                $0.commonName = Self.clientCommonName
                $0.dnsNames = []
                $0.ipAddresses = []
                $0.includesSubjectAlternativeNames = false
                $0.extendedKeyUsage = [.clientAuth]
            }
            try self.replace(Name.clientCertificate, Data(client.pem.utf8))
            written.append(Name.clientCertificate)
        }

        let pins = Self.pins(chain, root: root)
        let missing: [(name: String, make: () throws -> String)] = [
            (Name.updatePublicKey, { updateKey.publicKey.pemEncoded + "\n" }),
            (Name.policy, { Self.samplePolicy(caFile: Name.ca, pins: [pins[1].pin, pins[2].pin]) }),
        ]
        for file in missing where !self.exists(file.name) {
            try self.createNew(file.name, Data(try file.make().utf8), mode: 0o644)
            written.append(file.name)
        }
        return Contents(
            serverChain: chain,
            clientCA: clientCA,
            pins: pins,
            updateKey: updateKey.publicKey,
            reused: true,
            written: written
        )
    }

    // MARK: - Checks

    /// The leaf of the PEM file `name` when it is for `key`, was issued by `issuer` and is
    /// valid for longer than ``renewalMargin``; nil when it is missing or to be issued again.
    /// - Throws: ``DevelopmentServerError/Code/mismatchedFiles`` for a leaf of another key or
    ///   issuer.
    private func currentLeaf(
        _ name: String,
        key: Certificate.PrivateKey,
        _ keyName: String,
        issuer: Certificate,
        _ issuerName: String,
        now: Date
    ) throws -> Certificate? {
        guard self.exists(name) else { return nil }
        let leaf = try self.certificate(name)
        guard leaf.publicKey == key.publicKey else {
            throw self.mismatch("the certificate in \(name) is not for the key in \(keyName)")
        }
        try self.expect(leaf, name, issuedBy: issuer, issuerName)
        guard leaf.notValidBefore <= now, leaf.notValidAfter > now.addingTimeInterval(Self.renewalMargin) else {
            return nil
        }
        return leaf
    }

    private func expect(
        _ certificate: Certificate,
        _ name: String,
        issuedBy issuer: Certificate,
        _ issuerName: String
    ) throws {
        guard certificate.issuer == issuer.subject,
            issuer.publicKey.isValidSignature(certificate.signature, for: certificate)
        else {
            throw self.mismatch("the certificate in \(name) was not issued by the CA in \(issuerName)")
        }
    }

    // MARK: - Reading

    private func exists(_ name: String) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: self.url(name).path)) != nil
    }

    /// The text of the file `name`: a regular file of at most 1 MiB (a FIFO or a device put in
    /// its place is refused at once, not waited on or read without end).
    private func text(_ name: String) throws -> String {
        do {
            return String(decoding: try RegularFileReader.read(self.url(name).path, limit: 1 << 20), as: UTF8.self)
        } catch {
            throw self.unreadable(name, "cannot be read: \(error.reason)")
        }
    }

    /// The first certificate of the PEM file `name`.
    private func certificate(_ name: String) throws -> Certificate {
        let text = try self.text(name)
        let end = "-----END CERTIFICATE-----"
        let first = text.range(of: end).map { String(text[..<$0.upperBound]) } ?? text
        do {
            return try Certificate(pemEncoded: first)
        } catch {
            throw self.unreadable(name, "holds no PEM certificate")
        }
    }

    private func privateKey(_ name: String) throws -> Certificate.PrivateKey {
        let text = try self.text(name)
        do {
            return try Certificate.PrivateKey(pemEncoded: text)
        } catch {
            throw self.unreadable(name, "holds no PEM private key")
        }
    }

    /// The certificate of `name` with the key of `keyName`, which must be its.
    private func identity(_ name: String, key keyName: String) throws -> TestPKI.Identity {
        let certificate = try self.certificate(name)
        let key = try self.privateKey(keyName)
        guard key.publicKey == certificate.publicKey else {
            throw self.mismatch("the key in \(keyName) is not the key of the certificate in \(name)")
        }
        return TestPKI.Chain(certificates: [certificate], leafKey: key).leafIdentity
    }

    private func unreadable(_ name: String, _ reason: String) -> DevelopmentServerError {
        DevelopmentServerError(
            .unreadableFile,
            "\(self.url(name).path) \(reason). Nothing was changed: put the file back as securenet serve wrote it, "
                + "or remove the folder (or choose another --directory) to start over"
        )
    }

    private func mismatch(_ reason: String) -> DevelopmentServerError {
        DevelopmentServerError(
            .mismatchedFiles,
            "in \(self.directory.path), \(reason). Nothing was changed: put back the files as securenet serve wrote "
                + "them, or remove the folder (or choose another --directory) to start over"
        )
    }

    // MARK: - Writing

    /// Creates the file `name` with `mode` from its first byte (``PrivateFileWriter``, `O_EXCL`:
    /// an existing file, or a symbolic link in its place, is refused, never written through).
    private func createNew(_ name: String, _ contents: Data, mode: Int) throws {
        let path = self.url(name).path
        do {
            try PrivateFileWriter.create(path, contents: contents, mode: mode)
        } catch {
            switch error {
            case .exists, .symbolicLink:
                throw DevelopmentServerError(
                    .unwritableFile,
                    "\(path) appeared while the folder was being written; nothing was overwritten"
                )
            case .cannotCreate:
                throw DevelopmentServerError(.unwritableFile, "cannot create \(path)")
            case .cannotWrite:
                throw DevelopmentServerError(.unwritableFile, "cannot write \(path)")
            }
        }
    }

    /// Replaces the public file `name` (a certificate issued again) by renaming a new file over
    /// it, so that a symbolic link in its place is replaced, not written through.
    private func replace(_ name: String, _ contents: Data) throws {
        let url = self.url(name)
        do {
            try contents.write(to: url, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        } catch {
            throw DevelopmentServerError(.unwritableFile, "cannot write \(url.path)")
        }
    }

    // MARK: - Contents

    static func pem(_ key: Certificate.PrivateKey) throws -> String {
        try key.serializeAsPEM().pemString + "\n"
    }

    static func pins(_ chain: TestPKI.Chain, root: Certificate) -> [(name: String, pin: Pin)] {
        [
            ("leaf", Pin(certificate: chain.leaf)),
            ("intermediate", Pin(certificate: chain.certificates[1])),
            ("root", Pin(certificate: root)),
        ]
    }

    /// Version 1 of the signed update: `localhost` pinned to the intermediate with the root as
    /// backup, valid for 90 days.
    static func firstUpdate(pins: [(name: String, pin: Pin)], key: PinUpdateSigningKey, now: Date) throws -> String {
        let update = try PinSetUpdate(
            audience: Self.pinUpdateAudience,
            version: 1,
            issuedAt: now,
            notAfter: now.addingTimeInterval(90 * 86_400),
            entries: [try HostPattern("localhost"): .pinned(try PinSet(pins: [pins[1].pin, pins[2].pin]))]
        )
        let envelope = try SignedPinSetUpdate(signing: update.jsonData(), with: key).envelope()
        return String(decoding: envelope, as: UTF8.self)
    }

    /// The policy file: ATS defaults, the system roots and the CA file `caFile` (a path relative
    /// to the policy file's folder), `localhost` pinned to `pins`.
    static func samplePolicy(caFile: String, pins: [Pin]) -> String {
        let list = pins.map { "\"\($0)\"" }.joined(separator: ", ")
        return """
            {
              "minimumTLSVersion": "TLSv1.2",
              "requiresForwardSecrecy": true,
              "trustAnchors": { "system": true, "certificates": ["\(caFile)"] },
              "pinnedDomains": {
                "localhost": { "pins": [\(list)] }
              }
            }

            """
    }
}

#endif
