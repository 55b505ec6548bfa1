import Crypto
public import Foundation
import SwiftASN1
public import X509

/// How Certificate Transparency is checked where a ``TransportSecurityPolicy`` requires it: the
/// log list, the policy (Apple's or Chrome's), and how old the list may be.
public struct CertificateTransparencySettings: Hashable, Sendable {
    /// The trusted logs. A host that requires CT with no list configured is refused when its
    /// requirements are made (``ServerTrustError/Code/ctLogListMissing``): CT fails closed when the
    /// app asked for it and gave nothing to check it with.
    public var logList: CertificateTransparencyLogList?
    /// Which CT policy decides compliance. Default ``CertificateTransparencyPolicy/apple``.
    public var policy: CertificateTransparencyPolicy
    /// The age (from its `log_list_timestamp`) at which a list stops being enforced. Default 70
    /// days, as Chrome (C9: enforced while the timestamp "is within the past 70 days"; Chromium
    /// stops at 70 whole days): with an older list, logs added since are unknown and compliant
    /// certificates would be refused, so CT is then *not enforced* and the report says so.
    public var maximumLogListAge: TimeInterval

    /// The default age limit: 70 days.
    public static let defaultMaximumLogListAge: TimeInterval = 70 * 86_400

    /// Creates settings.
    public init(
        logList: CertificateTransparencyLogList? = nil,
        policy: CertificateTransparencyPolicy = .apple,
        maximumLogListAge: TimeInterval = Self.defaultMaximumLogListAge
    ) {
        self.logList = logList
        self.policy = policy
        self.maximumLogListAge = maximumLogListAge
    }

    /// When the list stops being fresh enough to enforce CT.
    public var logListExpiry: Date? { self.logList.map { $0.timestamp.addingTimeInterval(self.maximumLogListAge) } }
}

/// What was found about one SCT.
public struct SCTCheck: Hashable, Sendable, Codable {
    /// The outcome for one SCT.
    public enum Status: String, Hashable, Sendable, Codable {
        /// The signature verifies with a listed log's key.
        case valid
        /// The log is not in the list.
        case unknownLog
        /// The signature does not verify with the log's key (or uses an algorithm RFC 6962 does not allow).
        case invalidSignature
        /// The SCT's time is after the time of the check.
        case fromTheFuture
    }

    /// The log ID, base64.
    public let logID: String
    /// The log's description, when it is listed.
    public let logDescription: String?
    /// The log's operator when the SCT was issued, when the log is listed.
    public let operatorName: String?
    /// The log's state at the time of the check, when it is listed and has one.
    public let logState: CertificateTransparencyLog.State.Kind?
    /// When the SCT was issued.
    public let timestamp: Date
    /// Where the SCT came from.
    public let origin: SignedCertificateTimestamp.Origin
    /// Whether it verified.
    public let status: Status
    /// Whether it counts towards the policy (valid, and its log's state lets it count on the path
    /// it came by). Two SCTs from one log count once.
    public let counts: Bool
}

/// What CT found for a certificate, in the manner of ``PinValidationReport``: kept with the
/// ``TrustDecision`` and printed by `securenet ct`.
public struct CertificateTransparencyReport: Hashable, Sendable, Codable {
    /// How the check ended.
    public enum Result: String, Hashable, Sendable, Codable {
        /// The certificate complies with the policy.
        case compliant
        /// It does not: the connection was refused (see ``CertificateTransparencyReport/failureCode``).
        case notCompliant
        /// The log list is older than allowed: CT was not enforced and the connection went on.
        case notEnforcedStaleLogList
    }

    /// The host connected to (empty when a certificate was checked on its own).
    public let host: String
    /// The policy applied.
    public let policy: CertificateTransparencyPolicy
    /// The outcome.
    public let result: Result
    /// Why the certificate does not comply (nil when it does), as a ``ServerTrustError`` code's text.
    public let failureCode: String?
    /// A sentence for people.
    public let summary: String
    /// How many valid SCTs from distinct logs the policy required.
    public let requiredSCTs: Int
    /// Every SCT seen, in order: embedded first, then delivered ones.
    public let scts: [SCTCheck]
    /// The log list's timestamp.
    public let logListTimestamp: Date
    /// When the check ran.
    public let date: Date
}

/// Checks a validated chain's SCTs against a log list and a CT policy.
public struct CertificateTransparencyVerifier: Sendable {
    /// The settings (the list must be set).
    public let logList: CertificateTransparencyLogList
    /// The policy.
    public let policy: CertificateTransparencyPolicy
    /// The list's age limit.
    public let maximumLogListAge: TimeInterval

