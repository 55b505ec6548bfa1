import Crypto
public import Foundation
public import ServerTrust
import SwiftASN1
public import X509

extension TestPKI {
    /// A Certificate Transparency log run by the tests: a P-256 key that signs SCTs as an
    /// RFC 6962 log does, with the description, operator and state it has in a log list.
    public struct CTLog: Sendable {
        /// The log's signing key.
        let key: P256.Signing.PrivateKey
        /// The log's description in the list.
        public var description: String
        /// The log's operator in the list.
        public var operatorName: String
        /// The log's state in the list.
        public var state: CertificateTransparencyLog.State?
        /// The certificate expiry range a sharded log accepts.
        public var temporalInterval: Range<Date>?
        /// Whether the list has it under `logs` (RFC 6962) rather than `tiled_logs`.
        public var isRFC6962 = true
        /// Earlier operators of the log.
        public var previousOperators: [CertificateTransparencyLog.PreviousOperator] = []

        /// A new log; by default usable since a year before the reference time.
        public init(
            description: String,
            operatorName: String,
            state: CertificateTransparencyLog.State? = .init(
                .usable,
                since: TestPKI.referenceTime.addingTimeInterval(-365 * 86_400)
            )
        ) {
            self.key = P256.Signing.PrivateKey()
            self.description = description
            self.operatorName = operatorName
            self.state = state
        }

        /// The same log (same key) in another state.
        public func with(state: CertificateTransparencyLog.State?) -> CTLog {
            var copy = self
            copy.state = state
            return copy
        }

        /// The same log (same key) changed by `change`.
        public func with(_ change: (inout CTLog) -> Void) -> CTLog {
            var copy = self
            change(&copy)
            return copy
        }

        /// The log as a log list has it.
        public var entry: CertificateTransparencyLog {
            CertificateTransparencyLog(
                key: Array(self.key.publicKey.derRepresentation),
                description: self.description,
                operatorName: self.operatorName,
                url: "https://ct.example/\(self.description.lowercased().replacingOccurrences(of: " ", with: "-"))/",
                state: self.state,
                temporalInterval: self.temporalInterval,
                isRFC6962: self.isRFC6962,
                previousOperators: self.previousOperators
            )
        }

        /// An SCT over a precertificate (RFC 6962 §3.2, precert_entry).
        public func sign(
            precertificateTBS: [UInt8],
            issuerKeyHash: [UInt8],
            at time: Date
        ) throws -> SignedCertificateTimestamp {
            let timestamp = UInt64(time.timeIntervalSince1970 * 1000)
            let data = SignedCertificateTimestamp.signedData(
                timestamp: timestamp,
                extensions: [],
                issuerKeyHash: issuerKeyHash,
                precertificateTBS: precertificateTBS
            )
            return self.sct(timestamp: timestamp, signature: try self.key.signature(for: data), origin: .embedded)
        }

        /// An SCT over a certificate (x509_entry), as a server delivers in the TLS extension.
        public func sign(
            certificate: Certificate,
            at time: Date,
            origin: SignedCertificateTimestamp.Origin = .tlsExtension
        ) throws -> SignedCertificateTimestamp {
            let timestamp = UInt64(time.timeIntervalSince1970 * 1000)
            let data = SignedCertificateTimestamp.signedData(
                timestamp: timestamp,
                extensions: [],
                certificateDER: Identity.der(certificate)
            )
            return self.sct(timestamp: timestamp, signature: try self.key.signature(for: data), origin: origin)
        }

        private func sct(
            timestamp: UInt64,
            signature: P256.Signing.ECDSASignature,
            origin: SignedCertificateTimestamp.Origin
        ) -> SignedCertificateTimestamp {
            SignedCertificateTimestamp(
                logID: self.entry.logID,
                timestamp: timestamp,
                hashAlgorithm: 4,
                signatureAlgorithm: 3,
                signature: Array(signature.derRepresentation),
                origin: origin
            )
        }
    }

    /// One SCT to embed: which log signs, when, and whether it signs the wrong certificate.
    public struct SCTSpec: Sendable {
        /// The signing log.
        public var log: CTLog
        /// The SCT's time; default an hour before the reference time.
        public var time: Date
        /// Sign a TBSCertificate other than the precertificate's (a different serial number): the
        /// SCT is well formed but does not verify.
        public var signsWrongTBS: Bool

        /// An SCT by `log`.
        public init(
            _ log: CTLog,
            time: Date = TestPKI.referenceTime.addingTimeInterval(-3600),
            signsWrongTBS: Bool = false
        ) {
            self.log = log
            self.time = time
            self.signsWrongTBS = signsWrongTBS
        }
    }

