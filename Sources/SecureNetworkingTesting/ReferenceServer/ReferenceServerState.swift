#if TestServers
import Foundation
import NIOConcurrencyHelpers

/// Everything a ``ReferenceAuthServer`` remembers: accounts, refresh-token families, opaque
/// access tokens, counters and the flaky routes' attempts, behind one lock.
///
/// Tokens are kept as SHA-256 digests (``ReferenceTokenIssuer/digest(_:)``), never as issued.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
final class ReferenceServerState: Sendable {
    struct Account {
        var passwordHash: String
        var displayName: String
        var updatedAt: Date
    }

    /// The refresh tokens issued from one sign-in, and the access tokens issued with them.
    struct Family {
        let email: String
        var isRevoked = false
        /// The DPoP key (RFC 7638 thumbprint) the family's refresh tokens are bound to, when the
        /// sign-in carried a proof (RFC 9449 §5).
        var jkt: String?
    }

    struct RefreshRecord {
        let familyID: String
        let expiresAt: Date
        /// When it was redeemed; nil while live.
        var spentAt: Date?
        /// What its redemption issued, kept for the reuse grace window only (the one place the
        /// server holds tokens as issued), and the successor's digest.
        var successor: (issued: ReferenceTokenIssuer.Issued, digest: String)?
        /// The digest of the token whose redemption issued this one.
        var predecessor: String?

        var isSpent: Bool { self.spentAt != nil }
    }

    struct OpaqueAccessRecord {
        let email: String
        let familyID: String
        let expiresAt: Date
        /// The DPoP key the token is bound to (`cnf.jkt`), if any.
        var jkt: String?
    }

    struct Storage {
        var accounts: [String: Account] = [:]
        var families: [String: Family] = [:]
        var refreshTokens: [String: RefreshRecord] = [:]
        var opaqueAccessTokens: [String: OpaqueAccessRecord] = [:]
        var statistics = ReferenceAuthServer.Statistics()
        var callsByPath: [String: Int] = [:]
        var flakyAttempts: [String: Int] = [:]
        /// Failed sign-ins by `account:EMAIL` and `address:IP`, oldest first.
        var failedLogins: [String: [Date]] = [:]
        /// Authorization codes by digest.
        var codes: [String: CodeRecord] = [:]
        /// DPoP proofs seen (`jkt:jti`) until their window ends.
        var dpopJTIs: [String: Date] = [:]
        /// DPoP nonces issued, until they expire.
        var dpopNonces: [String: Date] = [:]
        /// How many more proofs with a live nonce are answered `use_dpop_nonce` anyway.
        var dpopNonceRefusalsLeft = 0
    }

    /// An authorization code and what it was issued for.
    struct CodeRecord {
        let clientID: String
        let redirectURI: String
        let challenge: String
        let email: String
        let expiresAt: Date
        var used = false
        /// The family of the tokens the code was exchanged for.
        var familyID: String?
    }

    enum CodeRedemption {
        case valid(CodeRecord)
        /// Used before: denied, and the tokens issued for it revoked (RFC 6749 §4.1.2).
        case reused
        case invalid
    }

    /// What presenting a refresh token led to.
    enum Redemption {
        /// The token was live and is now spent; issue the next one in this family.
        case redeemed(familyID: String, email: String)
        /// The token was spent moments ago and its successor is unused: the same successor again
        /// (RFC 9700 §4.14.2, a response lost in transit).
        case replayed(ReferenceTokenIssuer.Issued)
        /// The token was already spent: its family is now revoked.
        case reused
        /// Unknown, expired, or of a revoked family.
        case invalid
    }

    /// Whether an access token's family still stands.
    enum AccessCheck: Equatable {
        /// The token stands; `jkt` is the DPoP key it is bound to, if any.
        case valid(email: String, jkt: String?)
        case expired
        case revoked
        case invalid
    }

    private let storage: NIOLockedValueBox<Storage>

    init(accounts: [String: Account]) {
        var storage = Storage()
        storage.accounts = accounts
        self.storage = NIOLockedValueBox(storage)
    }

    // MARK: Counters

    var statistics: ReferenceAuthServer.Statistics { self.storage.withLockedValue { $0.statistics } }

