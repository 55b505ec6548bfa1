// Apple's signatures for the URLSession delegate methods that URLSessionTransportDelegate implements,
// as protocol requirements, so that AppleInterfaceStubs/Checks/SecureHTTP/DelegateConformance.swift can
// check the delegate against them. Not part of Apple's SDK: on Apple platforms these are `optional`
// Objective-C requirements of URLSessionTaskDelegate / URLSessionDataDelegate, and a method whose Swift
// signature drifts from them silently stops being called. swift-corelibs-foundation's delegate protocols
// have no `async` variants, so without these the Apple-only delegate methods would not be checked at all.
//
// Signatures from Apple's documentation pages (theAppLaunchers/apple-docs-for-rag
// foundation/md/foundation-urlsessiontaskdelegate-urlsession(...).md and
// foundation-urlsessiondatadelegate-urlsession(_:datatask:didreceive:).md), each of which shows the
// completion-handler form and, where Swift imports one, the `async` form; cross-checked with the generated
// iOS interface DougGregor/swift-concurrency-objc iOS/Foundation/NSURLSession.swift. The `async` forms are
// the Swift-imported alternatives of the completion-handler methods; the availability given is the
// documented one of the method.
//
// Apple's URLSessionDelegate, which the other delegate protocols refine, inherits NSObjectProtocol and
// Sendable (developer.apple.com/documentation/foundation/urlsessiontaskdelegate, "Inherits From");
// so do these.
//
// Limits of the check: (1) a synchronous method satisfies an `async` requirement, so the conformance
// alone does not prove the delegate's method is `async` (the check file asserts that separately);
// (2) corelibs' protocol extensions give default implementations with the exact signatures of the
// synchronous requirements below, which would satisfy them if the delegate lacked the method (the check
// file guards against that too).

import Foundation

// URLSessionTaskDelegate methods that URLSessionTransportDelegate implements.
public protocol AppleURLSessionTaskDelegateRequirements: NSObjectProtocol, Sendable {
    // Foundation/NSURLSession.h: URLSession:task:willPerformHTTPRedirection:newRequest:completionHandler: —
    // `optional func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection
    // response: HTTPURLResponse, newRequest request: URLRequest) async -> URLRequest?`;
    // iOS 7.0, macOS 10.9, tvOS 9.0, watchOS 2.0, visionOS 1.0.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest
    ) async -> URLRequest?

    // Foundation/NSURLSession.h: URLSession:task:didReceiveChallenge:completionHandler: —
    // `optional func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge:
    // URLAuthenticationChallenge) async -> (URLSession.AuthChallengeDisposition, URLCredential?)`;
    // iOS 7.0, macOS 10.9, tvOS 9.0, watchOS 2.0, visionOS 1.0.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge
    ) async -> (URLSession.AuthChallengeDisposition, URLCredential?)

    // Foundation/NSURLSession.h: URLSession:task:didCompleteWithError: —
    // `optional func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error:
    // (any Error)?)`; iOS 7.0, macOS 10.9, tvOS 9.0, watchOS 2.0, visionOS 1.0.
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?)
}

// URLSessionDataDelegate methods that URLSessionTransportDelegate implements.
public protocol AppleURLSessionDataDelegateRequirements: NSObjectProtocol, Sendable {
    // Foundation/NSURLSession.h: URLSession:dataTask:didReceiveData: —
    // `optional func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data)`;
    // iOS 7.0, macOS 10.9, tvOS 9.0, watchOS 2.0, visionOS 1.0.
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data)
}

// The URLSessionTaskDelegate metrics callback, which URLSessionTransportDelegate implements too; the
// check file adopts it beside the two protocols above.
public protocol AppleURLSessionTaskMetricsDelegateRequirements: NSObjectProtocol, Sendable {
    // Foundation/NSURLSession.h: URLSession:task:didFinishCollectingMetrics: —
    // `optional func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics:
    // URLSessionTaskMetrics)`; iOS 10.0, macOS 10.12, tvOS 10.0, watchOS 3.0, visionOS 1.0.
    @available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, visionOS 1.0, *)
    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics)
}
