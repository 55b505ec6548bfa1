#if Tools
import Foundation
import SecurityAudit
import Testing

/// SN016 isolated-completion-handler: a closure literal handed to an Apple API that calls it on a thread
/// of its own, formed in a main-actor context without `@Sendable` (GitHub issue 36, item 2: the browser
/// sign-in trapped in `_dispatch_assert_queue_fail`).
@Suite("SN016 isolated completion handler")
struct IsolatedCompletionRuleTests {
    /// `Sources/` of this repository.
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources").standardizedFileURL

    @Test(
        "a main-actor closure handed to ASWebAuthenticationSession or LAContext is reported; URLSession's are @Sendable"
    )
    func mainActorClosures() {
        let source = """
            @MainActor func signIn() {
                let session = ASWebAuthenticationSession(url: url, callbackURLScheme: "app") { url, error in }
                context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Unlock") { ok, error in }
                URLSession.shared.dataTask(with: request) { data, response, error in }.resume()
                session.uploadTask(with: request, from: body, completionHandler: { data, response, error in })
            }
            final class LoginViewController: UIViewController {
                func signIn() {
                    _ = ASWebAuthenticationSession(url: url, callbackURLScheme: "app", completionHandler: { _, _ in })
                }
                nonisolated func background() {
                    context.evaluatePolicy(policy, localizedReason: "Unlock") { ok, error in }
                }
            }
            struct SignInView: View {
                var body: some View { Button("Sign in") { context.evaluatePolicy(p, localizedReason: "r") { _, _ in } } }
            }
            @MainActor final class Model {
                func unlock() async {
                    await withCheckedContinuation { continuation in
                        context.evaluatePolicy(p, localizedReason: "r") { _, _ in continuation.resume() }
                    }
                }
            }
            final class Service { func run() { Task { @MainActor in _ = session.downloadTask(with: url) { _, _, _ in } } } }
            """
        #expect(
            swiftFindings(source) == [
                "SN016@2", "SN016@9",
            ]
        )
    }

    @Test("@Sendable closures, function values, nonisolated code and closures run elsewhere are not reported")
    func notIsolated() {
        let source = """
            @MainActor func signIn(completion: @escaping @Sendable (URL?, Error?) -> Void) {
                _ = ASWebAuthenticationSession(url: url, callbackURLScheme: "app") { @Sendable url, error in }
                _ = ASWebAuthenticationSession(url: url, callbackURLScheme: "app", completionHandler: completion)
                Task.detached { context.evaluatePolicy(p, localizedReason: "r") { _, _ in } }
                DispatchQueue.global().async { context.evaluatePolicy(p, localizedReason: "r") { _, _ in } }
                let ok = try await context.evaluatePolicy(p, localizedReason: "r")
                let items = array.map { $0 * 2 }
            }
            func plain() {
                _ = ASWebAuthenticationSession(url: url, callbackURLScheme: "app") { url, error in }
                URLSession.shared.dataTask(with: request) { data, response, error in }.resume()
            }
            final class Client {
                func fetch() { URLSession.shared.dataTask(with: request) { _, _, _ in }.resume() }
            }
            @MainActor final class Model {
                nonisolated func fetch() { URLSession.shared.dataTask(with: request) { _, _, _ in }.resume() }
                final class Nested { func fetch() { session.dataTask(with: request) { _, _, _ in }.resume() } }
            }
            """
        #expect(swiftFindings(source).isEmpty)
    }

    @Test("a synchronous URLSession delegate method of a main-actor type is reported; async or nonisolated is not")
    func delegateMethods() {
        let source = """
            @MainActor final class Downloader: NSObject, @preconcurrency URLSessionDownloadDelegate {
                func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {}
                nonisolated func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {}
                func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge) async
                    -> (URLSession.AuthChallengeDisposition, URLCredential?) { (.performDefaultHandling, nil) }
            }
            final class Feed: UIViewController, @preconcurrency URLSessionDataDelegate {
                func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {}
            }
            final class Transport: NSObject, URLSessionDataDelegate, Sendable {
                func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {}
                @MainActor func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {}
            }
            """
        #expect(swiftFindings(source) == ["SN016@2", "SN016@8", "SN016@12"])
    }

    /// The adapter as it was before the fix: one finding, at the completion closure.
    @Test("the browser sign-in before the fix has one finding, at its completion closure")
    func theAdapterBeforeTheFix() {
        let source = """
            extension AuthorizationRequest {
                @MainActor
                public func authorize(
                    presentationContextProvider: any ASWebAuthenticationPresentationContextProviding,
                    prefersEphemeralWebBrowserSession: Bool = true
                ) async throws(TokenAuthError) -> AuthorizationResponse {
                    let (callbackURL, cancelled) = await withCheckedContinuation {
                        (continuation: CheckedContinuation<(URL?, Bool), Never>) in
                        let holder = NIOLockedValueBox<(session: ASWebAuthenticationSession?, resumed: Bool)>((nil, false))
                        let finish: (URL?, Bool) -> Void = { url, cancelled in
                            let first = holder.withLockedValue { state -> Bool in
                                defer { state = (nil, true) }
                                return !state.resumed
                            }
                            if first { continuation.resume(returning: (url, cancelled)) }
                        }
                        let session = ASWebAuthenticationSession(url: self.url, callbackURLScheme: self.callbackURLScheme) {
                            url,
                            error in
                            finish(url, (error as? ASWebAuthenticationSessionError)?.code == .canceledLogin)
                        }
                        holder.withLockedValue { $0.session = session }
                        session.presentationContextProvider = presentationContextProvider
                        session.prefersEphemeralWebBrowserSession = prefersEphemeralWebBrowserSession
                        if !session.start() { finish(nil, false) }
                    }
                    return try self.response(fromBrowserCallback: callbackURL, userCancelled: cancelled)
                }
            }
            """
        let findings = SecurityAuditor().audit(swiftSource: source, path: "Adapter.swift").findings
        #expect(findings.map { "\($0.ruleID)@\($0.line):\($0.column)" } == ["SN016@17:112"])
        #expect(
            findings.first?.message
                == "the completion handler of ASWebAuthenticationSession is formed in @MainActor func authorize, "
                + "so it is main-actor isolated; the framework calls it on its own thread, where Swift 6 traps"
        )
    }

    /// Every callback this repository's Apple adapters hand to Apple API (the web authentication
    /// session, URLSession and its delegate, LocalAuthentication, the Keychain and the Secure Enclave) is
    /// checked here.
    @Test("this repository's Sources have no finding")
    func repositorySources() throws {
        let report = try SecurityAuditor().audit(path: Self.sources.path)
        #expect(report.filesScanned > 100)
        #expect(report.findings.filter { $0.ruleID == "SN016" }.map { "\($0.path):\($0.line)" } == [])
        #expect(report.unreadableFiles.isEmpty)
    }
}
#endif
