#if Tools
import Foundation
import HTTPTypes
import Logging
import NIOConcurrencyHelpers
import SecureNetworking
import SecureNetworkingTesting

/// The demo's steps, in the order they run.
public enum DemoStepID: String, CaseIterable, Sendable {
    case plainHTTPRefused, signIn, pinnedProfile, concurrentRefresh, mitmRejected, mitmWithoutPins
    case mutualTLS, mutualTLSWithoutCertificate, refreshTokenReuse, inactivitySignOut, browserSignIn
    case dpopBoundRequest, stolenDPoPTokenRefused, pinRotation, forgedPinUpdateRefused
    case sessionSignIn, sessionLocked, sessionUnlocked, sessionEndedByServer
}

/// The whole flow against the reference auth server, step by step: what `securenet demo` runs.
///
/// It starts the reference server in-process on a free loopback port with a fresh TestPKI and
/// walks a `SecureAPIClient` through the policy, sign-in, pinned TLS, token expiry under load,
/// a man-in-the-middle, mutual TLS, refresh-token theft, inactivity, a browser sign-in and
/// DPoP-bound tokens, a rotation of the server's intermediate CA that a signed pin-set update
/// fixes without a new build, and the app's session model (sign in, lock in the background,
/// unlock through the presence gate, a session the server ends). Every step checks what
/// happened against what should have happened; nothing leaves loopback.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
public struct SecureNetworkingDemo: Sendable {
    /// Called with each step as soon as it has run.
    let report: @Sendable (DemoStepID, DemoStep) -> Void

    /// Creates a demo that reports each step to `report` (for example, to print it).
    public init(report: @escaping @Sendable (DemoStepID, DemoStep) -> Void = { _, _ in }) {
        self.report = report
    }

    /// Runs every step and returns the results in order. Setup failures come back as a failed
    /// step rather than an error, so the caller always has something to print.
    public func run() async -> [(DemoStepID, DemoStep)] {
        let results = DemoResults(report: self.report)
        do {
            let world = try await DemoWorld.start()
            await self.steps(world, results)
            await world.shutdown()
        } catch {
            results.fail(.plainHTTPRefused, "setup", "the demo could not start: \(error)")
        }
        return results.all
    }

    private func steps(_ world: DemoWorld, _ results: DemoResults) async {
        let email = DemoWorld.email

        // 1. Policy: plain http is refused before a byte is sent.
        await results.check(.plainHTTPRefused, "policy refuses plain http") {
            let before = world.server.statistics.requests
            return try await withSecureAPIClient(try world.configuration(baseURL: world.plainURL)) { client in
                do {
                    _ = try await client.send(Request<EmptyResponse>.get("user/profile", requiresAuthentication: false))
                    return (false, "the http request was sent")
                } catch let error as APIError {
                    let refused =
                        error.transportError?.code == .policyViolation && world.server.statistics.requests == before
                    return (
                        refused,
                        "http://localhost:\(world.server.port) refused by the transport policy (\(error.transportError?.serverTrustError?.code.description ?? "\(error.code)")); 0 requests reached the server"
                    )
                }
            }
        }

        // 2. Sign in.
        await results.check(.signIn, "sign in") {
            let bundle = try await world.client.signIn(world.loginRequest)
            let lifetime = Int(bundle.expiresAt.timeIntervalSince(world.clock.now).rounded())
            let stored = try await world.store.contains("SecureNetworking.tokens")
            return (
                stored && bundle.refreshToken != nil,
                "POST /auth/login as \(email): access token (ES256 JWT, \(lifetime) s) and refresh token kept in an encrypted file store"
            )
        }

        // 3. Profile over pinned TLS.
        await results.check(.pinnedProfile, "profile over pinned TLS") {
            let profile = try await world.client.send(Request<DemoProfile>.get("user/profile"))
            return (
                profile.email == email,
                "GET /user/profile → \(profile.displayName); chain validated to the demo root, SPKI pin \(world.pinnedIntermediate.shortDescription) (intermediate, plus a backup pin) matched"
            )
        }

        // 4. The access token expires; 50 concurrent requests cause one refresh.
        await results.check(.concurrentRefresh, "token expiry: 50 concurrent requests, one refresh") {
            let before = world.server.statistics.tokenEndpointCalls
            world.clock.advance(seconds: 301)
            let client = world.client
            let answers = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await client.send(Request<DemoProfile>.get("user/profile")).email }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            let refreshes = world.server.statistics.tokenEndpointCalls - before
            return (
                answers.count == 50 && refreshes == 1,
                "access token expired after 300 s; 50 concurrent requests succeeded with \(refreshes) refresh\(refreshes == 1 ? "" : "es") of the token"
            )
        }