    func calls(to path: String) -> Int { self.storage.withLockedValue { $0.callsByPath[path] ?? 0 } }

    /// Counts a pipeline the server built: an HTTP/1.1 connection (`stream` nil) or an HTTP/2
    /// stream (stream 1 is the first of a new connection).
    func recordPipeline(stream: Int?) {
        self.storage.withLockedValue { storage in
            switch stream {
            case nil:
                storage.statistics.connections += 1
            case 1:
                storage.statistics.connections += 1
                storage.statistics.http2Connections += 1
                storage.statistics.http2Streams += 1
            default:
                storage.statistics.http2Streams += 1
            }
        }
    }

    /// Counts a request to `path` (raw, without the query).
    func record(path: String) {
        self.storage.withLockedValue { storage in
            storage.statistics.requests += 1
            storage.callsByPath[path, default: 0] += 1
            switch path {
            case "/oauth/token": storage.statistics.tokenEndpointCalls += 1
            case "/auth/login": storage.statistics.loginCalls += 1
            case "/user/profile": storage.statistics.profileCalls += 1
            default: break
            }
        }
    }

    /// Counts one more attempt for a flaky key and returns the count, this one included.
    func nextFlakyAttempt(for key: String) -> Int {
        self.storage.withLockedValue { storage in
            storage.flakyAttempts[key, default: 0] += 1
            return storage.flakyAttempts[key, default: 0]
        }
    }

    // MARK: Accounts

    func passwordHash(for email: String) -> String? {
        self.storage.withLockedValue { $0.accounts[email]?.passwordHash }
    }

    func account(for email: String) -> Account? {
        self.storage.withLockedValue { $0.accounts[email] }
    }

    /// Sets the display name and returns the updated account.
    func updateDisplayName(of email: String, to displayName: String, at now: Date) -> Account? {
        self.storage.withLockedValue { storage in
            guard var account = storage.accounts[email] else { return nil }
            account.displayName = displayName
            account.updatedAt = now
            storage.accounts[email] = account
            return account
        }
    }

    // MARK: Tokens

    /// Starts a refresh-token family for a sign-in and returns its id.
    func openFamily(for email: String, jkt: String? = nil) -> String {
        let id = UUID().uuidString
        self.storage.withLockedValue { $0.families[id] = Family(email: email, jkt: jkt) }
        return id
    }

    /// The DPoP key the family of a refresh token is bound to (nil: unbound or unknown).
    func familyKey(ofRefreshToken digest: String) -> String? {
        self.storage.withLockedValue { storage in
            storage.refreshTokens[digest].flatMap { storage.families[$0.familyID]?.jkt }
        }
    }

    /// Counts a DPoP-bound access token presented without a valid proof of its key.
    func recordBoundTokenMisuse() {
        self.storage.withLockedValue { $0.statistics.boundTokenMisuses += 1 }
    }

    func storeRefreshToken(digest: String, familyID: String, expiresAt: Date) {
        self.storage.withLockedValue {
            $0.refreshTokens[digest] = RefreshRecord(familyID: familyID, expiresAt: expiresAt)
        }
    }

    /// Notes what the redemption of `digest` issued, for the reuse grace window.
    func recordSuccessor(of digest: String, _ issued: ReferenceTokenIssuer.Issued) {
        let successor = ReferenceTokenIssuer.digest(issued.refreshToken)
        self.storage.withLockedValue { storage in
            storage.refreshTokens[digest]?.successor = (issued, successor)
            storage.refreshTokens[successor]?.predecessor = digest
        }
    }

    func storeOpaqueAccessToken(digest: String, email: String, familyID: String, expiresAt: Date, jkt: String?) {
        self.storage.withLockedValue {
            $0.opaqueAccessTokens[digest] = OpaqueAccessRecord(
                email: email,
                familyID: familyID,
                expiresAt: expiresAt,
                jkt: jkt
            )
        }
    }

    // MARK: DPoP