    /// Creates a verifier.
    public init(
        logList: CertificateTransparencyLogList,
        policy: CertificateTransparencyPolicy,
        maximumLogListAge: TimeInterval = CertificateTransparencySettings.defaultMaximumLogListAge
    ) {
        self.logList = logList
        self.policy = policy
        self.maximumLogListAge = maximumLogListAge
    }

    /// Checks `leaf`, whose *validated* issuer is `issuer` (the issuer's key is part of what the
    /// log signed for an embedded SCT), with `delivered` SCTs from the TLS extension or an OCSP
    /// response, at `now`.
    ///
    /// The report's result is ``CertificateTransparencyReport/Result/notCompliant`` with a failure
    /// code (in this order): ``ServerTrustError/Code/ctMalformedSCT`` (the embedded list cannot be
    /// read), ``ServerTrustError/Code/ctNoSCTs``, then — when too few SCTs count — the most
    /// specific reason: ``ServerTrustError/Code/ctBadSignature`` if an SCT of a listed log does
    /// not verify, ``ServerTrustError/Code/ctUnknownLog`` if an SCT names a log not in the list,
    /// ``ServerTrustError/Code/ctLogNotUsable`` if a valid SCT's log state does not let it count,
    /// else ``ServerTrustError/Code/ctTooFewSCTs`` (too few for the lifetime, or from too few
    /// operators).
    public func check(
        leaf: Certificate,
        issuer: Certificate?,
        delivered: [SignedCertificateTimestamp] = [],
        host: String = "",
        now: Date = Date()
    ) -> (report: CertificateTransparencyReport, failure: ServerTrustError?) {
        if self.isLogListStale(at: now) {
            let days = Int(now.timeIntervalSince(self.logList.timestamp) / 86_400)
            let report = self.report(
                host: host,
                result: .notEnforcedStaleLogList,
                failure: .ctLogListStale,
                summary:
                    "the CT log list is \(days) days old (limit \(Int(self.maximumLogListAge / 86_400))): CT not enforced",
                required: 0,
                checks: [],
                now: now
            )
            return (report, nil)
        }
        return self.diagnose(leaf: leaf, issuer: issuer, delivered: delivered, host: host, now: now)
    }

    /// Whether the list is too old to enforce CT at `now` (its age is at least
    /// ``maximumLogListAge``): ``check(leaf:issuer:delivered:host:now:)`` then reports
    /// ``CertificateTransparencyReport/Result/notEnforcedStaleLogList`` without checking.
    public func isLogListStale(at now: Date) -> Bool {
        now.timeIntervalSince(self.logList.timestamp) >= self.maximumLogListAge
    }