        // 5. A man in the middle whose CA the device trusts.
        await results.check(.mitmRejected, "MITM proxy rejected by the pins") {
            try await world.withProxy { proxy in
                try await withSecureAPIClient(
                    try world.configuration(
                        baseURL: world.url(port: proxy.port),
                        policy: world.deviceTrustPolicy(pinned: true)
                    )
                ) { client in
                    do {
                        _ = try await client.send(
                            Request<DemoEcho>.get("echo/pinned-probe", requiresAuthentication: false)
                        )
                        return (false, "the pinned client accepted the interception certificate")
                    } catch let error as APIError {
                        let mismatch = error.transportError?.serverTrustError?.code == .pinMismatch
                        let reached = world.server.calls(to: "/echo/pinned-probe")
                        return (
                            mismatch && reached == 0,
                            "an interception CA the device trusts passed chain validation, but its key is not pinned (pinMismatch); \(reached) requests went through the proxy"
                        )
                    }
                }
            }
        }
        await results.check(.mitmWithoutPins, "why pinning matters: an unpinned client is fooled") {
            try await world.withProxy { proxy in
                try await withSecureAPIClient(
                    try world.configuration(
                        baseURL: world.url(port: proxy.port),
                        policy: world.deviceTrustPolicy(pinned: false)
                    )
                ) { client in
                    let echo = try await client.send(
                        Request<DemoEcho>.get("echo/unpinned-probe", requiresAuthentication: false)
                    )
                    let relayed =
                        proxy.interceptedConnections > 0 && echo.method == "GET"
                        && world.server.calls(to: "/echo/unpinned-probe") == 1
                    return (
                        relayed,
                        "without pins the same kind of request went through the proxy, which could read and change it (\(proxy.interceptedConnections) connection intercepted)"
                    )
                }
            }
        }

        // 6. Mutual TLS.
        await results.check(.mutualTLS, "mTLS with a client certificate") {
            let identity = try world.pki.clientIdentity(commonName: "demo-device")
            let pem = ClientIdentity.pem(
                certificateChain: identity.pem,
                privateKey: identity.leafIdentity.privateKeyPEM
            )
            return try await withSecureAPIClient(try world.configuration(clientIdentity: pem)) { client in
                let whoami = try await client.send(
                    Request<DemoWhoAmI>.get("mtls/whoami", requiresAuthentication: false)
                )
                return (whoami.subject.contains("CN=demo-device"), "GET /mtls/whoami → \(whoami.subject)")
            }
        }
        await results.check(.mutualTLSWithoutCertificate, "mTLS without a client certificate") {
            do {
                _ = try await world.client.send(Request<DemoWhoAmI>.get("mtls/whoami", requiresAuthentication: false))
                return (false, "the server accepted a client without a certificate")
            } catch let error as APIError {
                return (
                    error.code == .forbidden && error.serverErrorCode == "client_certificate_required",
                    "GET /mtls/whoami → \(error.status.map(String.init) ?? "?") \(error.serverErrorCode ?? "")"
                )
            }
        }