    /// Counts a proof check's outcome.
    func recordDPoP(_ outcome: ReferenceDPoPVerifier.Outcome) {
        self.storage.withLockedValue { storage in
            switch outcome {
            case .absent: break
            case .valid: storage.statistics.dpopProofsAccepted += 1
            case .invalid: storage.statistics.dpopProofsRefused += 1
            case .nonceRequired: storage.statistics.dpopNonceChallenges += 1
            }
        }
    }

    /// Remembers a proof's `jkt:jti` until `expiresAt`; false (a replay, counted) when it was
    /// seen before.
    func recordDPoPJTI(_ key: String, expiresAt: Date, now: Date) -> Bool {
        self.storage.withLockedValue { storage in
            storage.dpopJTIs = storage.dpopJTIs.filter { $0.value > now }
            guard storage.dpopJTIs[key] == nil else {
                storage.statistics.dpopReplays += 1
                return false
            }
            storage.dpopJTIs[key] = expiresAt
            return true
        }
    }

    /// A fresh nonce, live for `lifetime` seconds.
    func issueDPoPNonce(now: Date, lifetime: TimeInterval) -> String {
        let nonce = ReferenceTokenIssuer.randomToken()
        self.storage.withLockedValue { storage in
            storage.dpopNonces = storage.dpopNonces.filter { $0.value > now }
            storage.dpopNonces[nonce] = now.addingTimeInterval(lifetime)
        }
        return nonce
    }

    /// Whether `nonce` is live; a live one counts against the refusals
    /// ``refuseLiveDPoPNonces(_:)`` asked for, and is refused while any are left.
    func isLiveDPoPNonce(_ nonce: String, now: Date) -> Bool {
        self.storage.withLockedValue { storage in
            guard (storage.dpopNonces[nonce] ?? .distantPast) > now else { return false }
            guard storage.dpopNonceRefusalsLeft == 0 else {
                storage.dpopNonceRefusalsLeft -= 1
                return false
            }
            return true
        }
    }

    /// Refuses the next `count` proofs that carry a live nonce, as a server that rotates its
    /// nonce with every answer would.
    func refuseLiveDPoPNonces(_ count: Int) {
        self.storage.withLockedValue { $0.dpopNonceRefusalsLeft = max(0, count) }
    }

    /// Spends a refresh token. A second use of the same token revokes its whole family, unless
    /// it comes within `graceWindow` of the first and the successor that one issued is unused:
    /// then the same successor is returned again.
    func redeemRefreshToken(digest: String, now: Date, graceWindow: TimeInterval) -> Redemption {
        self.storage.withLockedValue { storage in
            guard let record = storage.refreshTokens[digest],
                let family = storage.families[record.familyID],
                !family.isRevoked
            else { return .invalid }
            if let spentAt = record.spentAt {
                if now.timeIntervalSince(spentAt) < graceWindow, let successor = record.successor,
                    storage.refreshTokens[successor.digest]?.isSpent == false
                {
                    storage.statistics.refreshReplays += 1
                    return .replayed(successor.issued)
                }
                storage.refreshTokens[digest]?.successor = nil
                storage.families[record.familyID]?.isRevoked = true
                storage.statistics.revokedFamilies += 1
                return .reused
            }
            guard now < record.expiresAt else { return .invalid }
            storage.refreshTokens[digest]?.spentAt = now
            // The predecessor's grace ends once its successor (this token) is used.
            if let predecessor = record.predecessor { storage.refreshTokens[predecessor]?.successor = nil }
            return .redeemed(familyID: record.familyID, email: family.email)
        }
    }

    /// Revokes the family of a refresh token (RFC 7009); false when the token is unknown.
    func revokeFamily(ofRefreshToken digest: String) -> Bool {
        self.storage.withLockedValue { storage in
            guard let record = storage.refreshTokens[digest] else { return false }
            storage.refreshTokens[digest]?.successor = nil
            return Self.revoke(record.familyID, in: &storage)
        }
    }

    /// Revokes a family by id (an access token's `fam`, or an opaque access token's record).
    func revokeFamily(id familyID: String) -> Bool {
        self.storage.withLockedValue { storage in Self.revoke(familyID, in: &storage) }
    }

    /// The family of an opaque access token, or nil.
    func familyOfOpaqueAccessToken(digest: String) -> String? {
        self.storage.withLockedValue { $0.opaqueAccessTokens[digest]?.familyID }
    }