    /// Checks the SCTs as ``check(leaf:issuer:delivered:host:now:)`` does, whatever the list's
    /// age: every SCT of a listed log is verified and the policy applied. For diagnosis only
    /// (`securenet ct` with a stale list); a connection's decision comes from `check`, which
    /// does not enforce a stale list (``isLogListStale(at:)``).
    public func diagnose(
        leaf: Certificate,
        issuer: Certificate?,
        delivered: [SignedCertificateTimestamp] = [],
        host: String = "",
        now: Date = Date()
    ) -> (report: CertificateTransparencyReport, failure: ServerTrustError?) {
        var timestamps: [SignedCertificateTimestamp]
        do {
            timestamps = try SignedCertificateTimestamp.embedded(in: leaf)
        } catch {
            return self.refuse(host: host, error, required: 0, checks: [], now: now)
        }
        timestamps += delivered
        let lifetime = leaf.notValidAfter.timeIntervalSince(leaf.notValidBefore)
        let required = self.policy.requiredEmbeddedSCTs(lifetime: lifetime)
        guard !timestamps.isEmpty else {
            return self.refuse(
                host: host,
                ServerTrustError(
                    .ctNoSCTs,
                    "\(host.isEmpty ? "the certificate" : host) presented no signed certificate timestamps"
                ),
                required: required,
                checks: [],
                now: now
            )
        }

        var leafDER: [UInt8]?
        var precertificateTBS: [UInt8]?
        // SHA-256 of the issuer's SubjectPublicKeyInfo as encoded in its certificate (reading
        // the bytes is cheaper than re-encoding the parsed key).
        let issuerKeyHash = issuer.map { issuer in
            Array(
                SHA256.hash(
                    data: (try? DERWalker.subjectPublicKeyInfo(ofTBS: issuer.tbsCertificateBytes))
                        ?? ArraySlice(DERBytes.of(issuer.publicKey))
                )
            )
        }
        var statuses: [SCTCheck.Status] = []
        var logs: [CertificateTransparencyLog?] = []
        var verified: [CertificateTransparencyPolicy.Verified] = []
        for (index, sct) in timestamps.enumerated() {
            let log = self.logList.log(id: sct.logID)
            let status: SCTCheck.Status
            if sct.date > now {
                status = .fromTheFuture
            } else if log == nil {
                status = .unknownLog
            } else {
                let data: [UInt8]?
                if sct.origin == .embedded {
                    if precertificateTBS == nil {
                        precertificateTBS = try? SignedCertificateTimestamp.precertificateTBS(of: leaf)
                    }
                    if let tbs = precertificateTBS, let issuerKeyHash {
                        data = SignedCertificateTimestamp.signedData(
                            timestamp: sct.timestamp,
                            extensions: sct.extensions,
                            issuerKeyHash: issuerKeyHash,
                            precertificateTBS: tbs
                        )
                    } else {
                        data = nil
                    }
                } else {
                    if leafDER == nil { leafDER = DERBytes.of(leaf) }
                    data = SignedCertificateTimestamp.signedData(
                        timestamp: sct.timestamp,
                        extensions: sct.extensions,
                        certificateDER: leafDER ?? []
                    )
                }
                let valid =
                    data.flatMap {
                        self.logList.verify(
                            logID: sct.logID,
                            hashAlgorithm: sct.hashAlgorithm,
                            signatureAlgorithm: sct.signatureAlgorithm,
                            signature: sct.signature,
                            data: $0
                        )
                    } ?? false
                status = valid ? .valid : .invalidSignature
            }
            statuses.append(status)
            logs.append(log)
            if status == .valid, let log { verified.append(.init(index: index, sct: sct, log: log)) }
        }
        let outcome = self.policy.evaluate(
            verified,
            notBefore: leaf.notValidBefore,
            notAfter: leaf.notValidAfter,
            now: now
        )
        let checks = timestamps.indices.map { index in
            let (sct, status, log) = (timestamps[index], statuses[index], logs[index])
            return SCTCheck(
                logID: Data(sct.logID).base64EncodedString(),
                logDescription: log?.description,
                operatorName: log?.operatorName(at: sct.date),
                logState: log?.state?.kind,
                timestamp: sct.date,
                origin: sct.origin,
                status: status,
                counts: outcome.counting.contains(index)
            )
        }

        if let shortfall = outcome.shortfall {
            let reason: ServerTrustError
            let subject = host.isEmpty ? "the certificate" : host
            if checks.contains(where: { $0.status == .invalidSignature }) {
                reason = ServerTrustError(
                    .ctBadSignature,
                    "\(subject): an SCT's signature does not verify with its log's key (\(shortfall))"
                )
            } else if checks.contains(where: { $0.status == .unknownLog }) {
                reason = ServerTrustError(
                    .ctUnknownLog,
                    "\(subject): an SCT names a log that is not in the log list (\(shortfall))"
                )
            } else if checks.contains(where: { check in
                check.status == .valid && !check.counts && !checks.contains { $0.counts && $0.logID == check.logID }
            }) {
                reason = ServerTrustError(
                    .ctLogNotUsable,
                    "\(subject): an SCT's log is not usable under the \(self.policy) CT policy (\(shortfall))"
                )
            } else {
                reason = ServerTrustError(.ctTooFewSCTs, "\(subject): \(shortfall)")
            }
            return self.refuse(host: host, reason, required: required, checks: checks, now: now)
        }
        let report = self.report(
            host: host,
            result: .compliant,
            failure: nil,
            summary: "complies with the \(self.policy) CT policy (\(checks.filter(\.counts).count) SCTs count)",
            required: required,
            checks: checks,
            now: now
        )
        return (report, nil)
    }

    private func refuse(
        host: String,
        _ failure: ServerTrustError,
        required: Int,
        checks: [SCTCheck],
        now: Date
    ) -> (CertificateTransparencyReport, ServerTrustError?) {
        let report = self.report(
            host: host,
            result: .notCompliant,
            failure: failure.code,
            summary: failure.message,
            required: required,
            checks: checks,
            now: now
        )
        return (report, failure)
    }

    private func report(
        host: String,
        result: CertificateTransparencyReport.Result,
        failure: ServerTrustError.Code?,
        summary: String,
        required: Int,
        checks: [SCTCheck],
        now: Date
    ) -> CertificateTransparencyReport {
        CertificateTransparencyReport(
            host: host,
            policy: self.policy,
            result: result,
            failureCode: failure?.description,
            summary: summary,
            requiredSCTs: required,
            scts: checks,
            logListTimestamp: self.logList.timestamp,
            date: now
        )
    }
}

/// DER of swift-certificates values.
enum DERBytes {
    static func of(_ certificate: Certificate) -> [UInt8] {
        var serializer = DER.Serializer()
        try? serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    static func of(_ key: Certificate.PublicKey) -> [UInt8] {
        var serializer = DER.Serializer()
        try? serializer.serialize(key)
        return serializer.serializedBytes
    }
}
