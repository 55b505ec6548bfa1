public import Foundation

/// A pin-set update document with its detached signature: what a server publishes and an app
/// fetches.
///
/// The envelope is JSON (format `securenet-signed-pin-set-update/1`):
///
/// ```json
/// {
///   "format": "securenet-signed-pin-set-update/1",
///   "document": "<base64 of the document's exact bytes>",
///   "keyId": "sha256/<base64 of SHA-256 of the signing key's SubjectPublicKeyInfo>",
///   "signature": "<base64 of the signature over the document's exact bytes>"
/// }
/// ```
///
/// The signature is over the document's bytes exactly as carried (no re-encoding, no
/// canonical form to get wrong): Ed25519 (64 bytes), or ECDSA P-256 with SHA-256 in DER, as
/// `openssl pkeyutl -sign -rawin` and `openssl dgst -sha256 -sign` make them. The key, not the
/// envelope, says which algorithm applies. Unknown keys are refused, and so is a key given
/// twice.
public struct SignedPinSetUpdate: Hashable, Sendable {
    /// The format identifier of the envelope.
    public static let format = "securenet-signed-pin-set-update/1"

    /// The document's exact bytes (see ``PinSetUpdate``).
    public let document: Data
    /// The id of the key that signed it (``PinUpdateKey/id``).
    public let keyID: Pin
    /// The signature over ``document``.
    public let signature: Data

    /// Wraps a document and its signature.
    public init(document: Data, keyID: Pin, signature: Data) {
        self.document = document
        self.keyID = keyID
        self.signature = signature
    }

    /// Signs `document` (its exact bytes) with `key`.
    /// - Throws: ``ServerTrustError/Code/invalidPinUpdateKey`` if the key cannot sign.
    public init(signing document: Data, with key: PinUpdateSigningKey) throws(ServerTrustError) {
        self.init(document: document, keyID: key.publicKey.id, signature: Data(try key.signature(for: document)))
    }

    /// Parses an envelope; the caller has already bounded its size (``PinUpdateVerifier``
    /// refuses a large one before this).
    /// - Throws: ``ServerTrustError/Code/malformedPinUpdate`` with the key path (also for a key
    ///   given twice).
    public init(envelope: Data) throws(ServerTrustError) {
        let root = try JSONValue.parse(envelope, failing: .malformedPinUpdate, what: "the signed pin-set update")
        var reader = PolicyReader(baseDirectory: nil)
        reader.failureCode = .malformedPinUpdate
        let fields = try reader.object(root, "$", allowed: ["format", "document", "keyId", "signature"])
        guard let format = try reader.string(fields, "format", "$"), format == Self.format else {
            throw reader.fail("$.format", "missing or unsupported: expected \"\(Self.format)\"")
        }
        func base64(_ key: String) throws(ServerTrustError) -> Data {
            guard let text = try reader.string(fields, key, "$") else { throw reader.fail("$.\(key)", "missing") }
            guard let data = Data(base64Encoded: text), !data.isEmpty else {
                throw reader.fail("$.\(key)", "not base64")
            }
            return data
        }
        self.document = try base64("document")
        self.signature = try base64("signature")
        guard let keyText = try reader.string(fields, "keyId", "$") else { throw reader.fail("$.keyId", "missing") }
        do {
            self.keyID = try Pin(keyText)
        } catch {
            throw reader.fail("$.keyId", "not a key id (sha256/BASE64 of the key's SubjectPublicKeyInfo)")
        }
    }

    /// The envelope's JSON.
    public func envelope() -> Data {
        let text = """
            {
              "format": "\(Self.format)",
              "document": "\(self.document.base64EncodedString())",
              "keyId": "\(self.keyID)",
              "signature": "\(self.signature.base64EncodedString())"
            }

            """
        return Data(text.utf8)
    }
}

/// Decides whether a signed pin-set update may be applied: the checks an app runs on the
/// device before any pin changes, each refusal with its own code and nothing applied.
///
/// In order (the document is parsed only once its signature is verified):
/// 1. the envelope is at most ``maximumSize`` bytes (``ServerTrustError/Code/pinUpdateTooLarge``,
///    before any parsing);
/// 2. it is an envelope (``ServerTrustError/Code/malformedPinUpdate``);
/// 3. its key is one of ``trustedKeys`` (``ServerTrustError/Code/unknownPinUpdateKey``);
/// 4. the signature verifies with that key (``ServerTrustError/Code/invalidPinUpdateSignature``);
/// 5. the document parses (``ServerTrustError/Code/malformedPinUpdate``, or
///    ``ServerTrustError/Code/missingBackupPin`` for an enforced set without a backup);
/// 6. it is for this verifier's ``audience``
///    (``ServerTrustError/Code/pinUpdateWrongAudience``), before its version is looked at;
/// 7. its version is greater than the one applied (``ServerTrustError/Code/pinUpdateRollback``);
/// 8. now is within `issuedAt − clockSkewTolerance … notAfter`
///    (``ServerTrustError/Code/pinUpdateNotYetValid``, ``ServerTrustError/Code/pinUpdateExpired``);
/// 9. every pattern pinned now keeps pins, and every pattern enforced now stays enforced (not
///    re-pinned as `reportOnly` or with an `expiration` already past), or is unpinned
///    explicitly (``ServerTrustError/Code/pinUpdateDropsHost``).
public struct PinUpdateVerifier: Sendable {
    /// The largest envelope accepted, in bytes; 64 KiB by default (a document for a hundred
    /// hosts with four pins each is about 25 KiB).
    public var maximumSize = 65_536
    /// How far in the future `issuedAt` may be, for a device clock that runs slow; 5 minutes by
    /// default. It does not extend `notAfter`.
    public var clockSkewTolerance: TimeInterval = 300
    /// The keys whose signatures are accepted.
    public let trustedKeys: [PinUpdateKey]
    /// The app (and environment) this verifier accepts documents for, such as
    /// `com.example.app/production`: a document whose ``PinSetUpdate/audience`` is another is
    /// refused, however well signed, so one update key can serve several apps or environments.
    public let audience: String

