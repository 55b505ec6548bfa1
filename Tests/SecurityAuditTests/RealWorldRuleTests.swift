#if Tools
import Foundation
import SecurityAudit
import Testing

/// The rule behaviours issue 39 asked for after `securenet audit` was run on ten open-source iOS
/// apps: each case is the shape of a false positive or a miss found there (the app is named in
/// the comment), written here as a small example, with its true side beside it.
@Suite("Audit rules on real-world shapes")
struct RealWorldRuleTests {
    // MARK: Test code

    @Test(
        "files in test targets, mocks and previews are test code",
        arguments: [
            ("AppTests/LoginTests.swift", true), ("App/Tests/Helpers.swift", true), ("AppUITests/Flow.swift", true),
            ("App/Mocks/Server.swift", true), ("App/Preview Content/Data.swift", true),
            ("App/Networking/MockURLProtocol.swift", true), ("App/Views/Login+Preview.swift", true),
            ("App/Networking/APIClient.swift", false), ("App/Testimonials/View.swift", false),
            ("App/Contest.swift", false), ("Sources/Latest/Feed.swift", false),
        ]
    )
    func testLocations(path: String, isTest: Bool) {
        let source = #"let url = URL(string: "http://api.shop-backend.io/v1")"#
        let report = SecurityAuditor().audit(swiftSource: source, path: path)
        #expect(report.findings.count == (isTest ? 0 : 1), "\(path)")
        #expect(report.testCodeFindings.count == (isTest ? 1 : 0), "\(path)")
        let included = SecurityAuditor(includesTestCode: true).audit(swiftSource: source, path: path)
        #expect(included.findings.map(\.context) == [isTest ? .test : .shipping], "\(path)")
    }

