import Foundation
import ServerTrust
import SwiftASN1
import Testing
import X509

/// Issue §2, a compatibility corpus: real chains that real public sites served, each evaluated for
/// its host at a time when it was valid, against the system roots (Debian's `ca-certificates`,
/// `/etc/ssl/certs/ca-certificates.crt`) under the default Web PKI rules.
///
/// The chains and their sources (repository, path, commit) are in `Fixtures/RealChains`;
/// `Scripts/build-real-chain-corpus.py` regenerates them. A chain whose issuing root is not in the
/// bundle is skipped and counted (roots leave the bundle when distrusted or expired). Every other
/// chain must be accepted, unless it is listed in ``expectedRefusals`` with the rule that refuses it,
/// and that rule must have a security effect: a refusal a browser would not make is a bug.
@Suite("Compatibility: real chains served by public sites")
struct RealChainCorpusTests {
    struct Source: Decodable {
        let repository: String
        let path: String
        let commit: String
    }

    struct Entry: Decodable {
        let id: String
        let host: String
        let file: String
        let validationTimeUnix: Int
        let source: Source
        let note: String
        let aliasOf: String?
    }

    struct Manifest: Decodable {
        let chains: Int
        let entries: [Entry]
    }

    /// A refusal the corpus expects: the codes it may carry (when a chain breaks more than one
    /// rule, which is reported first is not the corpus's concern) and the rule that makes it.
    struct ExpectedRefusal {
        let codes: Set<ServerTrustError.Code>
        let rule: String
    }

    /// Chains refused for a reason a client must act on (a SHA-1 signature, an RSA-1024 key, an
    /// expired intermediate that path building cannot avoid), by manifest id.
    ///
    /// A refusal not listed here fails the test, and so does a listed chain that is accepted.
    static let expectedRefusals: [String: ExpectedRefusal] = [
        // mega.co.nz, 2012 (Go's crypto/x509 verify tests): the intermediate "EssentialSSL CA"
        // lists only the Server-Gated-Crypto purposes (Microsoft and Netscape SGC) in its
        // extended key usage, not serverAuth: its issuer did not authorise it to issue TLS server
        // certificates, and no current root program or browser reads SGC as serverAuth. The leaf
        // and the intermediate are also signed with SHA-1, which refuses the chain on its own.
        "mega.co.nz-20121214-0f0c4b08": ExpectedRefusal(
            codes: [.serverAuthNotPermitted, .weakSignatureAlgorithm],
            rule: "intermediate EKU without serverAuth (SGC only); SHA-1 signatures"
        ),
        // secure.iddl.vt.edu, 2013 (Go's crypto/x509 verify tests): signed with SHA-1. Its
        // intermediate "Virginia Tech Global Qualified Server CA" carries name constraints that
        // are not critical, which the Web PKI profile accepts (and enforces; the leaf satisfies
        // them), so the refusal is the SHA-1 signature, a rule with a security effect.
        "secure.iddl.vt.edu-20130919-eefc3917": ExpectedRefusal(
            codes: [.weakSignatureAlgorithm],
            rule: "SHA-1 signatures"
        ),
    ]

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/RealChains")

    /// The default limits, but for the wall-clock budget: two seconds is a bound on what a server
    /// can make a handshake cost, and a test machine running other suites at once can stretch an
    /// evaluation of a few milliseconds past it. The rules are the defaults.
    static let configuration: ServerTrust.Configuration = {
        var configuration = ServerTrust.Configuration()
        configuration.validationTimeBudget = .seconds(60)
        return configuration
    }()

    static func manifest() throws -> Manifest {
        let data = try Data(contentsOf: directory.appendingPathComponent("manifest.json"))
        return try JSONDecoder().decode(Manifest.self, from: data)
    }