    private static func revoke(_ familyID: String, in storage: inout Storage) -> Bool {
        guard let family = storage.families[familyID] else { return false }
        if !family.isRevoked {
            storage.families[familyID]?.isRevoked = true
            storage.statistics.revocations += 1
        }
        return true
    }

    // MARK: Authorization codes

    func storeCode(digest: String, _ record: CodeRecord) {
        self.storage.withLockedValue { storage in
            storage.codes[digest] = record
            storage.statistics.authorizationCodes += 1
        }
    }

    /// Uses a code once; a second use revokes the family its first use started.
    func redeemCode(digest: String, now: Date) -> CodeRedemption {
        self.storage.withLockedValue { storage in
            guard let record = storage.codes[digest] else { return .invalid }
            if record.used {
                if let family = record.familyID { _ = Self.revoke(family, in: &storage) }
                return .reused
            }
            storage.codes[digest]?.used = true
            return now < record.expiresAt ? .valid(record) : .invalid
        }
    }

    func attachFamily(_ familyID: String, toCode digest: String) {
        self.storage.withLockedValue { $0.codes[digest]?.familyID = familyID }
    }

    // MARK: Sign-in limits

    /// How long a sign-in from `address` for `email` must wait, or nil when it may go ahead.
    func loginRetryAfter(email: String, address: String?, now: Date, limits: LoginLimits) -> TimeInterval? {
        self.storage.withLockedValue { storage in
            var wait: TimeInterval?
            for (key, limit) in Self.loginKeys(email: email, address: address, limits) {
                let recent = (storage.failedLogins[key] ?? []).filter { now.timeIntervalSince($0) < limits.window }
                storage.failedLogins[key] = recent.isEmpty ? nil : recent
                // Refused until enough of the failures leave the window to fall below the limit.
                if recent.count >= limit {
                    let until = recent[recent.count - limit].addingTimeInterval(limits.window).timeIntervalSince(now)
                    wait = max(wait ?? 0, until)
                }
            }
            if wait != nil { storage.statistics.rateLimitedLogins += 1 }
            return wait
        }
    }

    func recordLogin(email: String, address: String?, succeeded: Bool, now: Date, limits: LoginLimits) {
        self.storage.withLockedValue { storage in
            if succeeded {
                storage.failedLogins["account:" + email] = nil
                return
            }
            for (key, _) in Self.loginKeys(email: email, address: address, limits) {
                storage.failedLogins[key, default: []].append(now)
            }
        }
    }

    private static func loginKeys(email: String, address: String?, _ limits: LoginLimits) -> [(String, Int)] {
        [("account:" + email, limits.perAccount)] + (address.map { [("address:" + $0, limits.perAddress)] } ?? [])
    }

    /// The failed-sign-in limits of the configuration.
    struct LoginLimits {
        let perAccount: Int
        let perAddress: Int
        let window: TimeInterval
    }

    /// Checks the server-side part of a JWT access token: its family stands and its user exists.
    func checkFamily(_ familyID: String, email: String) -> AccessCheck {
        self.storage.withLockedValue { storage in
            guard let family = storage.families[familyID], family.email == email,
                storage.accounts[email] != nil
            else { return .invalid }
            return family.isRevoked ? .revoked : .valid(email: email, jkt: nil)
        }
    }

    /// Looks up an opaque access token.
    func checkOpaqueAccessToken(digest: String, now: Date) -> AccessCheck {
        self.storage.withLockedValue { storage in
            guard let record = storage.opaqueAccessTokens[digest],
                let family = storage.families[record.familyID]
            else { return .invalid }
            if family.isRevoked { return .revoked }
            return now < record.expiresAt ? .valid(email: record.email, jkt: record.jkt) : .expired
        }
    }

    /// Revokes every family, so every access and refresh token issued so far stops working.
    func revokeAll() {
        self.storage.withLockedValue { storage in
            for (id, family) in storage.families where !family.isRevoked {
                storage.families[id]?.isRevoked = true
                storage.statistics.revokedFamilies += 1
            }
        }
    }
}
#endif
