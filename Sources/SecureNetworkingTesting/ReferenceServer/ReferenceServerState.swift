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
    }

    struct RefreshRecord {
        let familyID: String
        let expiresAt: Date
        var isSpent = false
    }

    struct OpaqueAccessRecord {
        let email: String
        let familyID: String
        let expiresAt: Date
    }

    struct Storage {
        var accounts: [String: Account] = [:]
        var families: [String: Family] = [:]
        var refreshTokens: [String: RefreshRecord] = [:]
        var opaqueAccessTokens: [String: OpaqueAccessRecord] = [:]
        var statistics = ReferenceAuthServer.Statistics()
        var callsByPath: [String: Int] = [:]
        var flakyAttempts: [String: Int] = [:]
    }

    /// What presenting a refresh token led to.
    enum Redemption: Equatable {
        /// The token was live and is now spent; issue the next one in this family.
        case redeemed(familyID: String, email: String)
        /// The token was already spent: its family is now revoked.
        case reused
        /// Unknown, expired, or of a revoked family.
        case invalid
    }

    /// Whether an access token's family still stands.
    enum AccessCheck: Equatable {
        case valid(email: String)
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
    func openFamily(for email: String) -> String {
        let id = UUID().uuidString
        self.storage.withLockedValue { $0.families[id] = Family(email: email) }
        return id
    }

    func storeRefreshToken(digest: String, familyID: String, expiresAt: Date) {
        self.storage.withLockedValue {
            $0.refreshTokens[digest] = RefreshRecord(familyID: familyID, expiresAt: expiresAt)
        }
    }

    func storeOpaqueAccessToken(digest: String, email: String, familyID: String, expiresAt: Date) {
        self.storage.withLockedValue {
            $0.opaqueAccessTokens[digest] = OpaqueAccessRecord(email: email, familyID: familyID, expiresAt: expiresAt)
        }
    }

    /// Spends a refresh token. A second use of the same token revokes its whole family.
    func redeemRefreshToken(digest: String, now: Date) -> Redemption {
        self.storage.withLockedValue { storage in
            guard let record = storage.refreshTokens[digest],
                let family = storage.families[record.familyID],
                !family.isRevoked
            else { return .invalid }
            if record.isSpent {
                storage.families[record.familyID]?.isRevoked = true
                storage.statistics.revokedFamilies += 1
                return .reused
            }
            guard now < record.expiresAt else { return .invalid }
            storage.refreshTokens[digest]?.isSpent = true
            return .redeemed(familyID: record.familyID, email: family.email)
        }
    }

    /// Checks the server-side part of a JWT access token: its family stands and its user exists.
    func checkFamily(_ familyID: String, email: String) -> AccessCheck {
        self.storage.withLockedValue { storage in
            guard let family = storage.families[familyID], family.email == email,
                storage.accounts[email] != nil
            else { return .invalid }
            return family.isRevoked ? .revoked : .valid(email: email)
        }
    }

    /// Looks up an opaque access token.
    func checkOpaqueAccessToken(digest: String, now: Date) -> AccessCheck {
        self.storage.withLockedValue { storage in
            guard let record = storage.opaqueAccessTokens[digest],
                let family = storage.families[record.familyID]
            else { return .invalid }
            if family.isRevoked { return .revoked }
            return now < record.expiresAt ? .valid(email: record.email) : .expired
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
