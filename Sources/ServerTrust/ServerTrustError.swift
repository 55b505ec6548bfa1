/// An error from the ServerTrust module: a bad configuration, a refused URL, or a rejected server.
///
/// Errors compare equal when their ``code`` is equal, so tests and callers can match on the code
/// while the ``message`` explains the particular case. Messages never hold a secret: they name
/// hosts, key paths, pins and certificate subjects, which are public.
public struct ServerTrustError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier of what went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case invalidPin, invalidHostPattern, missingBackupPin, invalidPolicyFile
            case invalidURL, insecureScheme, unsupportedScheme
            case emptyChain, chainTooLong, malformedCertificate
            case expired, notYetValid, hostnameMismatch, selfSigned, untrustedRoot, missingIntermediate
            case chainPolicyViolation, weakKey, weakSignatureAlgorithm
            case serverAuthNotPermitted, invalidKeyUsage, invalidSerialNumber
            case validationBudgetExceeded, pinMismatch
            case nameConstraintViolation, caCertificateAsLeaf, certificateProfileViolation
            case unreadableFile, notACertificate
            case ctNoSCTs, ctTooFewSCTs, ctUnknownLog, ctBadSignature, ctLogNotUsable, ctLogListStale
            case ctMalformedSCT, ctLogListMissing, invalidLogList
            case pinUpdateTooLarge, malformedPinUpdate, unknownPinUpdateKey, invalidPinUpdateSignature
            case pinUpdateRollback, pinUpdateNotYetValid, pinUpdateExpired, pinUpdateDropsHost
            case invalidPinUpdateKey
            // issue 51 item 6
            case pinUpdateWrongAudience, invalidPinUpdateAudience
        }

        fileprivate let base: Base

        /// The text form of the code, stable across releases (for logs and reports).
        public var description: String { self.base.rawValue }

        /// A pin string is not `sha256/BASE64` or bare base64 of a 32-byte digest.
        public static let invalidPin = Code(base: .invalidPin)
        /// A host pattern is malformed or too broad.
        public static let invalidHostPattern = Code(base: .invalidHostPattern)
        /// An enforced pin set has fewer than two pins (no backup).
        public static let missingBackupPin = Code(base: .missingBackupPin)
        /// A JSON policy file was refused; ``ServerTrustError/keyPath`` names where.
        public static let invalidPolicyFile = Code(base: .invalidPolicyFile)
        /// A URL has no host or is otherwise unusable.
        public static let invalidURL = Code(base: .invalidURL)
        /// Plain `http` to a host the policy does not except.
        public static let insecureScheme = Code(base: .insecureScheme)
        /// A scheme other than `https` or `http`.
        public static let unsupportedScheme = Code(base: .unsupportedScheme)
        /// The server presented no certificate.
        public static let emptyChain = Code(base: .emptyChain)
        /// The server presented more certificates than the configured maximum.
        public static let chainTooLong = Code(base: .chainTooLong)
        /// A presented certificate could not be parsed.
        public static let malformedCertificate = Code(base: .malformedCertificate)
        /// A certificate of the chain has expired.
        public static let expired = Code(base: .expired)
        /// A certificate of the chain is not valid yet.
        public static let notYetValid = Code(base: .notYetValid)
        /// The leaf's subject alternative names do not cover the host.
        public static let hostnameMismatch = Code(base: .hostnameMismatch)
        /// The leaf is self-signed and not a trust anchor.
        public static let selfSigned = Code(base: .selfSigned)
        /// The chain ends at a root that is not a trust anchor: a root the server presented, or
        /// the issuer of the topmost certificate it presented (servers do not send their root).
        /// The message names the root and how to trust it (the policy's trust anchors).
        public static let untrustedRoot = Code(base: .untrustedRoot)
        /// The issuer of a presented certificate is neither presented nor a trust anchor.
        public static let missingIntermediate = Code(base: .missingIntermediate)
        /// An RFC 5280 rule failed (basic constraints, path length, version, critical extensions).
        public static let chainPolicyViolation = Code(base: .chainPolicyViolation)
        /// A key is smaller than the policy allows (RSA < 2048 or EC < 256 bits by default).
        public static let weakKey = Code(base: .weakKey)
        /// A certificate is signed with a hash weaker than SHA-2.
        public static let weakSignatureAlgorithm = Code(base: .weakSignatureAlgorithm)
        /// The leaf (or an intermediate) restricts its extended key usage and omits serverAuth.
        public static let serverAuthNotPermitted = Code(base: .serverAuthNotPermitted)
        /// Key usage does not fit the certificate's role (a leaf with keyCertSign, a CA without it).
        public static let invalidKeyUsage = Code(base: .invalidKeyUsage)
        /// A serial number is not positive or its value is longer than 20 octets.
        public static let invalidSerialNumber = Code(base: .invalidSerialNumber)
        /// A name of a certificate is outside a CA's permitted subtrees or inside its excluded
        /// subtrees, or the name constraints cannot be evaluated (RFC 5280 §4.2.1.10).
        public static let nameConstraintViolation = Code(base: .nameConstraintViolation)
        /// The server's certificate is a CA certificate (basicConstraints cA=TRUE).
        public static let caCertificateAsLeaf = Code(base: .caCertificateAsLeaf)
        /// A certificate breaks the certificate profile: key identifiers, extension criticality,
        /// the subject, the common name, or an RSA modulus that is not a whole number of octets.
        public static let certificateProfileViolation = Code(base: .certificateProfileViolation)
        /// Validation took more work or time than its budget; the chain is refused.
        public static let validationBudgetExceeded = Code(base: .validationBudgetExceeded)
        /// No certificate of the validated chain matches the host's enforced pins.
        public static let pinMismatch = Code(base: .pinMismatch)
        /// A file could not be read.
        public static let unreadableFile = Code(base: .unreadableFile)
        /// Data is neither a PEM nor a DER certificate, or a certificate given as a trust anchor
        /// is not a CA certificate.
        public static let notACertificate = Code(base: .notACertificate)
        /// Certificate Transparency is required and the server presented no SCT.
        public static let ctNoSCTs = Code(base: .ctNoSCTs)
        /// Too few SCTs count under the CT policy (for the certificate's lifetime, or from too few
        /// log operators).
        public static let ctTooFewSCTs = Code(base: .ctTooFewSCTs)
        /// Too few SCTs count, and an SCT names a log that is not in the log list.
        public static let ctUnknownLog = Code(base: .ctUnknownLog)
        /// Too few SCTs count, and an SCT of a listed log does not verify (a certificate that is
        /// not the one the log saw, or a forged SCT).
        public static let ctBadSignature = Code(base: .ctBadSignature)
        /// Too few SCTs count, and a valid SCT's log is in a state that does not let it count
        /// (pending, rejected, or retired before the SCT was issued).
        public static let ctLogNotUsable = Code(base: .ctLogNotUsable)
        /// The log list is older than allowed: CT is not enforced (a report code, never a refusal).
        public static let ctLogListStale = Code(base: .ctLogListStale)
        /// An SCT list is malformed (RFC 6962 §3.3 encoding).
        public static let ctMalformedSCT = Code(base: .ctMalformedSCT)
        /// A host requires Certificate Transparency and no log list is configured.
        public static let ctLogListMissing = Code(base: .ctLogListMissing)
        /// A CT log list was refused; ``ServerTrustError/keyPath`` names where.
        public static let invalidLogList = Code(base: .invalidLogList)
        /// A signed pin-set update is larger than the verifier's limit; it was refused before
        /// any parsing.
        public static let pinUpdateTooLarge = Code(base: .pinUpdateTooLarge)
        /// A signed pin-set update, or the document inside it, is not in the format (see
        /// ``PinSetUpdate``); ``ServerTrustError/keyPath`` names where.
        public static let malformedPinUpdate = Code(base: .malformedPinUpdate)
        /// A pin-set update is signed by a key that is not among the verifier's trusted keys.
        public static let unknownPinUpdateKey = Code(base: .unknownPinUpdateKey)
        /// A pin-set update's signature does not verify with the key it names.
        public static let invalidPinUpdateSignature = Code(base: .invalidPinUpdateSignature)
        /// A pin-set update's `version` is not greater than the version already applied (a
        /// replayed or older document).
        public static let pinUpdateRollback = Code(base: .pinUpdateRollback)
        /// A pin-set update's `issuedAt` is in the future (beyond the clock-skew tolerance).
        public static let pinUpdateNotYetValid = Code(base: .pinUpdateNotYetValid)
        /// A pin-set update's `notAfter` has passed (a frozen or withheld document).
        public static let pinUpdateExpired = Code(base: .pinUpdateExpired)
        /// A pin-set update leaves a host pattern that is pinned now without pins, and does not
        /// unpin it explicitly (`"unpin": true`).
        public static let pinUpdateDropsHost = Code(base: .pinUpdateDropsHost)
        /// A pin-update key is not an Ed25519 or ECDSA P-256 key in the expected encoding.
        public static let invalidPinUpdateKey = Code(base: .invalidPinUpdateKey)

        // issue 51 item 6
        /// A pin-set update is for another ``PinSetUpdate/audience`` (another app, or another
        /// environment of this one) than the verifier's ``PinUpdateVerifier/audience``.
        public static let pinUpdateWrongAudience = Code(base: .pinUpdateWrongAudience)
        /// A verifier's audience is not an audience (see ``PinUpdateVerifier/init(trustedKeys:audience:)``).
        public static let invalidPinUpdateAudience = Code(base: .invalidPinUpdateAudience)
    }

    /// What went wrong, as a stable code.
    public let code: Code
    /// A short explanation for people; it never holds a secret.
    public let message: String
    /// For ``Code/invalidPolicyFile``, ``Code/invalidLogList``, ``Code/malformedPinUpdate`` and a
    /// pin-set update's ``Code/missingBackupPin``: the key path in the file, such as `exceptionDomains["a.com"].pins[1]`.
    public let keyPath: String?

    /// Creates an error; used by transports that report a ServerTrust reason of their own.
    /// Never put a secret in `message`.
    ///
    /// Each line of `message` and the key path go through ``OutsideText/escaped(_:)`` (issue 51
    /// item 10): what a server or a file chose and reached the text unescaped still cannot
    /// rewrite the terminal or start a CI workflow command. A name inserted into a message is
    /// escaped where it is inserted, so that it cannot add a line either.
    public init(_ code: Code, _ message: String, keyPath: String? = nil) {
        self.code = code
        self.message = OutsideText.escapedLines(message)
        self.keyPath = keyPath.map(OutsideText.escaped)
    }

    /// `code: message`.
    public var description: String { "\(self.code): \(self.message)" }

    public static func == (lhs: ServerTrustError, rhs: ServerTrustError) -> Bool {
        lhs.code == rhs.code
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.code)
    }
}