    /// The roots of the system bundle, as `TrustAnchors.system` reads them on Linux.
    static func bundleRoots() throws -> [Certificate] {
        let text = try String(contentsOfFile: "/etc/ssl/certs/ca-certificates.crt", encoding: .utf8)
        return try PEMDocument.parseMultiple(pemString: text).compactMap { try? Certificate(derEncoded: $0.derBytes) }
    }

    /// Whether a root of the bundle issues a certificate of the chain, or is one: the subject names
    /// the issuer and, where both carry them, the key identifiers agree.
    static func rootIsInBundle(_ chain: [Certificate], roots: [Certificate]) -> Bool {
        chain.contains { certificate in
            roots.contains { root in
                if root == certificate { return true }
                guard root.subject == certificate.issuer else { return false }
                guard
                    let authority = try? certificate.extensions.authorityKeyIdentifier?.keyIdentifier,
                    let subject = try? root.extensions.subjectKeyIdentifier?.keyIdentifier
                else { return true }
                return authority == subject
            }
        }
    }

    @Test func theCorpusHasAtLeast200ChainsWithTheirSources() throws {
        let manifest = try Self.manifest()
        let files = Set(manifest.entries.map(\.file))
        #expect(files.count == manifest.chains)
        #expect(files.count >= 200)
        let ids = manifest.entries.map(\.id)
        #expect(Set(ids).count == ids.count)
        for entry in manifest.entries {
            #expect(!entry.source.repository.isEmpty && !entry.source.path.isEmpty, "\(entry.id)")
            #expect(entry.source.commit.count == 40, "\(entry.id)")
        }
        // Every expected refusal names a chain of the corpus.
        for id in Self.expectedRefusals.keys { #expect(ids.contains(id), "\(id) is not in the manifest") }
    }

    @Test func everyRealChainWhoseRootIsInTheBundleIsAccepted() async throws {
        let manifest = try Self.manifest()
        let roots = try Self.bundleRoots()
        #expect(roots.count > 100)
        var skipped: [String] = []
        var accepted = 0
        var refusedAsExpected: [String] = []
        var unexpected: [String] = []
        for entry in manifest.entries {
            let text = try String(contentsOf: Self.directory.appendingPathComponent(entry.file), encoding: .utf8)
            let der = try PEMDocument.parseMultiple(pemString: text).map(\.derBytes)
            let chain = try der.map { try Certificate(derEncoded: $0) }
            guard Self.rootIsInBundle(chain, roots: roots) else {
                skipped.append(entry.id)
                continue
            }
            let decision = await ServerTrust(configuration: Self.configuration).evaluate(
                presentedChain: der,
                requirements: ConnectionRequirements(host: entry.host),
                now: Date(timeIntervalSince1970: TimeInterval(entry.validationTimeUnix))
            )
            let expected = Self.expectedRefusals[entry.id]
            switch (decision.failure, expected) {
            case (nil, nil):
                accepted += 1
            case (nil, .some(let expected)):
                unexpected.append("\(entry.id) (\(entry.host)): accepted, expected a refusal: \(expected.rule)")
            case (.some(let failure), .some(let expected)) where expected.codes.contains(failure.code):
                refusedAsExpected.append(entry.id)
            case (.some(let failure), _):
                unexpected.append("\(entry.id) (\(entry.host), \(entry.source.repository)): \(failure)")
            }
        }
        let evaluated = manifest.entries.count - skipped.count
        print(
            "Real chains: \(manifest.chains) chains, \(manifest.entries.count) entries; \(evaluated) evaluated, "
                + "\(skipped.count) skipped (root not in bundle), \(accepted) accepted, "
                + "\(refusedAsExpected.count) refused as expected, \(unexpected.count) unexpected"
        )
        for line in unexpected { print("  unexpected: \(line)") }
        #expect(evaluated >= 200, "too few chains lead to a root of the bundle: \(skipped.prefix(10))")
        #expect(unexpected.isEmpty, "\(unexpected.count) unexpected outcomes, first: \(unexpected.prefix(5))")
    }
}
