#if Tools
import Foundation
import SecurityAudit
import Testing

/// Audits Objective-C source and returns `rule@line:column` of the unsuppressed shipping findings.
private func objectiveCFindings(_ source: String, path: String = "Client.m") -> [String] {
    SecurityAuditor().audit(objectiveCSource: source, path: path).findings.map {
        "\($0.ruleID)@\($0.line):\($0.column)"
    }
}

@Suite("Objective-C rules")
struct ObjectiveCRuleTests {
    // MARK: SN008

    @Test("SN008: a challenge handler answering with credentialForTrust: and no evaluation is reported")
    func trustAcceptedWithoutEvaluation() throws {
        // The shape of many hand-written WebDAV and chat clients' NSURLSession delegates.
        let source = """
            - (void)URLSession:(NSURLSession *)session
            didReceiveChallenge:(NSURLAuthenticationChallenge *)challenge
             completionHandler:(void (^)(NSURLSessionAuthChallengeDisposition, NSURLCredential *))completionHandler
            {
                if ([challenge.protectionSpace.authenticationMethod isEqualToString:NSURLAuthenticationMethodServerTrust]) {
                    completionHandler(NSURLSessionAuthChallengeUseCredential, [NSURLCredential credentialForTrust:challenge.protectionSpace.serverTrust]);
                    return;
                }
                completionHandler(NSURLSessionAuthChallengePerformDefaultHandling, nil);
            }
            """
        let report = SecurityAuditor().audit(objectiveCSource: source, path: "WebDAVClient.m")
        #expect(report.findings.map { "\($0.ruleID)@\($0.line):\($0.column)" } == ["SN008@6:67"])
        let finding = try #require(report.findings.first)
        #expect(finding.severity == .high)
        #expect(
            finding.message
                == "[NSURLCredential credentialForTrust:] answers the challenge without evaluating the server trust "
                + "on this path"
        )
    }

    @Test("SN008: a helper in the same file that does not evaluate is no check; one that does is")
    func sameFileHelpers() {
        let accepting = """
            static BOOL HostIsKnown(NSURLProtectionSpace *space) {
                return [space.host hasSuffix:@".corp.internal"];
            }

            - (void)connection:(NSURLConnection *)connection willSendRequestForAuthenticationChallenge:(NSURLAuthenticationChallenge *)challenge
            {
                if (HostIsKnown(challenge.protectionSpace)) {
                    [challenge.sender useCredential:[NSURLCredential credentialForTrust:challenge.protectionSpace.serverTrust]
                         forAuthenticationChallenge:challenge];
                }
            }
            """
        #expect(objectiveCFindings(accepting) == ["SN008@8:41"])

        let evaluating = """
            - (void)URLSession:(NSURLSession *)session didReceiveChallenge:(NSURLAuthenticationChallenge *)challenge
             completionHandler:(void (^)(NSURLSessionAuthChallengeDisposition, NSURLCredential *))completionHandler
            {
                SecTrustRef serverTrust = challenge.protectionSpace.serverTrust;
                if ([self isTrusted:serverTrust]) {
                    completionHandler(NSURLSessionAuthChallengeUseCredential, [NSURLCredential credentialForTrust:serverTrust]);
                } else {
                    completionHandler(NSURLSessionAuthChallengeCancelAuthenticationChallenge, nil);
                }
            }

            - (BOOL)isTrusted:(SecTrustRef)trust
            {
                CFErrorRef error = NULL;
                return SecTrustEvaluateWithError(trust, &error);
            }
            """
        #expect(objectiveCFindings(evaluating).isEmpty)
    }

    @Test("SN008: evaluating the trust and using the result, or delegating to a policy object, is not reported")
    func evaluatedTrust() {
        // Modeled on element-hq/element-ios MXKWebViewViewController (evaluates, then switches on the result).
        let evaluated = """
            - (void)URLSession:(NSURLSession *)session didReceiveChallenge:(NSURLAuthenticationChallenge *)challenge
             completionHandler:(void (^)(NSURLSessionAuthChallengeDisposition, NSURLCredential *))completionHandler
            {
                SecTrustRef serverTrust = challenge.protectionSpace.serverTrust;
                CFErrorRef error = NULL;
                if (!SecTrustEvaluateWithError(serverTrust, &error)) {
                    completionHandler(NSURLSessionAuthChallengeCancelAuthenticationChallenge, nil);
                    return;
                }
                NSURLCredential *credential = [NSURLCredential credentialForTrust:serverTrust];
                completionHandler(NSURLSessionAuthChallengeUseCredential, credential);
            }
            """
        #expect(objectiveCFindings(evaluated).isEmpty)
        // Modeled on AFNetworking's AFURLSessionManager: the policy object (another file) judges the trust.
        let delegated = """
            - (void)URLSession:(NSURLSession *)session didReceiveChallenge:(NSURLAuthenticationChallenge *)challenge
             completionHandler:(void (^)(NSURLSessionAuthChallengeDisposition, NSURLCredential *))completionHandler
            {
                NSURLSessionAuthChallengeDisposition disposition = NSURLSessionAuthChallengePerformDefaultHandling;
                NSURLCredential *credential = nil;
                if ([self.securityPolicy evaluateServerTrust:challenge.protectionSpace.serverTrust forDomain:challenge.protectionSpace.host]) {
                    disposition = NSURLSessionAuthChallengeUseCredential;
                    credential = [NSURLCredential credentialForTrust:challenge.protectionSpace.serverTrust];
                }
                completionHandler(disposition, credential);
            }
            """
        #expect(objectiveCFindings(delegated).isEmpty)
        let defaultHandling = """
            - (void)URLSession:(NSURLSession *)session didReceiveChallenge:(NSURLAuthenticationChallenge *)challenge
             completionHandler:(void (^)(NSURLSessionAuthChallengeDisposition, NSURLCredential *))completionHandler
            {
                completionHandler(NSURLSessionAuthChallengePerformDefaultHandling, nil);
            }
            """
        #expect(objectiveCFindings(defaultHandling).isEmpty)
    }

    @Test("SN008: an evaluation whose result is ignored, or that sits in another branch, is no check")
    func ignoredEvaluation() {
        let source = """
            - (void)URLSession:(NSURLSession *)session didReceiveChallenge:(NSURLAuthenticationChallenge *)challenge
             completionHandler:(void (^)(NSURLSessionAuthChallengeDisposition, NSURLCredential *))completionHandler
            {
                SecTrustRef trust = challenge.protectionSpace.serverTrust;
                SecTrustEvaluateWithError(trust, NULL);
                if (self.strict) {
                    CFErrorRef error = NULL;
                    BOOL valid = SecTrustEvaluateWithError(trust, &error);
                    NSLog(@"valid: %d", valid);
                } else {
                    completionHandler(NSURLSessionAuthChallengeUseCredential, [NSURLCredential credentialForTrust:trust]);
                }
            }
            """
        #expect(objectiveCFindings(source) == ["SN008@11:67"])
    }

    @Test("SN008: AFSecurityPolicy, NSURLRequest and CFStream settings that accept any certificate")
    func trustSettings() {
        let source = """
            AFSecurityPolicy *policy = [AFSecurityPolicy policyWithPinningMode:AFSSLPinningModeNone];
            policy.allowInvalidCertificates = YES;
            policy.validatesDomainName = NO;
            [policy setAllowInvalidCertificates:NO];
            policy.validatesDomainName = YES;
            [NSURLRequest setAllowsAnyHTTPSCertificate:YES forHost:url.host];
            NSDictionary *settings = @{ (__bridge id)kCFStreamSSLValidatesCertificateChain: @NO };
            CFDictionarySetValue(sslSettings, kCFStreamSSLValidatesCertificateChain, kCFBooleanFalse);
            [sslSettings setObject:@NO forKey:(NSString *)kCFStreamSSLValidatesCertificateChain];
            NSDictionary *strict = @{ (__bridge id)kCFStreamSSLValidatesCertificateChain: @YES };
            SecTrustSetExceptions(trust, exceptions);
            """
        #expect(
            objectiveCFindings(source) == [
                "SN008@2:8", "SN008@3:8", "SN008@6:15", "SN008@7:42", "SN008@8:35", "SN008@9:47", "SN008@11:1",
            ]
        )
    }

    // MARK: SN006

    @Test(
        "SN006: secrets written to NSUserDefaults, by key literal, key constant or stored variable; not flags, push tokens"
    )
    func userDefaults() throws {
        // Keys modeled on element-hq/element-ios MXKAccountManager (push tokens in standard defaults).
        let source = """
            #define kSharedRefreshKey @"refresh_token"
            static NSString * const kSessionStoreKey = @"com.example.session";

            - (void)store {
                [[NSUserDefaults standardUserDefaults] setObject:authToken forKey:@"auth"];
                NSUserDefaults *sharedDefaults = [[NSUserDefaults alloc] initWithSuiteName:@"group.com.example.app"];
                [sharedDefaults setObject:data forKey:kSharedRefreshKey];
                [sharedDefaults setObject:self.accessToken forKey:kSessionStoreKey];
                [[NSUserDefaults standardUserDefaults] setObject:@"dark" forKey:@"theme"];
                [[NSUserDefaults standardUserDefaults] setBool:YES forKey:@"pushDeviceTokenRegistered"];
                [[NSUserDefaults standardUserDefaults] setObject:@YES forKey:@"hasToken"];
                [[NSUserDefaults standardUserDefaults] setObject:@(count) forKey:kSessionStoreKey];
                [self.keychain setObject:token forKey:@"token"];
                [[NSUserDefaults standardUserDefaults] setObject:pushDeviceToken forKey:@"pushDeviceToken"];
            }
            """
        let report = SecurityAuditor().audit(objectiveCSource: source, path: "Store.m")
        #expect(
            report.findings.map { "\($0.ruleID)@\($0.line):\($0.column)" } == ["SN006@5:5", "SN006@7:5", "SN006@8:5"]
        )
        #expect(
            report.findings.map(\.message) == [
                "'authToken' is written to NSUserDefaults, an unencrypted plist in the app container",
                "'refresh_token' is written to NSUserDefaults, an unencrypted plist in the app container",
                "'accessToken' is written to NSUserDefaults, an unencrypted plist in the app container",
            ]
        )
    }

    // MARK: SN007

    @Test("SN007: tokens, passwords, cookies, push tokens and Authorization headers in NSLog, os_log, DDLog, MXLog")
    func logging() {
        let source = """
            NSLog(@"Logged in with token %@", accessToken);
            DDLogVerbose(@"push token: %@", self.pushToken);
            os_log(OS_LOG_DEFAULT, "password %{public}@", password);
            NSLog(@"auth: %@", [request valueForHTTPHeaderField:@"Authorization"]);
            DDLogInfo(@"refresh %@ for %@", [self.session refreshToken], self.credentials.userId);
            NSLog(@"headers %@", request.allHTTPHeaderFields);
            DDLogWarn(@"session cookie %@", sessionCookie.value);
            MXLogDebug(@"The generated device token string is : %@", deviceTokenString);
            """
        let report = SecurityAuditor().audit(objectiveCSource: source)
        #expect(
            report.findings.map { "\($0.ruleID)@\($0.line):\($0.column)" } == [
                "SN007@1:1", "SN007@2:1", "SN007@3:1", "SN007@4:1", "SN007@5:1", "SN007@6:1", "SN007@7:1",
                "SN007@8:1",
            ]
        )
        #expect(report.findings.first?.message == "NSLog writes 'accessToken' to the log")
        #expect(report.findings.dropFirst(3).first?.message == "NSLog writes 'Authorization header' to the log")
    }

    @Test("SN007: a token's length, hash, presence or redacted form is not a secret in the log")
    func harmlessLogging() {
        let source = """
            NSLog(@"token length %lu", (unsigned long)[accessToken length]);
            NSLog(@"token hash %lu", (unsigned long)accessToken.hash);
            NSLog(@"has token: %@", accessToken ? @"yes" : @"no");
            NSLog(@"has token: %d", accessToken != nil);
            NSLog(@"has token: %d", hasToken);
            DDLogDebug(@"token %@", [self redactedToken:accessToken]);
            os_log(OS_LOG_DEFAULT, "token %{private}@", accessToken);
            NSLog(@"Failed to request email token");
            NSLog(@"%@", [NSString stringWithFormat:@"%@", tokenizer]);
            MXLogDebug(@"[MXKAccount] %@: enable push", self.mxCredentials.userId);
            // element-hq/element-ios MXKAccountManager: the token goes through a truncating helper.
            MXLogDebug(@"[Push] setPushDeviceToken: %@", [MXKTools logForPushToken:pushDeviceToken]);
            [self.client loginWithToken:accessToken];
            """
        #expect(objectiveCFindings(source).isEmpty)
    }

    // MARK: SN009 and SN005

    @Test("SN009: kSecAttrAccessibleAlways and its ThisDeviceOnly variant; SN005 cleartext URL literals")
    func keychainAndCleartext() throws {
        let source = """
            NSDictionary *query = @{
                (__bridge id)kSecClass: (__bridge id)kSecClassGenericPassword,
                (__bridge id)kSecAttrAccessible: (__bridge id)kSecAttrAccessibleAlways,
            };
            SecItemUpdate(q, (__bridge CFDictionaryRef)@{ (__bridge id)kSecAttrAccessible: (__bridge id)kSecAttrAccessibleAlwaysThisDeviceOnly });
            CFTypeRef ok = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly;
            NSURL *api = [NSURL URLWithString:@"http://api.myapp.io/v1"];
            NSString *local = @"http://localhost:8080/";
            NSString *format = [NSString stringWithFormat:@"http://%@/status", host];
            NSString *secure = @"https://api.myapp.io/v1";
            """
        let report = SecurityAuditor().audit(objectiveCSource: source)
        #expect(
            report.findings.map { "\($0.ruleID)@\($0.line):\($0.column)" } == [
                "SN009@3:51", "SN009@5:93", "SN005@7:35",
            ]
        )
        #expect(
            report.findings.first?.message
                == "kSecAttrAccessibleAlways keeps the Keychain item readable while the device is locked"
        )
        #expect(report.findings.last?.message == "cleartext URL to api.myapp.io can be read and altered on the network")
    }

    // MARK: Lexing

    @Test("comments, strings and character literals are not read as code")
    func commentsAndStrings() {
        let source = """
            // completionHandler(NSURLSessionAuthChallengeUseCredential, [NSURLCredential credentialForTrust:t]);
            /* policy.allowInvalidCertificates = YES;
               kSecAttrAccessibleAlways */
            NSString *name = @"kSecAttrAccessibleAlways";
            const char *c = "NSLog(@\\"%@\\", password); \\" kSecAttrAccessibleAlways";
            char quote = '"'; NSString *s = @"/* not a comment */";
            int after = 1; // the next line is code again
            CFTypeRef a = kSecAttrAccessibleAlways;
            """
        #expect(objectiveCFindings(source) == ["SN009@8:15"])
    }

    @Test("findings inside #if / #ifdef branches carry the branch; include guards are not branches")
    func conditions() throws {
        let source = """
            #ifndef Client_h
            #define Client_h
            #ifdef DEBUG
            static CFTypeRef a = kSecAttrAccessibleAlways;
            #elif TARGET_OS_SIMULATOR
            static CFTypeRef b = kSecAttrAccessibleAlways;
            #else
            static CFTypeRef c = kSecAttrAccessibleAlways;
            #if \\
                ENABLE_LOGS // comment
            static CFTypeRef d = kSecAttrAccessibleAlways;
            #endif
            #endif
            static CFTypeRef e = kSecAttrAccessibleAlways;
            #endif
            """
        let report = SecurityAuditor(includesTestCode: true).audit(objectiveCSource: source, path: "Client.h")
        #expect(report.findings.map(\.line) == [4, 6, 8, 11, 14])
        // DEBUG and simulator branches are compiled out of release builds: debug-only, set aside.
        #expect(report.findings.map(\.context) == [.test, .test, .shipping, .shipping, .shipping])
        #expect(SecurityAuditor().audit(objectiveCSource: source, path: "Client.h").testCodeFindings.count == 2)
        #expect(
            report.findings.map(\.condition) == [
                "#ifdef DEBUG", "#elif TARGET_OS_SIMULATOR", "#else of #ifdef DEBUG", "#if ENABLE_LOGS", nil,
            ]
        )
    }

    @Test("XCTest files are test code, by import or by an XCTestCase subclass")
    func testContext() throws {
        let body = """
            - (void)testLogin {
                NSLog(@"token %@", accessToken);
            }
            @end
            """
        for header in [
            "#import <XCTest/XCTest.h>\n@implementation LoginChecks\n",
            "@import XCTest;\n@implementation LoginChecks\n",
            "@interface LoginChecks : XCTestCase\n@end\n@implementation LoginChecks\n",
        ] {
            let report = SecurityAuditor().audit(objectiveCSource: header + body, path: "App/LoginChecks.m")
            #expect(report.findings.isEmpty)
            let finding = try #require(report.testCodeFindings.first)
            #expect(finding.context == .test)
            #expect(finding.ruleID == "SN007")
        }
        let shipping = SecurityAuditor().audit(
            objectiveCSource: "#import <UIKit/UIKit.h>\n@implementation Login\n" + body,
            path: "App/Login.m"
        )
        #expect(shipping.findings.map { "\($0.ruleID)@\($0.line):\($0.column)" } == ["SN007@4:5"])
        #expect(shipping.findings.first?.context == .shipping)
    }

    @Test("// securenet:ignore suppresses an Objective-C finding; one inside a string does not")
    func suppression() throws {
        let source = """
            NSLog(@"token %@", token); // securenet:ignore SN007 debug-only build flag checked by the caller
            NSLog(@"// securenet:ignore SN007 not a comment %@", token);
            """
        let report = SecurityAuditor().audit(objectiveCSource: source)
        #expect(report.findings.map { "\($0.ruleID)@\($0.line)" } == ["SN007@2"])
        let suppressed = try #require(report.suppressed.first)
        #expect(suppressed.suppression?.reason == "debug-only build flag checked by the caller")
    }
}