    /// A leaf with embedded SCTs, made as a CA and logs make one (RFC 6962 §3.1): the CA issues a
    /// precertificate (the leaf with the critical poison extension), each log signs an SCT over
    /// the precertificate's TBSCertificate (poison removed) and the issuer's key hash, and the CA
    /// issues the final certificate: the same TBSCertificate with the SCT list extension in
    /// place of the poison.
    ///
    /// - Returns: the chain of the final certificate, and the precertificate.
    public func leafWithSCTs(
        _ options: LeafOptions = LeafOptions(),
        scts: [SCTSpec]
    ) throws -> (chain: Chain, precertificate: Certificate) {
        var base = options
        base.key = .existing(try options.key.make())
        base.serialNumberBytes = options.serialNumberBytes ?? Array(Self.randomSerialNumber().bytes)
        guard let issuer = base.issuer.pick(self).identity else {
            throw CocoaError(
                .featureUnsupported,
                userInfo: [NSLocalizedDescriptionKey: "a self-signed leaf has no issuer key hash"]
            )
        }
        var serializer = DER.Serializer()
        try serializer.serialize(issuer.certificate.publicKey)
        let issuerKeyHash = Array(SHA256.hash(data: serializer.serializedBytes))

        var pre = base
        pre.extraExtensions.append(
            Certificate.Extension(oid: SignedCertificateTimestamp.poisonExtension, critical: true, value: [0x05, 0x00])
        )
        let precertificate = try self.leaf(pre).leaf
        // The precertificate's TBSCertificate with the poison removed is the certificate's TBS
        // without the SCT list: what the logs sign.
        let tbs = Array(try self.leaf(base).leaf.tbsCertificateBytes)
        var other = base
        other.serialNumberBytes = Array(Self.randomSerialNumber().bytes)
        let wrongTBS = Array(try self.leaf(other).leaf.tbsCertificateBytes)

        let signed = try scts.map { spec in
            try spec.log.sign(
                precertificateTBS: spec.signsWrongTBS ? wrongTBS : tbs,
                issuerKeyHash: issuerKeyHash,
                at: spec.time
            )
        }
        let list = SignedCertificateTimestamp.serializeList(signed)
        var final = base
        var octets = DER.Serializer()
        try octets.serialize(ASN1OctetString(contentBytes: ArraySlice(list)))
        final.extraExtensions.append(
            Certificate.Extension(
                oid: SignedCertificateTimestamp.embeddedListExtension,
                critical: false,
                value: ArraySlice(octets.serializedBytes)
            )
        )
        return (try self.leaf(final), precertificate)
    }

    /// A v3 log list (the JSON format Chrome and Apple publish) naming `logs`, grouped by operator.
    public static func logListJSON(
        _ logs: [CTLog],
        timestamp: Date = TestPKI.referenceTime.addingTimeInterval(-86_400)
    ) -> Data {
        let formatter = ISO8601DateFormatter()
        var operators: [(name: String, logs: [[String: Any]], tiled: [[String: Any]])] = []
        for log in logs {
            let entry = log.entry
            var object: [String: Any] = [
                "description": entry.description,
                "log_id": entry.logIDBase64,
                "key": Data(entry.key).base64EncodedString(),
                "mmd": 86_400,
            ]
            if log.isRFC6962 {
                object["url"] = entry.url ?? ""
            } else {
                object["submission_url"] = entry.url ?? ""
                object["monitoring_url"] = entry.url ?? ""
            }
            if let state = entry.state {
                object["state"] = [state.kind.rawValue: ["timestamp": formatter.string(from: state.since)]]
            }
            if let interval = entry.temporalInterval {
                object["temporal_interval"] = [
                    "start_inclusive": formatter.string(from: interval.lowerBound),
                    "end_exclusive": formatter.string(from: interval.upperBound),
                ]
            }
            if !entry.previousOperators.isEmpty {
                object["previous_operators"] = entry.previousOperators.map {
                    ["name": $0.name, "end_time": formatter.string(from: $0.endTime)]
                }
            }
            let index: Int
            if let found = operators.firstIndex(where: { $0.name == log.operatorName }) {
                index = found
            } else {
                operators.append((log.operatorName, [], []))
                index = operators.count - 1
            }
            if log.isRFC6962 { operators[index].logs.append(object) } else { operators[index].tiled.append(object) }
        }
        let root: [String: Any] = [
            "version": "1.0",
            "log_list_timestamp": formatter.string(from: timestamp),
            "operators": operators.map {
                ["name": $0.name, "email": ["ct@example.com"], "logs": $0.logs, "tiled_logs": $0.tiled]
            },
        ]
        // Only strings, numbers, arrays and dictionaries: serialisation cannot fail.
        return (try? JSONSerialization.data(withJSONObject: root, options: [.sortedKeys, .prettyPrinted])) ?? Data()
    }

    /// The log list of `logs`, read back from its JSON (so tests exercise the parser too).
    public static func logList(
        _ logs: [CTLog],
        timestamp: Date = TestPKI.referenceTime.addingTimeInterval(-86_400)
    ) throws -> CertificateTransparencyLogList {
        try CertificateTransparencyLogList(json: Self.logListJSON(logs, timestamp: timestamp))
    }
}