    @Test("XCTest and swift-testing imports, #Preview, PreviewProvider and @Test mark test code")
    func testDeclarations() {
        let imports = """
            @testable import App
            let password = "hunter22"
            """
        #expect(SecurityAuditor().audit(swiftSource: imports, path: "A.swift").findings.isEmpty)
        #expect(
            SecurityAuditor().audit(swiftSource: imports, path: "A.swift").testCodeFindings.map(\.ruleID) == ["SN012"]
        )
        let previews = """
            struct LoginView: View { var body: some View { Text("x") } }
            #Preview { LoginView(url: URL(string: "http://staging.shop-backend.io")!) }
            struct LoginView_Previews: PreviewProvider {
                static var previews: some View { LoginView(url: URL(string: "http://staging.shop-backend.io")!) }
            }
            @Test func login() { _ = URL(string: "http://staging.shop-backend.io") }
            let shipped = URL(string: "http://api.shop-backend.io")
            """
        let report = SecurityAuditor(includesTestCode: true).audit(swiftSource: previews, path: "LoginView.swift")
        #expect(
            report.findings.map { "\($0.line):\($0.context.rawValue)" } == ["2:test", "4:test", "6:test", "7:shipping"]
        )
    }

    @Test("the text report counts test-code findings it does not list, and names conditional branches")
    func textReport() {
        let source = """
            #if DEBUG
            let debugURL = URL(string: "http://debug.shop-backend.io")
            #else
            let releaseURL = URL(string: "http://api.shop-backend.io")
            #endif
            """
        // The DEBUG branch is compiled out of release builds: it is debug-only code, set aside.
        let report = SecurityAuditor().audit(swiftSource: source, path: "Config.swift")
        #expect(report.findings.map(\.condition) == ["#else of #if DEBUG"])
        #expect(report.testCodeFindings.map(\.condition) == ["#if DEBUG"])
        #expect(report.text().contains("(inside #else of #if DEBUG) [SN005"))
        let all = SecurityAuditor(includesTestCode: true).audit(swiftSource: source, path: "Config.swift")
        #expect(all.text().contains("(debug-only; inside #if DEBUG) [SN005"))
        let tests = SecurityAuditor().audit(swiftSource: source, path: "AppTests/ConfigTests.swift")
        #expect(tests.findings.isEmpty)
        #expect(
            tests.text().contains(
                "2 more findings in test, preview, mock and debug-only code not shown (--include-tests lists them)"
            )
        )
    }

    @Test("a test-code finding round-trips through JSON with its context")
    func jsonContext() throws {
        let report = SecurityAuditor(includesTestCode: true).audit(
            swiftSource: #"let u = "http://api.shop-backend.io""#,
            path: "AppTests/T.swift"
        )
        let decoded = try JSONDecoder().decode(AuditReport.self, from: report.json())
        #expect(decoded.findings.map(\.context) == [.test])
        #expect(decoded == report)
    }

    // MARK: SN005

    @Test("reserved names, private and link-local addresses and namespaces are not cleartext findings")
    func reservedHosts() {
        let source = """
            let a = "http://api.example.com/v1"
            let b = "http://www.example.org"
            let c = "http://server.test/x"
            let d = "http://host.invalid"
            let e = "http://10.0.0.12:8080/api"
            let f = "http://192.168.1.1/"
            let g = "http://172.20.0.5"
            let h = "http://169.254.169.254/latest/meta-data"
            let i = "http://[fe80::1%en0]:80/"
            let j = "http://router.home.arpa/"
            let k = "http://jabber.org/protocol/muc"
            let l = "http://joinmastodon.org/ns#"
            let m = "http://172.32.0.5/"
            let n = "http://example.com.attacker.io/"
            let o = "http://192.0.2.10/"
            let p = "http://8.8.8.8/"
            let q = "http://mastodonexample3xyzq4b.onion/"
            let r = URL(string: "http://maps.apple.com/?ll=\\(coordinate)")
            """
        #expect(swiftFindings(source) == ["SN005@13", "SN005@14", "SN005@16"])
    }

    // MARK: SN007

    @Test("identifiers named token but meaning something else are judged by their use")
    func tokensThatAreNotCredentials() {
        let source = """
            print("joined room \\(room.token)")
            print("server change token \\(serverChangeToken)")
            func f(token: CKServerChangeToken) { print("saved \\(token)") }
            func g(token: String) { print("saved \\(token)") }
            log.info("signaling session \\(call.sessionId)")
            log.info("hash \\(tokenHash)")
            log.info("hash \\(hashedToken)")
            print("user token \\(user.token)")
            Log.verbose("push token: \\(deviceToken)")
            DDLogDebug("refresh with \\(refreshToken)")
            print("cookies: \\(HTTPCookieStorage.shared.cookies ?? [])")
            print("cookie \\(cookie.value)")
            print("cookie policy \\(cookiePolicy)")
            print(request.value(forHTTPHeaderField: "Cookie") ?? "")
            print("\\(notificationToken)")
            """
        #expect(
            swiftFindings(source) == [
                "SN007@4", "SN007@8", "SN007@9", "SN007@10", "SN007@11", "SN007@12", "SN007@14",
            ]
        )
    }

    @Test("a value of a type of this file that holds a token is a secret when logged")
    func loggedSecretHoldingType() {
        let source = """
            struct AuthSession: Codable { let accessToken: String; let refreshToken: String }
            struct Room { let name: String }
            func debug(session: AuthSession, room: Room) {
                print("session \\(session)")
                print("room \\(room)")
            }
            """
        #expect(swiftFindings(source) == ["SN007@4"])
    }

    // MARK: SN006

    @Test("key constants are followed to their value, and stored values to what they were built from")
    func userDefaultsDataFlow() {
        // nextcloud/ios-style app-group defaults: tokens JSON-encoded under a neutral key constant.
        let source = """
            enum Keys { static let session = "accessTokenData"; static let theme = "theme" }
            struct Tokens: Codable { let access: String; let refreshToken: String }
            struct Settings: Codable { let theme: String }
            func save(tokens: Tokens, settings: Settings) throws {
                let groupDefaults = UserDefaults(suiteName: "group.app")!
                let data = try JSONEncoder().encode(tokens)
                groupDefaults.set(data, forKey: "blob")
                groupDefaults.set(0, forKey: Keys.session)
                let other = try JSONEncoder().encode(settings)
                groupDefaults.set(other, forKey: Keys.theme)
                groupDefaults.set(try JSONEncoder().encode(tokens), forKey: "t")
            }
            """
        #expect(swiftFindings(source) == ["SN006@7", "SN006@8", "SN006@11"])
    }

    // MARK: SN012

    @Test("a secret must hold a secret: key names, reverse-DNS ids and identifiers are not credentials")
    func credentialsHoldSecrets() {
        let source = """
            static let accessToken = "accessToken"
            static let refreshTokenKey = "refresh_token"
            let keychainPassword = "com.shop.app.keychain.password"
            let passwordField = "loginPasswordTextField"
            let password = "login-password-field"
            let apiToken = "Xk29fLq0Zp7Rt3Vb8Nw1"
            let password2 = "hunter22"
            let clientSecret = "client_secret"
            """
        #expect(swiftFindings(source) == ["SN012@6", "SN012@7"])
    }

    // MARK: SN013

    @Test("weak randomness judged by what the function or property produces")
    func randomnessByPurpose() {
        let source = """
            func makeNonce() -> String { String(arc4random()) }
            var salt: UInt32 { arc4random() }
            func randomColorIndex() -> UInt32 { arc4random_uniform(5) }
            func retryJitter() -> UInt32 {
                return arc4random_uniform(1000)
            }
            func generateSalt() -> UInt32 {
                return arc4random()
            }
            """
        #expect(swiftFindings(source) == ["SN013@1", "SN013@2", "SN013@8"])
    }

    // MARK: SN008

    @Test("certificate acceptance is judged by what a challenge handler does, whatever its name")
    func challengeHandlersByBehaviour() {
        // A WebDAV client's helper (not named like validation) that accepts any certificate.
        let helper = """
            final class WebDAVClient {
                func handle(_ challenge: URLAuthenticationChallenge,
                            completion: (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
                    if let trust = challenge.protectionSpace.serverTrust {
                        completion(.useCredential, URLCredential(trust: trust))
                    }
                }
            }
            """
        #expect(swiftFindings(helper) == ["SN008@5"])
        // talk-ios: the answer is guarded by a check the challenge is given to (the leaf compared
        // with certificates the user accepted), in an `if` or a `guard`.
        let guarded = """
            func urlSession(_ s: URLSession, didReceive challenge: URLAuthenticationChallenge,
                            completionHandler: @escaping (Disposition, URLCredential?) -> Void) {
                if CCCertificate.sharedManager().checkTrustedChallenge(challenge) {
                    completionHandler(.useCredential, URLCredential(trust: challenge.protectionSpace.serverTrust!))
                } else {
                    completionHandler(.performDefaultHandling, nil)
                }
            }
            func accept(_ challenge: URLAuthenticationChallenge) -> URLCredential? {
                guard store.isAccepted(challenge.protectionSpace.serverTrust) else { return nil }
                return URLCredential(trust: challenge.protectionSpace.serverTrust!)
            }
            """
        #expect(swiftFindings(guarded) == [])
        // home-assistant: exceptions the user approved, then a real evaluation; the classic bypass
        // copies the failing trust's own exceptions back.
        let exceptions = """
            func evaluate(_ trust: SecTrust, saved: Data) -> Bool {
                SecTrustSetExceptions(trust, saved as CFData)
                return SecTrustEvaluateWithError(trust, nil)
            }
            func bypass(_ trust: SecTrust) -> Bool {
                SecTrustSetExceptions(trust, SecTrustCopyExceptions(trust))
                return SecTrustEvaluateWithError(trust, nil)
            }
            """
        #expect(swiftFindings(exceptions) == ["SN008@6"])
    }

    // MARK: SN007 with os.Logger

    @Test("os.Logger redacts interpolations unless they are public; swift-log and print do not")
    func osLoggerPrivacy() {
        let osLog = """
            import OSLog
            func f(cookie: HTTPCookie, token: String) {
                Logger.general.debug("read cookie \\(cookie.value)")
                Logger.general.debug("token \\(token, privacy: .public)")
                print("token \\(token)")
            }
            """
        #expect(swiftFindings(osLog) == ["SN007@4", "SN007@5"])
        let swiftLog = """
            import Logging
            func f(token: String) { Logger(label: "x").info("token \\(token)") }
            """
        #expect(swiftFindings(swiftLog) == ["SN007@2"])
    }

    @Test("a token parameter is judged by its function: a room's or a call's token is no credential")
    func parameterQualifiedByFunction() {
        let source = """
            func joinRoom(_ token: String) { NCLog.log("Joining room \\(token)") }
            func reportIncomingCall(_ token: String) { log.info("call \\(token)") }
            func signIn(_ token: String) { log.info("signing in with \\(token)") }
            """
        #expect(swiftFindings(source) == ["SN007@3"])
    }

    // MARK: SN011

    @Test("a cache-preferring policy on a request to the app's API is reported; on other requests it is not")
    func cachePolicyByPurpose() {
        let source = """
            func profile() -> URLRequest {
                var request = URLRequest(url: apiBaseURL.appendingPathComponent("me"))
                request.cachePolicy = .returnCacheDataElseLoad
                return request
            }
            func avatar(url: URL) -> URLRequest {
                var request = URLRequest(url: url)
                request.cachePolicy = .returnCacheDataElseLoad
                return request
            }
            """
        #expect(swiftFindings(source) == ["SN011@3"])
    }

    // MARK: From the corpus run at 3734695

    @Test("a hash, a count or a comparison of a secret is not the secret; a change token stays one")
    func derivedValues() {
        // home-assistant's TokenManager logs `.hash`; its camera server logs whether a password matched.
        let logs = """
            func f(tokenInfo: TokenInfo, password: String, parsed: Credentials?) {
                log.info("providing token \\($0.accessToken.hash)")
                log.error("Token \\(tokenInfo.accessToken.hash) was rejected")
                log.error("passMatch: \\(parsed?.password == password), empty: \\(password.isEmpty)")
                log.error("token \\(tokenInfo.accessToken)")
            }
            """
        #expect(swiftFindings(logs) == ["SN007@5"])
        // NetNewsWire archives a CKServerChangeToken under a key built at run time.
        let changeToken = """
            var changeToken: CKServerChangeToken? {
                get { nil }
                set {
                    guard let token = newValue, let data = try? NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: false) else { return }
                    UserDefaults.standard.set(data, forKey: changeTokenKey)
                }
            }
            var session: String? {
                get { nil }
                set {
                    guard let token = newValue, let data = token.data(using: .utf8) else { return }
                    UserDefaults.standard.set(data, forKey: "blob")
                }
            }
            func mark(tag: String) { defaults.set(Array(tags), forKey: "liveActivityReportedTokenTags") }
            """
        #expect(swiftFindings(changeToken) == ["SN006@12"])
    }

    @Test("a generic token or session id is judged by its type, its function and what it was bound from")
    func genericNamesInContext() {
        // talk-ios: room tokens bound from a call, signalling session ids in a call controller.
        let source = """
            final class CallKitManager {
                func answer(_ action: CXAnswerCallAction) {
                    if let call = calls[action.callUUID], let token = call.token {
                        NCLog.log("answer call action for token \\(token)")
                    }
                }
            }
            final class NCCallController {
                func requestNewOffer(_ timer: Timer) {
                    guard let sessionId = timer.userInfo as? String else { return }
                    print("Re-requesting an offer to session \\(sessionId)")
                }
            }
            final class NCCallController2 {
                func signIn(accessToken: String) { print("signing in \\(accessToken)") }
            }
            final class LoginController {
                func finish(token: String) { print("token \\(token)") }
            }
            """
        #expect(swiftFindings(source) == ["SN007@15", "SN007@18"])
        let defaults = """
            defaults.set(newValue, forKey: Keys.autofillCredentialsEnabled)
            defaults.set(count, forKey: "applock-failed-passcode-attempts")
            defaults.set(value, forKey: "refresh_token")
            """
        #expect(swiftFindings(defaults) == ["SN006@3"])
    }

    @Test("the body of a run-time debug-configuration check is debug-only; its else branch ships")
    func runtimeDebugChecks() {
        let source = """
            if Current.appConfiguration == .debug {
                servers.append(URL(string: "http://httpbin.org/digest-auth/a")!)
            } else {
                servers.append(URL(string: "http://api.shop-backend.io")!)
            }
            if isDebugBuild { _ = URL(string: "http://staging.shop-backend.io") }
            if isDebugBuild && flag { _ = URL(string: "http://staging2.shop-backend.io") }
            """
        let report = SecurityAuditor(includesTestCode: true).audit(swiftSource: source, path: "Servers.swift")
        #expect(
            report.findings.map { "\($0.line):\($0.context.rawValue)" } == [
                "2:test", "4:shipping", "6:test", "7:shipping",
            ]
        )
    }

    @Test("a token named for sync is still a credential when the function signs in with it; an auth code is a secret")
    func judgedByUse() {
        // simplenote-ios MagicLinkAuthenticator: the Simperium "sync token" is the login token.
        let source = """
            func confirm(email: String, authCode: String) async throws {
                NSLog("Requesting SyncToken for \\(email) and \\(authCode)")
                let confirmation = try await remote.requestLoginConfirmation(email: email, authCode: authCode)
                NSLog("Should auth with token \\(confirmation.syncToken)")
                authenticator.authenticate(withUsername: confirmation.username, token: confirmation.syncToken)
            }
            func fetch(zone: Zone) {
                print("next page \\(response.pageToken)")
                api.fetchRecords(zone: zone, pageToken: response.pageToken)
            }
            """
        #expect(swiftFindings(source) == ["SN007@2", "SN007@4"])
    }
}
#endif