    /// A verifier that accepts updates for `audience` signed by any of `trustedKeys`.
    ///
    /// - Parameters:
    ///   - trustedKeys: the public keys compiled into the app (at least one; two, so the update
    ///     key can rotate).
    ///   - audience: this app and environment, as the documents published for it name it: 1 to
    ///     ``PinSetUpdate/maximumAudienceLength`` of the characters `A–Z a–z 0–9 . - _ : /`
    ///     (`com.example.app/production`, `com.example.app/staging`).
    /// - Throws: ``ServerTrustError/Code/invalidPinUpdateKey`` when `trustedKeys` is empty;
    ///   ``ServerTrustError/Code/invalidPinUpdateAudience`` when `audience` is not an audience.
    public init(trustedKeys: [PinUpdateKey], audience: String) throws(ServerTrustError) {
        guard !trustedKeys.isEmpty else {
            throw ServerTrustError(.invalidPinUpdateKey, "a pin-update verifier needs at least one trusted key")
        }
        if let problem = PinSetUpdate.audienceProblem(audience) {
            throw ServerTrustError(.invalidPinUpdateAudience, problem)
        }
        self.trustedKeys = trustedKeys
        self.audience = audience
    }

    /// Verifies a signed update against what is applied now.
    ///
    /// - Parameters:
    ///   - envelope: the signed update's bytes, as fetched.
    ///   - current: the pins enforced now (the compiled-in pins with the last update applied).
    ///   - compiled: the app's compiled-in pins, to which an update applies.
    ///   - appliedVersion: the version of the update applied now, if any.
    ///   - now: the time to judge `issuedAt` and `notAfter` by.
    /// - Returns: the update, verified.
    /// - Throws: ``ServerTrustError`` with the code of the first check that fails (see above).
    public func verify(
        _ envelope: Data,
        current: PinningPolicy,
        compiled: PinningPolicy,
        appliedVersion: UInt64?,
        now: Date
    ) throws(ServerTrustError) -> PinSetUpdate {
        guard envelope.count <= self.maximumSize else {
            throw ServerTrustError(
                .pinUpdateTooLarge,
                "the signed pin-set update is \(envelope.count) bytes, more than the limit of \(self.maximumSize)"
            )
        }
        let signed = try SignedPinSetUpdate(envelope: envelope)
        guard let key = self.trustedKeys.first(where: { $0.id == signed.keyID }) else {
            throw ServerTrustError(
                .unknownPinUpdateKey,
                "the pin-set update is signed by key \(signed.keyID), which this app does not trust"
            )
        }
        guard key.isValidSignature(signed.signature, for: signed.document) else {
            throw ServerTrustError(
                .invalidPinUpdateSignature,
                "the pin-set update's signature does not verify with \(key)"
            )
        }
        let update = try PinSetUpdate(json: signed.document)
        guard update.audience == self.audience else {
            throw ServerTrustError(
                .pinUpdateWrongAudience,
                "the pin-set update is for \(OutsideText.quoted(update.audience)), not for this app's audience \(OutsideText.quoted(self.audience))"
            )
        }
        if let appliedVersion, update.version <= appliedVersion {
            throw ServerTrustError(
                .pinUpdateRollback,
                "the pin-set update has version \(update.version), not greater than the version applied (\(appliedVersion))"
            )
        }
        if now < update.issuedAt.addingTimeInterval(-self.clockSkewTolerance) {
            throw ServerTrustError(
                .pinUpdateNotYetValid,
                "the pin-set update is issued at \(update.issuedAt), in the future"
            )
        }
        if now > update.notAfter {
            throw ServerTrustError(.pinUpdateExpired, "the pin-set update expired at \(update.notAfter)")
        }
        let next = compiled.applying(update)
        // A drop: a pattern pinned now that loses its pins, or whose enforced pins become
        // report-only or expired (a re-pin with `reportOnly`, or with an `expiration` already
        // past, enforces nothing either) — each only with an explicit, signed unpin.
        var dropped: [String] = []
        var unenforced: [String] = []
        for (pattern, set) in current.rules where update.entries[pattern] != .unpinned {
            guard let kept = next.rules[pattern] else {
                dropped.append(pattern.description)
                continue
            }
            if set.isEnforced(at: now), !kept.isEnforced(at: now) { unenforced.append(pattern.description) }
        }
        if let first = dropped.sorted().first {
            throw ServerTrustError(
                .pinUpdateDropsHost,
                "the pin-set update leaves \(first) without pins; an update unpins a pattern only with {\"unpin\": true}"
            )
        }
        if let first = unenforced.sorted().first {
            throw ServerTrustError(
                .pinUpdateDropsHost,
                "the pin-set update stops enforcing the pins of \(first) (report-only, or an expiration already past); an update drops enforcement only with {\"unpin\": true}"
            )
        }
        return update
    }
}
