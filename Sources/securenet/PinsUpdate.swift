#if Tools
import ArgumentParser
import Foundation
import SecureHTTP
import SecureNetworkingInternal
import ServerTrust

/// `securenet pins keygen`: a new pin-update signing key.
struct PinsKeygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract:
            "Make a key that signs pin-set updates: the private key (keep it offline) and the public key to compile into the app.",
        discussion: """
            Writes the private key (PEM PRIVATE KEY, PKCS #8) to --out, created new with mode 0600 \
            from its first byte, and the public key (PEM PUBLIC KEY, 0644) beside it with .pub \
            added before .pem, and prints the key id (sha256/ of the public key's \
            SubjectPublicKeyInfo). Make two keys: the app trusts both, you sign with one and keep \
            the other in reserve, so the update key itself can rotate. Refuses to overwrite a file \
            or to write through a symbolic link. Exit status: 0 written, 1 an error, 64 a usage \
            error.
            """
    )

    @Option(help: "Where to write the private key, e.g. pin-update-key.pem.")
    var out: String

    @Option(help: "ed25519 (default) or p256 (ECDSA P-256 with SHA-256).")
    var algorithm = "ed25519"

    func run() throws {
        let chosen: PinUpdateKey.Algorithm
        switch self.algorithm.lowercased() {
        case "ed25519": chosen = .ed25519
        case "p256", "p-256", "ecdsa-p256": chosen = .p256
        default: throw ValidationError("--algorithm is ed25519 or p256, not '\(self.algorithm.prefix(20))'")
        }
        let key = PinUpdateSigningKey.generate(chosen)
        let publicPath = Self.publicPath(for: self.out)
        // Only to say so before a key is made (a symbolic link counts as there, even a dangling
        // one); the creation itself refuses (O_EXCL) whatever appears meanwhile.
        if (try? FileManager.default.attributesOfItem(atPath: publicPath)) != nil {
            throw PinsCommandFailure("\(OutsideText.quoted(publicPath)): \(PrivateFileWriter.Failure.exists.reason)")
        }
        // O_CREAT | O_EXCL | O_NOFOLLOW, mode 0600 from the first byte: no moment in which
        // another user could open the key.
        do {
            try PrivateFileWriter.create(self.out, contents: Data((key.pemEncoded + "\n").utf8), mode: 0o600)
        } catch {
            throw PinsCommandFailure("\(OutsideText.quoted(self.out)): \(error.reason)")
        }
        do {
            try PrivateFileWriter.create(
                publicPath,
                contents: Data((key.publicKey.pemEncoded + "\n").utf8),
                mode: 0o644
            )
        } catch {
            // Without its public half the key is of no use; nobody has seen it yet.
            try? FileManager.default.removeItem(atPath: self.out)
            throw PinsCommandFailure("\(OutsideText.quoted(publicPath)): \(error.reason); no key was written")
        }
        printEscaped("private key: \(self.out) (keep it offline; it never belongs in the app)")
        printEscaped("public key:  \(publicPath)")
        print("key id:      \(key.publicKey.id)")
        print("algorithm:   \(key.publicKey.algorithm)")
        printEscaped("In the app:  try PinUpdateKey(pemEncoded: <the contents of \(publicPath)>)")
    }

    /// `key.pem` → `key.pub.pem`; another name gets `.pub` appended.
    static func publicPath(for path: String) -> String {
        path.hasSuffix(".pem") ? String(path.dropLast(4)) + ".pub.pem" : path + ".pub"
    }
}