        // 7. A stolen refresh token is used by an attacker, then by the app: the server sees the reuse.
        await results.check(.refreshTokenReuse, "refresh-token reuse detected, client signed out") {
            let bundle = try requireValue(await world.client.tokens?.currentBundle(), "no session")
            let stolen = try requireValue(bundle.refreshToken, "no refresh token")
            let attacker = OAuthTokenEndpoint(
                url: world.server.baseURL.appendingPathComponent("oauth/token"),
                transport: world.client.transport,
                client: .publicClient(id: DemoWorld.clientID)
            )
            _ = try await attacker.refresh(using: stolen)
            world.clock.advance(seconds: 301)
            do {
                _ = try await world.client.send(Request<DemoProfile>.get("user/profile"))
                return (false, "the app kept working after its refresh token was reused")
            } catch let error as APIError {
                let signedOut = error.code == .signedOut && error.authenticationError?.code == .invalidGrant
                let cleared = try await !world.store.contains("SecureNetworking.tokens")
                let revoked = world.server.statistics.revokedFamilies
                return (
                    signedOut && cleared && revoked == 1,
                    "the attacker refreshed first; the app's refresh presented a spent token, the server revoked the token family (\(revoked)), and the client cleared its tokens and signed out"
                )
            }
        }

        // 8. Inactivity.
        await results.check(.inactivitySignOut, "inactivity sign-out") {
            try await world.client.signIn(world.loginRequest)
            _ = try await world.client.send(Request<DemoProfile>.get("user/profile"))
            world.clock.advance(seconds: 15 * 60 + 1)
            do {
                _ = try await world.client.send(Request<DemoProfile>.get("user/profile"))
                return (false, "the session survived 15 minutes of inactivity")
            } catch let error as APIError {
                let cleared = try await !world.store.contains("SecureNetworking.tokens")
                return (
                    error.code == .signedOut && cleared,
                    "no activity for 15 min 1 s: the session ended and its tokens were removed"
                )
            }
        }

        // 9. Sign-in in the browser: authorization code with PKCE and a loopback redirect.
        await results.check(.browserSignIn, "sign-in in the browser with PKCE") {
            let receiver = try await LoopbackRedirectReceiver.start()
            let request = AuthorizationRequest(
                authorizationEndpoint: world.server.baseURL.appendingPathComponent("oauth/authorize"),
                clientID: DemoWorld.clientID,
                redirectURI: receiver.redirectURI,
                scopes: ["profile"]
            )
            // The browser: it trusts the demo root and may load the app's loopback page.
            var browser = HTTPTransportConfiguration(
                policy: TransportSecurityPolicy(trustAnchors: world.pki.trustAnchors)
            )
            browser.policy.allowsLocalNetworking = true
            try await withNIOHTTPTransport(configuration: browser) { browser in
                let approval = try await browser.send(
                    HTTPRequest(url: request.url),
                    body: nil,
                    options: HTTPRequestOptions(redirects: RedirectPolicy.none)
                )
                let location = try requireValue(
                    approval.response.headerFields[.location].flatMap(URL.init(string:)),
                    "no redirect from /oauth/authorize"
                )
                _ = try await browser.send(HTTPRequest(url: location))
            }
            let response = try request.response(from: try await receiver.redirect(for: request, within: .seconds(30)))
            let endpoint = OAuthTokenEndpoint(
                url: world.server.baseURL.appendingPathComponent("oauth/token"),
                transport: world.client.transport,
                client: .publicClient(id: DemoWorld.clientID)
            )
            let tokens = try await endpoint.exchange(response, for: request)
            try await world.client.tokens?.signIn(TokenBundle(tokens, receivedAt: world.clock.now))
            let profile = try await world.client.send(Request<DemoProfile>.get("user/profile"))
            // An intercepted code is useless a second time (and its tokens are revoked).
            var replayRefused = false
            do throws(TokenAuthError) {
                _ = try await endpoint.exchange(response, for: request)
            } catch {
                replayRefused = error.code == .invalidGrant
            }
            return (
                profile.email == email && replayRefused,
                "GET /oauth/authorize with an S256 challenge → code at \(receiver.redirectURI.absoluteString) (state checked) → exchanged once with the verifier → GET /user/profile → \(profile.displayName); the same code again: invalid_grant"
            )
        }

