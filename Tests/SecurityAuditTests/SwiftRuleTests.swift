#if Tools
import Foundation
import SecurityAudit
import Testing

@Suite("Swift rules")
struct SwiftRuleTests {
    @Test("SN005 cleartext URLs: remote http is reported; https, local hosts and namespaces are not")
    func cleartextURL() {
        let source = """
            let a = URL(string: "http://api.backend.com/v1")
            let b = URL(string: "https://api.backend.com/v1")
            let c = "http://localhost:8080"
            let d = "http://127.0.0.2/x"
            let e = "http://[::1]:3000/"
            let f = "http://printer.local/status"
            let g = "http://www.w3.org/2000/svg"
            let h = "http://\\(host)/path"
            let i = url.hasPrefix("http://")
            let j = "HTTP://BACKEND.ORG"
            let k = "http://ns.adobe.com/xap/1.0/"
            let l = "see http://backend.com"
            let m = "http://api.backend.com/users/\\(id)"
            let n = "http://api.\\(domain)/"
            """
        #expect(swiftFindings(source) == ["SN005@1", "SN005@10", "SN005@13"])
    }

    @Test("SN006 secrets in UserDefaults, @AppStorage and plist files")
    func userDefaults() {
        let source = """
            UserDefaults.standard.set(token, forKey: "authToken")
            UserDefaults.standard.set(true, forKey: "hasSeenOnboarding")
            defaults.setValue(pw, forKey: "password")
            sharedDefaults.set(value, forKey: Keys.refreshToken)
            keychain.set(token, forKey: "authToken")
            UserDefaults.standard.set(accessToken, forKey: "lastUser")
            UserDefaults.standard.set(date, forKey: "tokenExpiry")
            struct V { @AppStorage("sessionID") var session = ""; @AppStorage("theme") var theme = "" }
            try PropertyListEncoder().encode(credentials).write(to: url)
            try PropertyListEncoder().encode(settings).write(to: url)
            let data = try PropertyListSerialization.data(fromPropertyList: ["api_key": key], format: .xml, options: 0)
            UserDefaults.standard.set(tokenizerVersion, forKey: "tokenizer")
            """
        #expect(
            swiftFindings(source) == [
                "SN006@1", "SN006@3", "SN006@4", "SN006@6", "SN006@8", "SN006@9", "SN006@11",
            ]
        )
    }

    @Test("SN007 secrets in logs, honouring explicit Logger privacy")
    func logging() {
        let source = """
            print("token: \\(token)")
            print("token refreshed")
            debugPrint(user.password)
            logger.info("\\(token, privacy: .public)")
            logger.info("\\(token, privacy: .private)")
            logger.error("\\(token, privacy: .sensitive)")
            logger.info("\\(token, privacy: .private(mask: .hash))")
            Logger().debug("auth: \\(request.value(forHTTPHeaderField: "Authorization") ?? "")")
            logger.notice("\\(authorization)")
            NSLog("%@", request.allHTTPHeaderFields ?? [:])
            os_log("token %{public}@", log: log, token)
            os_log("token %{private}@", log: log, token)
            print("length \\(token.count)")
            print("Authorization")
            print(redact(token))
            logger.info("user \\(userName, privacy: .public)")
            """
        #expect(
            swiftFindings(source) == [
                "SN007@1", "SN007@3", "SN007@4", "SN007@8", "SN007@9", "SN007@10", "SN007@11",
            ]
        )
    }

    @Test("SN008 URLCredential(trust:) without evaluation; evaluated delegates pass")
    func trustWithoutEvaluation() {
        let bad = """
            final class D: NSObject, URLSessionDelegate {
                func urlSession(_ s: URLSession, didReceive challenge: URLAuthenticationChallenge,
                                completionHandler: @escaping (Disposition, URLCredential?) -> Void) {
                    completionHandler(.useCredential, URLCredential(trust: challenge.protectionSpace.serverTrust!))
                }
            }
            """
        #expect(swiftFindings(bad) == ["SN008@4"])
        let good = """
            final class D: NSObject, URLSessionDelegate {
                func urlSession(_ s: URLSession, didReceive challenge: URLAuthenticationChallenge) async
                    -> (URLSession.AuthChallengeDisposition, URLCredential?) {
                    guard let trust = challenge.protectionSpace.serverTrust,
                          SecTrustEvaluateWithError(trust, nil) else {
                        return (.cancelAuthenticationChallenge, nil)
                    }
                    return (.useCredential, URLCredential(trust: trust))
                }
            }
            """
        #expect(swiftFindings(good) == [])
        let otherMethod = """
            func makeCredential(trust: SecTrust) -> URLCredential { URLCredential(trust: trust) }
            """
        #expect(swiftFindings(otherMethod) == [])
    }

    @Test("SN008 .performDefaultHandling only in the failure branch of a pin check")
    func performDefaultHandlingAfterPinFailure() {
        let source = """
            func urlSession(_ s: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                            completionHandler: @escaping (Disposition, URLCredential?) -> Void) {
                guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
                      let trust = challenge.protectionSpace.serverTrust else {
                    completionHandler(.performDefaultHandling, nil)
                    return
                }
                if pinValidator.matches(trust) {
                    completionHandler(.useCredential, URLCredential(trust: trust))
                } else {
                    completionHandler(.performDefaultHandling, nil)
                }
                if !isPinned(trust) {
                    completionHandler(.performDefaultHandling, nil)
                }
                if isPinned(trust) {
                    completionHandler(.performDefaultHandling, nil)
                }
            }
            """
        #expect(swiftFindings(source) == ["SN008@11", "SN008@14"])
    }

    @Test("SN008 Alamofire evaluators, validateHost, expired certificates, SecTrustSetExceptions")
    func trustShortcuts() {
        let source = """
            let a = DisabledTrustEvaluator()
            let b = DefaultTrustEvaluator()
            let c = DisabledEvaluator()
            let d = PublicKeysTrustEvaluator(validateHost: false)
            let e = PublicKeysTrustEvaluator(validateHost: true)
            let f = RevocationTrustEvaluator(allowsExpiredCertificates: true)
            evaluator.allowsExpiredCertificates = true
            evaluator.allowsExpiredCertificates = false
            SecTrustSetExceptions(trust, exceptions)
            """
        #expect(swiftFindings(source) == ["SN008@1", "SN008@3", "SN008@4", "SN008@6", "SN008@7", "SN008@9"])
    }

    @Test("SN009 kSecAttrAccessibleAlways variants only")
    func keychainAccessibility() {
        let source = """
            let q1 = [kSecAttrAccessible: kSecAttrAccessibleAlways]
            let q2 = [kSecAttrAccessible: kSecAttrAccessibleAlwaysThisDeviceOnly]
            let q3 = [kSecAttrAccessible: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly]
            let q4 = [kSecAttrAccessible: kSecAttrAccessibleWhenUnlocked]
            """
        #expect(swiftFindings(source) == ["SN009@1", "SN009@2"])
    }

    @Test("SN010 MD5/SHA-1 and unsalted SHA-2 over passwords; other data and KDFs pass")
    func weakPasswordHash() {
        let source = """
            let a = Insecure.MD5.hash(data: Data(password.utf8))
            let b = Insecure.SHA1.hash(data: passwordData)
            let c = Insecure.MD5.hash(data: fileData)
            CC_MD5(passwordBytes, CC_LONG(length), &digest)
            CC_SHA1(body, CC_LONG(length), &digest)
            let d = SHA512.hash(data: Data(password.utf8))
            let e = SHA256.hash(data: Data((password + salt).utf8))
            let f = SHA256.hash(data: fileData)
            let g = try PasswordHasher.pbkdf2(password: password, salt: salt, rounds: 600_000)
            let h = SHA256.hash(data: Data(passwordHint.utf8))
            """
        #expect(swiftFindings(source) == ["SN010@1", "SN010@2", "SN010@4", "SN010@6"])
    }

    @Test("SN011 caching only where the scope sets an Authorization header")
    func cachingAuthenticatedResponses() {
        let source = """
            func authenticated(token: String) -> URLRequest {
                var request = URLRequest(url: url)
                request.setValue("Bearer \\(token)", forHTTPHeaderField: "Authorization")
                request.cachePolicy = .returnCacheDataElseLoad
                return request
            }
            func publicImages() -> URLRequest {
                var request = URLRequest(url: url)
                request.cachePolicy = .returnCacheDataDontLoad
                return request
            }
            final class Client {
                let headers = ["Authorization": "Bearer x"]
                func configure(_ c: URLSessionConfiguration) {
                    c.urlCache = URLCache.shared
                    c.requestCachePolicy = .reloadIgnoringLocalCacheData
                }
                func reset(_ c: URLSessionConfiguration) {
                    c.urlCache = nil
                    URLCache.shared.removeAllCachedResponses()
                }
            }
            """
        #expect(swiftFindings(source) == ["SN011@4", "SN011@15"])
    }

    @Test("SN012 credentials: known formats and high-entropy literals bound to secret names")
    func hardcodedCredentials() {
        let source = """
            let apiKey = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
            let tokenHeaderName = "Authorization"
            let password = ""
            let apiKey2 = ProcessInfo.processInfo.environment["API_KEY"]
            let clientSecret = "Zx9Qw3Er7Ty1Ui5Op2As8Df4Gh6Jk0Lm"
            let buildIdentifier = "Zx9Qw3Er7Ty1Ui5Op2As8Df4Gh6Jk0Lm"
            let params = ["client_secret": "Zx9Qw3Er7Ty1Ui5Op2As8Df4Gh6Jk0Lm", "grant_type": "client_credentials"]
            let client = Client(apiKey: "Zx9Qw3Er7Ty1Ui5Op2As8Df4Gh6Jk0Lm")
            let aws = "AKIAIOSFODNN7EXAMPLE"
            let adminPassword = "hunter22"
            let privateKey = try keychain.load("signing")
            let token = "aaaaaaaaaaaaaaaaaaaaaaaa"
            config.accessToken = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
            let placeholder = "YOUR_API_KEY_HERE"
            let privateKeyPEM = "securenet-intercept-ca-key.pem"
            client.clientSecret = "Zx9Qw3Er7Ty1Ui5Op2As8Df4Gh6Jk0Lm"
            client.clientName = "Zx9Qw3Er7Ty1Ui5Op2As8Df4Gh6Jk0Lm"
            """
        #expect(
            swiftFindings(source) == [
                "SN012@1", "SN012@5", "SN012@7", "SN012@8", "SN012@9", "SN012@10", "SN012@13", "SN012@16",
            ]
        )
    }

    @Test("SN013 insecure randomness only when it produces key material")
    func insecureRandom() {
        let source = """
            let nonce = (0..<12).map { _ in UInt8(arc4random_uniform(256)) }
            let delay = Double(arc4random_uniform(100)) / 100
            var iv = [UInt8](repeating: 0, count: 16); iv[0] = UInt8(rand() % 256)
            let otpCode = String(format: "%06d", random() % 1_000_000)
            let salt = (0..<16).map { _ in UInt8.random(in: 0...255) }
            let key = SymmetricKey(size: .bits256)
            let index = Int(arc4random()) % items.count
            let sessionToken = makeToken(seed: drand48())
            """
        #expect(swiftFindings(source) == ["SN013@1", "SN013@3", "SN013@4", "SN013@8"])
    }

    @Test("SN014 TrustKit pin sets with a single hash")
    func trustKitPins() {
        let source = """
            let config = [
                "a.backend.com": [kTSKPublicKeyHashes: ["hash1"]],
                "b.backend.com": [kTSKPublicKeyHashes: ["hash1", "hash2"]],
            ]
            """
        #expect(swiftFindings(source) == ["SN014@2"])
    }

    @Test("locations are 1-based line and UTF-8 column")
    func location() throws {
        let report = SecurityAuditor().audit(swiftSource: "// é\n    let u = \"http://e.com\"\n", path: "A.swift")
        let finding = try #require(report.findings.first)
        #expect(finding.line == 2)
        #expect(finding.column == 13)
        #expect(finding.path == "A.swift")
        #expect(finding.ruleID == "SN005")
        #expect(finding.severity == .medium)
        #expect(finding.message == "cleartext URL to e.com can be read and altered on the network")
    }
}
#endif