/// `securenet pins sign`: a signed pin-set update.
struct PinsSign: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract:
            "Make a signed pin-set update from pins, from the chains of https:// URLs, or from a document you wrote.",
        discussion: """
            Examples:
              securenet pins sign --key pin-update-key.pem --audience com.example.app/production \\
                --version 2 --ca-pins 'api.example.com=sha256/AAA…,sha256/BBB…' --out pins.json
              securenet pins sign --key pin-update-key.pem --audience com.example.app/production \\
                --version 3 --from-url https://api.example.com/
              securenet pins sign --key pin-update-key.pem --document pins-v4.json --out pins.json

            The document (format securenet-pin-set-update/1) names its audience (the app and \
            environment it is for, which the app's PinUpdateVerifier requires) and lists host \
            patterns with their pins \
            (pins: any certificate of the chain; ca-pins: an intermediate or the root; \
            leaf-pins: the leaf) or an explicit unpin. --from-url connects (chain validation \
            against the system roots or --ca, no pins), and pins the CA certificates of the \
            validated chain for the URL's host. An enforced set needs two pins (a backup). With \
            --document its exact bytes are signed and checked first (a key given twice in one \
            object is refused: JSON readers disagree on which wins), and --audience, if given, \
            must be the document's. What is signed (audience, version, validity, each pattern's \
            pins) is printed on standard error first. The signed update (JSON) goes to --out or \
            standard output. Exit status: 0 signed, 1 an error, 64 a usage error.
            """
    )

    @Option(help: "The private signing key (from securenet pins keygen, or openssl genpkey).")
    var key: String

    @Option(help: "The app and environment the document is for, e.g. com.example.app/production.")
    var audience: String?

    @Option(help: "The document's version: greater than every version published before.")
    var version: UInt64?

    @Option(help: "Days from now until the document stops being applied (default 90).")
    var validDays: Double = 90

    @Option(help: "PATTERN=PIN,PIN,…: pins that may match any certificate of the chain.")
    var pins: [String] = []

    @Option(
        name: .customLong("ca-pins"),
        help: "PATTERN=PIN,PIN,…: pins of CA certificates (an intermediate or the root)."
    )
    var caPins: [String] = []

    @Option(name: .customLong("leaf-pins"), help: "PATTERN=PIN,PIN,…: pins of the leaf.")
    var leafPins: [String] = []

    @Option(help: "A host pattern that is no longer pinned (an explicit, signed statement).")
    var unpin: [String] = []

    @Option(
        name: .customLong("from-url"),
        help: "An https:// URL whose validated chain's CA certificates are pinned for its host."
    )
    var fromURL: [String] = []

    @Option(help: "With --from-url: trust only the certificates of this PEM file instead of the system roots.")
    var ca: String?

    @Option(help: "A document to sign as it is (instead of the options above).")
    var document: String?

    @Option(help: "Where to write the signed update (default: standard output).")
    var out: String?

    func validate() throws {
        let built =
            !self.pins.isEmpty || !self.caPins.isEmpty || !self.leafPins.isEmpty || !self.unpin.isEmpty
            || !self.fromURL.isEmpty
        if self.document != nil, built || self.version != nil {
            throw ValidationError(
                "--document signs a document as it is: give no --version, pins, --unpin or --from-url with it"
            )
        }
        if self.document == nil {
            guard built else {
                throw ValidationError("give pins (--pins, --ca-pins, --leaf-pins, --from-url), --unpin, or --document")
            }
            guard self.version != nil else { throw ValidationError("--version is required") }
            guard self.audience != nil else {
                throw ValidationError(
                    "--audience is required: the app and environment, e.g. com.example.app/production"
                )
            }
        }
        guard self.validDays > 0, self.validDays <= 3_650 else {
            throw ValidationError("--valid-days is from 1 to 3650")
        }
    }

    func run() async throws {
        let signingKey = try PinUpdateSigningKey(pemEncoded: try readText(self.key, what: "the signing key"))
        let bytes: Data
        if let document {
            bytes = try readBytes(document, what: "the document")
        } else {
            bytes = try await self.buildDocument().jsonData()
        }
        // A document that does not parse (a key given twice included) is not signed.
        let update = try PinSetUpdate(json: bytes)
        if let audience, audience != update.audience {
            throw PinsCommandFailure(
                "the document is for \(OutsideText.quoted(update.audience)), not \(OutsideText.quoted(audience)); nothing was signed"
            )
        }
        var summary = StandardError()
        for line in PinsVerify.summary(of: update) {
            printEscaped(line, to: &summary)
        }
        let signed = try SignedPinSetUpdate(signing: bytes, with: signingKey)
        let publicHalf = signingKey.publicKey
        if let out {
            do {
                try signed.envelope().write(to: URL(fileURLWithPath: out))
            } catch {
                throw PinsCommandFailure("cannot write \(out)")
            }
            var standardError = StandardError()
            printEscaped(
                "signed version \(update.version) (\(update.entries.count) host patterns) with \(publicHalf): \(out)",
                to: &standardError
            )
        } else {
            print(String(decoding: signed.envelope(), as: UTF8.self), terminator: "")
        }
    }

    private func buildDocument() async throws -> PinSetUpdate {
        var groups: [HostPattern: (any: [Pin], ca: [Pin], leaf: [Pin])] = [:]
        func add(_ entries: [String], _ keyPath: WritableKeyPath<(any: [Pin], ca: [Pin], leaf: [Pin]), [Pin]>) throws {
            for entry in entries {
                guard let separator = entry.firstIndex(of: "=") else {
                    throw ValidationError("'\(entry.prefix(60))' is not PATTERN=PIN,PIN")
                }
                let pattern = try HostPattern(String(entry[..<separator]))
                let pins = try entry[entry.index(after: separator)...].split(separator: ",").map {
                    try Pin(String($0))
                }
                groups[pattern, default: ([], [], [])][keyPath: keyPath] += pins
            }
        }
        try add(self.pins, \.any)
        try add(self.caPins, \.ca)
        try add(self.leafPins, \.leaf)
        for url in self.fromURL {
            let (output, trusted) = try await PinsShow.served(url, ca: self.ca)
            guard trusted else {
                throw PinsCommandFailure("\(url): \(output.verdict ?? "not trusted"); its pins are not signed")
            }
            guard let host = URL(string: url)?.host else { throw PinsCommandFailure("\(url): not a URL") }
            let authorities = try output.certificates.dropFirst().map { try Pin($0.pin) }
            groups[try HostPattern(host), default: ([], [], [])].ca += authorities
        }
        var entries: [HostPattern: PinSetUpdate.Entry] = [:]
        for (pattern, group) in groups {
            if !group.any.isEmpty, !(group.ca.isEmpty && group.leaf.isEmpty) {
                throw ValidationError("\(pattern): give --pins, or --ca-pins/--leaf-pins, not both")
            }
            entries[pattern] =
                group.any.isEmpty
                ? .pinned(try PinSet(certificateAuthorityPins: group.ca, leafPins: group.leaf))
                : .pinned(try PinSet(pins: group.any))
        }
        for text in self.unpin {
            let pattern = try HostPattern(text)
            guard entries[pattern] == nil else { throw ValidationError("\(pattern) is both pinned and unpinned") }
            entries[pattern] = .unpinned
        }
        let now = Date()
        return try PinSetUpdate(
            audience: self.audience ?? "",
            version: self.version ?? 1,
            issuedAt: now,
            notAfter: now.addingTimeInterval(self.validDays * 86_400),
            entries: entries
        )
    }
}