        await self.dpopSteps(world, results)
        await self.pinRotationSteps(world, results)
        await self.sessionModelSteps(world, results)
    }

    /// 10–11: tokens bound to a key (RFC 9449), and what a thief can do with a copy.
    private func dpopSteps(_ world: DemoWorld, _ results: DemoResults) async {
        let session = NIOLockedValueBox<(SecureAPIClient, DPoPKey)?>(nil)
        await results.check(.dpopBoundRequest, "DPoP-bound request") {
            // The key lives in the encrypted file store, like the tokens.
            let key = try await DPoPKey.stored(in: world.store)
            let client = try SecureAPIClient(
                configuration: try world.configuration(dpop: DPoPSigner(key: key, now: { world.clock.now }))
            )
            session.withLockedValue { $0 = (client, key) }
            let bundle = try await client.signIn(world.loginRequest)
            let profile = try await client.send(Request<DemoProfile>.get("user/profile"))
            let accepted = world.server.statistics.dpopProofsAccepted
            return (
                bundle.tokenType == "DPoP" && profile.email == DemoWorld.email && accepted == 2,
                "sign-in with a proof by a P-256 key (jkt \(key.thumbprint.prefix(12))…, kept in the encrypted store) → token_type DPoP, bound to the key; GET /user/profile with Authorization: DPoP and a proof signed over GET, the URL and the token → \(profile.displayName) (\(accepted) proofs accepted)"
            )
        }
        await results.check(.stolenDPoPTokenRefused, "stolen DPoP token refused") {
            let (client, _) = try requireValue(session.withLockedValue { $0 }, "no DPoP session")
            let stolen = try requireValue(await client.tokens?.currentBundle(), "no DPoP session")
            let url = world.server.baseURL.appendingPathComponent("user/profile")
            var request = HTTPRequest(method: .get, url: url)
            // The thief sends the copied token as a bearer token, then with a proof of its own key.
            request.headerFields[.authorization] = "Bearer \(stolen.accessToken)"
            let asBearer = try await client.transport.send(request).response.status.code
            request.headerFields[.authorization] = "DPoP \(stolen.accessToken)"
            request.headerFields[DPoPSigner.headerName] = try DPoPSigner(key: DPoPKey(), now: { world.clock.now })
                .proof(for: request, accessToken: stolen.accessToken)
            let withOwnKey = try await client.transport.send(request).response.status.code
            // And the copied refresh token, with the thief's key: refused before it is spent.
            let thiefEndpoint = OAuthTokenEndpoint(
                url: world.server.baseURL.appendingPathComponent("oauth/token"),
                transport: client.transport,
                client: .publicClient(id: DemoWorld.clientID),
                dpop: DPoPSigner(key: DPoPKey(), now: { world.clock.now })
            )
            let stolenRefreshToken = try requireValue(stolen.refreshToken, "no refresh token")
            var refreshRefused = false
            do throws(TokenAuthError) {
                _ = try await thiefEndpoint.refresh(using: stolenRefreshToken)
            } catch {
                refreshRefused = error.code == .invalidGrant
            }
            let ownerStillServed =
                try await client.send(Request<DemoProfile>.get("user/profile")).email == DemoWorld.email
            let misuses = world.server.statistics.boundTokenMisuses
            return (
                asBearer == 401 && withOwnKey == 401 && refreshRefused && ownerStillServed && misuses == 2,
                "the copied access token as Bearer → \(asBearer), as DPoP with another key's proof → \(withOwnKey); the copied refresh token with another key → invalid_grant; the owner's next request → 200"
            )
        }
        await session.withLockedValue { $0 }?.0.shutdown()
    }
}

struct DemoProfile: Decodable, Sendable {
    var email: String
    var displayName: String
}

struct DemoWhoAmI: Decodable, Sendable {
    var subject: String
}

struct DemoEcho: Decodable, Sendable {
    var method: String
}

/// `try requireValue(x, "why")`: unwraps or throws a demo failure.
func requireValue<T>(_ value: T?, _ reason: String) throws -> T {
    guard let value else { throw DemoFailure(reason) }
    return value
}

struct DemoFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension Pin {
    /// `sha256/abcd…` (the first 12 characters of the digest), for one-line output.
    var shortDescription: String { "sha256/\(self.base64.prefix(12))…" }
}
#endif
