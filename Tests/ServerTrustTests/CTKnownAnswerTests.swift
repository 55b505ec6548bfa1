import Crypto
import Foundation
import ServerTrust
import Testing
import X509

/// Real public certificates with embedded SCTs, verified with the real keys of the logs that
/// signed them (see `CTKnownAnswerFixture.swift` for every source).
@Suite("CT known answers")
struct CTKnownAnswerTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let leafPEM: String
        let issuerPEM: String
        let issuerKeyHashBase64: String
        let scts: [CTKnownAnswerSCT]
        var testDescription: String { self.name }
    }

    static let cases = [
        Case(
            name: "cryptography.io (Icarus, Mammoth)",
            leafPEM: CTKnownAnswer.cryptographyIOLeafPEM,
            issuerPEM: CTKnownAnswer.cryptographyIOIssuerPEM,
            issuerKeyHashBase64: CTKnownAnswer.cryptographyIOIssuerKeyHashBase64,
            scts: CTKnownAnswer.cryptographyIOSCTs
        ),
        Case(
            name: "www.google.com (Nimbus2023, Argon2023)",
            leafPEM: CTKnownAnswer.googleComLeafPEM,
            issuerPEM: CTKnownAnswer.googleComIssuerPEM,
            issuerKeyHashBase64: CTKnownAnswer.googleComIssuerKeyHashBase64,
            scts: CTKnownAnswer.googleComSCTs
        ),
        Case(
            name: "*.facebook.com (Pilot, Venafi RSA, DigiCert, Rocketeer)",
            leafPEM: CTKnownAnswer.facebookComLeafPEM,
            issuerPEM: CTKnownAnswer.facebookComIssuerPEM,
            issuerKeyHashBase64: CTKnownAnswer.facebookComIssuerKeyHashBase64,
            scts: CTKnownAnswer.facebookComSCTs
        ),
        Case(
            name: "signalwire.com (Nimbus2022, Xenon2022)",
            leafPEM: CTKnownAnswer.signalwireComLeafPEM,
            issuerPEM: CTKnownAnswer.signalwireComIssuerPEM,
            issuerKeyHashBase64: CTKnownAnswer.signalwireComIssuerKeyHashBase64,
            scts: CTKnownAnswer.signalwireComSCTs
        ),
    ]

    /// The fixture logs, every one Usable since 2010 (their real states today do not matter to
    /// whether a signature verifies).
    static func logList() throws -> CertificateTransparencyLogList {
        let since = Date(timeIntervalSince1970: 1_262_304_000)
        let logs = CTKnownAnswer.logs.map { log in
            CertificateTransparencyLog(
                key: Array(Data(base64Encoded: log.keyBase64)!),
                description: log.description,
                operatorName: log.operatorName,
                state: .init(.usable, since: since)
            )
        }
        return try CertificateTransparencyLogList(timestamp: Date(timeIntervalSince1970: 1_262_304_000), logs: logs)
    }

    /// A day after the leaf's notBefore, with a list a day old: fresh, and every SCT in the past.
    static func verifier(
        policy: CertificateTransparencyPolicy = .chrome,
        for leaf: Certificate
    ) throws -> (CertificateTransparencyVerifier, Date) {
        let now = leaf.notValidBefore.addingTimeInterval(86_400)
        let list = try Self.logList()
        let fresh = try CertificateTransparencyLogList(timestamp: now.addingTimeInterval(-86_400), logs: list.logs)
        return (CertificateTransparencyVerifier(logList: fresh, policy: policy), now)
    }

    @Test func everyLogIDIsTheHashOfItsKey() {
        for log in CTKnownAnswer.logs {
            let key = Data(base64Encoded: log.keyBase64)!
            #expect(Data(SHA256.hash(data: key)).base64EncodedString() == log.logIDBase64, "\(log.description)")
        }
    }

    @Test(arguments: cases)
    func everyEmbeddedSCTVerifies(_ testCase: Case) throws {
        let leaf = try Certificate(pemEncoded: testCase.leafPEM)
        let issuer = try Certificate(pemEncoded: testCase.issuerPEM)
        let scts = try SignedCertificateTimestamp.embedded(in: leaf)
        #expect(scts.map { Data($0.logID).base64EncodedString() } == testCase.scts.map(\.logIDBase64))
        #expect(scts.map(\.timestamp) == testCase.scts.map(\.timestampMilliseconds))

        let (verifier, now) = try Self.verifier(for: leaf)
        let (report, failure) = verifier.check(leaf: leaf, issuer: issuer, now: now)
        #expect(report.scts.map(\.status) == Array(repeating: .valid, count: scts.count))
        #expect(failure == nil)
        #expect(report.result == .compliant)
        // The issuer key hash the logs signed is the SPKI pin of the issuer.
        #expect(Pin(certificate: issuer).base64 == testCase.issuerKeyHashBase64)
    }

    @Test(arguments: cases)
    func oneFlippedTBSByteBreaksEverySignature(_ testCase: Case) throws {
        let leaf = try Certificate(pemEncoded: testCase.leafPEM)
        let issuer = try Certificate(pemEncoded: testCase.issuerPEM)
        // The last byte of the serial number: still a certificate, no longer the one logged.
        var der = try leaf.serializeAsPEM().derBytes
        let serial = try #require(Self.serialNumberLastByte(der))
        der[serial] ^= 0x01
        let tampered = try Certificate(derEncoded: der)
        #expect(tampered.serialNumber != leaf.serialNumber)

        let (verifier, now) = try Self.verifier(for: tampered)
        let (report, failure) = verifier.check(leaf: tampered, issuer: issuer, now: now)
        #expect(report.scts.map(\.status) == Array(repeating: .invalidSignature, count: testCase.scts.count))
        #expect(failure?.code == .ctBadSignature)
    }

    @Test(arguments: cases)
    func anotherIssuerKeyBreaksEverySignature(_ testCase: Case) throws {
        let leaf = try Certificate(pemEncoded: testCase.leafPEM)
        // The issuer of another fixture: the right certificate, the wrong issuer key hash.
        let other = Self.cases.first { $0.issuerKeyHashBase64 != testCase.issuerKeyHashBase64 }!
        let (verifier, now) = try Self.verifier(for: leaf)
        let (report, _) = verifier.check(leaf: leaf, issuer: try Certificate(pemEncoded: other.issuerPEM), now: now)
        #expect(report.scts.map(\.status) == Array(repeating: .invalidSignature, count: testCase.scts.count))
    }

    @Test func theRSALogsSignatureVerifies() throws {
        let leaf = try Certificate(pemEncoded: CTKnownAnswer.facebookComLeafPEM)
        let scts = try SignedCertificateTimestamp.embedded(in: leaf)
        let venafi = try #require(
            scts.first { Data($0.logID).base64EncodedString() == CTKnownAnswer.venafi.logIDBase64 }
        )
        #expect(venafi.signatureAlgorithm == 1)
        #expect(venafi.hashAlgorithm == 4)
        let (verifier, now) = try Self.verifier(policy: .apple, for: leaf)
        let report = verifier.check(
            leaf: leaf,
            issuer: try Certificate(pemEncoded: CTKnownAnswer.facebookComIssuerPEM),
            now: now
        ).report
        let check = try #require(report.scts.first { $0.logID == CTKnownAnswer.venafi.logIDBase64 })
        #expect(check.status == .valid)
        #expect(check.operatorName == "Venafi")
        // 411 days: 3 SCTs from distinct logs, Google's two counted as at most 2 under Apple's policy.
        #expect(report.requiredSCTs == 3)
        #expect(report.result == .compliant)
    }

    /// The index of the last content byte of the leaf's serial number in its DER.
    static func serialNumberLastByte(_ der: [UInt8]) -> Int? {
        // Certificate SEQUENCE, TBSCertificate SEQUENCE, [0] version, INTEGER serial.
        func header(_ at: Int) -> (content: Int, length: Int)? {
            guard at + 1 < der.count else { return nil }
            let first = Int(der[at + 1])
            if first < 0x80 { return (at + 2, first) }
            let count = first & 0x7F
            var length = 0
            for index in 0..<count { length = length << 8 | Int(der[at + 2 + index]) }
            return (at + 2 + count, length)
        }
        guard let certificate = header(0), let tbs = header(certificate.content) else { return nil }
        var at = tbs.content
        if der[at] == 0xA0, let version = header(at) { at = version.content + version.length }
        guard der[at] == 0x02, let serial = header(at) else { return nil }
        return serial.content + serial.length - 1
    }
}