@Suite("Objective-C lexer robustness")
struct ObjectiveCTruncationTests {
    @Test("every prefix of a file (unterminated strings, comments, brackets, directives) is audited without a crash")
    func truncatedSources() {
        let source = """
            #ifdef DEBUG
            #define kKey @"refresh_token"
            - (void)URLSession:(NSURLSession *)s didReceiveChallenge:(NSURLAuthenticationChallenge *)challenge
             completionHandler:(void (^)(NSURLSessionAuthChallengeDisposition, NSURLCredential *))completionHandler {
                SecTrustEvaluateWithError(challenge.protectionSpace.serverTrust, &error); /* note */
                completionHandler(NSURLSessionAuthChallengeUseCredential, [NSURLCredential credentialForTrust:t]);
                [[NSUserDefaults standardUserDefaults] setObject:token forKey:kKey]; NSLog(@"%@ 'x' \\"", token);
                os_log(OS_LOG_DEFAULT, "%{public}@", password); char c = '\\''; // securenet:ignore SN007 r
            }
            #else
            #endif
            """
        let bytes = Array(source.utf8)
        var audited = 0
        for length in 0...bytes.count {
            let prefix = String(decoding: bytes[0..<length], as: UTF8.self)
            let report = SecurityAuditor().audit(objectiveCSource: prefix)
            #expect(report.unreadableFiles.isEmpty)
            audited += 1
        }
        #expect(audited == bytes.count + 1)
        let whole = SecurityAuditor(includesTestCode: true).audit(objectiveCSource: source)
        #expect(whole.findings.map { "\($0.ruleID)@\($0.line)" } == ["SN008@6", "SN006@7", "SN007@7"])
        #expect(whole.suppressed.map { "\($0.ruleID)@\($0.line)" } == ["SN007@8"])
        #expect(Set(whole.findings.compactMap(\.condition)) == ["#ifdef DEBUG"])
    }
}
#endif