/// `securenet pins verify`: checks a signed update as an app would, and shows what it changes.
struct PinsVerify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a signed pin-set update against public keys, and print what it would change for each host.",
        discussion: """
            Runs the checks an app runs (size, signature by one of the --key keys, the document's \
            format, its audience against --audience, validity at --at or now, rollback against --applied-version, no pinned pattern \
            dropped without an unpin) against the pins of --policy (a JSON policy file's \
            pinnedDomains; none without it). Exit status: 0 verified, 1 refused (the reason's code \
            is printed), 64 a usage error.
            """
    )

    @Argument(help: "The signed update (JSON), as published.")
    var signed: String

    @Option(help: "A trusted public key (PEM PUBLIC KEY); repeat for several.")
    var key: [String] = []

    @Option(help: "The app's audience, as its PinUpdateVerifier names it (e.g. com.example.app/production).")
    var audience: String

    @Option(help: "The app's JSON policy file, whose pinnedDomains are the compiled-in pins.")
    var policy: String?

    @Option(name: .customLong("applied-version"), help: "The version the app has applied (rollback check).")
    var appliedVersion: UInt64?

    @Option(help: "Judge the validity at this RFC 3339 instant (2027-01-01T00:00:00Z) instead of now.")
    var at: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func validate() throws {
        guard !self.key.isEmpty else { throw ValidationError("give at least one --key") }
        if let at, InternetDateTime.parse(at) == nil {
            throw ValidationError("--at is an RFC 3339 instant such as 2027-01-01T00:00:00Z")
        }
    }

    struct Output: Encodable {
        struct Change: Encodable {
            let pattern: String
            let before: String
            let after: String
        }
        let verified: Bool
        let audience: String?
        let version: UInt64?
        let issuedAt: Date?
        let notAfter: Date?
        let keyID: String?
        let changes: [Change]
        let refusal: String?
        let code: String?
    }

    func run() throws {
        let keys = try self.key.map { try PinUpdateKey(pemEncoded: try readText($0, what: "the public key")) }
        let compiled: PinningPolicy
        if let policy {
            compiled = try TransportSecurityPolicy(contentsOfFile: policy).pinning
        } else {
            compiled = .none
        }
        let envelope = try readBytes(self.signed, what: "the signed update")
        let now = self.at.flatMap { InternetDateTime.parse($0) } ?? Date()
        let output: Output
        do {
            let update = try PinUpdateVerifier(trustedKeys: keys, audience: self.audience).verify(
                envelope,
                current: compiled,
                compiled: compiled,
                appliedVersion: self.appliedVersion,
                now: now
            )
            let signer = (try? SignedPinSetUpdate(envelope: envelope))?.keyID.description
            let after = compiled.applying(update)
            let changes = update.entries.keys.sorted { $0.description < $1.description }.map { pattern in
                Output.Change(
                    pattern: pattern.description,
                    before: compiled.rules[pattern].map(Self.describe) ?? "not pinned",
                    after: after.rules[pattern].map(Self.describe) ?? "not pinned (unpinned by this update)"
                )
            }
            output = Output(
                verified: true,
                audience: update.audience,
                version: update.version,
                issuedAt: update.issuedAt,
                notAfter: update.notAfter,
                keyID: signer,
                changes: changes,
                refusal: nil,
                code: nil
            )
        } catch {
            output = Output(
                verified: false,
                audience: nil,
                version: nil,
                issuedAt: nil,
                notAfter: nil,
                keyID: nil,
                changes: [],
                refusal: error.message,
                code: error.code.description
            )
        }
        if self.json {
            try printJSON(output)
        } else if output.verified {
            let formatter = ISO8601DateFormatter()
            print("verified: version \(output.version ?? 0), signed by key \(output.keyID ?? "?")")
            print("  audience: \(OutsideText.quoted(output.audience ?? ""))")
            print(
                "  valid:  \(output.issuedAt.map(formatter.string) ?? "?") … \(output.notAfter.map(formatter.string) ?? "?")"
            )
            for change in output.changes {
                print("  \(change.pattern):")
                print("    now:   \(change.before)")
                print("    after: \(change.after)")
            }
        } else {
            var standardError = StandardError()
            print("securenet: refused: \(output.code ?? ""): \(output.refusal ?? "")", to: &standardError)
        }
        if !output.verified { throw ExitCode(1) }
    }

    /// What `update` says, as `pins sign` prints it before signing (the document as parsed,
    /// which is what an app applies): its audience, version and validity, then each pattern's
    /// pins or its unpin.
    static func summary(of update: PinSetUpdate) -> [String] {
        let formatter = ISO8601DateFormatter()
        var lines = [
            "signing: audience \(OutsideText.quoted(update.audience)), version \(update.version), "
                + "valid \(formatter.string(from: update.issuedAt)) … \(formatter.string(from: update.notAfter))"
        ]
        for (pattern, entry) in update.entries.sorted(by: { $0.key.description < $1.key.description }) {
            switch entry {
            case .pinned(let set): lines.append("  \(pattern): \(Self.describe(set))")
            case .unpinned: lines.append("  \(pattern): unpinned")
            }
        }
        return lines
    }

    /// `ca-pins [sha256/…, sha256/…], expires …, report-only`.
    static func describe(_ set: PinSet) -> String {
        var parts = set.groups.map { group in
            let name = group.scope == .leaf ? "leaf-pins" : group.scope == .certificateAuthority ? "ca-pins" : "pins"
            return "\(name) [\(group.pins.map(\.description).joined(separator: ", "))]"
        }
        if let expiration = set.expiration {
            parts.append("expires \(ISO8601DateFormatter().string(from: expiration))")
        }
        if set.mode == .reportOnly { parts.append("report-only") }
        return parts.joined(separator: ", ")
    }
}

/// A failure of a pins subcommand, printed as `securenet: message` with exit status 1.
struct PinsCommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func readText(_ path: String, what: String) throws -> String {
    String(decoding: try readBytes(path, what: what), as: UTF8.self)
}

/// The most bytes read from a key, a document or a signed update (each a few kilobytes).
let maximumPinsInputSize = 1 << 20

/// The contents of the regular file `path` (``RegularFileReader``): a FIFO or a device such as
/// `/dev/zero` is refused before a byte is read, and nothing is read past 1 MiB.
func readBytes(_ path: String, what: String) throws -> Data {
    do {
        return try RegularFileReader.read(path, limit: maximumPinsInputSize)
    } catch {
        throw PinsCommandFailure("cannot read \(what) \(OutsideText.quoted(path)): \(error.reason)")
    }
}
#endif
