// Compiled into the SecureHTTP module by AppleInterfaceStubs/typecheck.py (never part of the package
// build): checks URLSessionTransportDelegate's delegate methods against Apple's signatures, which
// swift-corelibs-foundation's delegate protocols cannot do (they have no `async` variants, and their
// protocol extensions give every synchronous method a default implementation).
#if canImport(Security)
import Foundation
import Security

// 1. Every delegate method URLSessionTransportDelegate implements, against Apple's signature
//    (AppleInterfaceStubs/Security/AppleURLSessionDelegateRequirements.swift). A label, parameter type,
//    return type, `throws` or sync-vs-`async` drift that would make URLSession silently stop calling the
//    method on Apple platforms is an error here.
extension URLSessionTransportDelegate:
    AppleURLSessionTaskDelegateRequirements,
    AppleURLSessionDataDelegateRequirements,
    AppleURLSessionTaskMetricsDelegateRequirements
{}

// 2. corelibs' `extension URLSessionTaskDelegate` / `URLSessionDataDelegate` implement every synchronous
//    requirement above with the same signature, so a delegate that lacked the method (or misspelt it) would
//    still conform in 1. This protocol adds a second, unavailable default for each: if
//    URLSessionTransportDelegate does not declare the method itself, the defaults are ambiguous ("multiple
//    matching functions named 'urlSession(…)'") and the check fails; if it does, its own method wins.
private protocol CorelibsDefaultImplementationTrap {}
extension CorelibsDefaultImplementationTrap {
    @available(*, unavailable, message: "URLSessionTransportDelegate must implement this delegate method itself")
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {}

    @available(*, unavailable, message: "URLSessionTransportDelegate must implement this delegate method itself")
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {}

    @available(*, unavailable, message: "URLSessionTransportDelegate must implement this delegate method itself")
    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {}
}
extension URLSessionTransportDelegate: CorelibsDefaultImplementationTrap {}

// 3. A synchronous method satisfies an `async` requirement, but Apple imports the async delegate methods from
//    completion-handler selectors: a synchronous `urlSession(_:task:didReceive:)` would have another selector
//    and never be called. For a synchronous argument the synchronous overload of `asyncness` wins overload
//    resolution (no function conversion), and its result is not an `AsynchronousWitness`.
private struct AsynchronousWitness {}
private struct SynchronousWitness {}
private func asyncness<each Argument, Result>(_ method: (repeat each Argument) async -> Result) -> AsynchronousWitness {
    AsynchronousWitness()
}
private func asyncness<each Argument, Result>(_ method: (repeat each Argument) -> Result) -> SynchronousWitness {
    SynchronousWitness()
}
private func checkAsyncDelegateMethods(_ delegate: URLSessionTransportDelegate) {
    let redirect = asyncness(delegate.urlSession(_:task:willPerformHTTPRedirection:newRequest:))
    let _: AsynchronousWitness = redirect  // an error here: the redirect delegate method is not `async`
    let challenge = asyncness(delegate.urlSession(_:task:didReceive:))
    let _: AsynchronousWitness = challenge  // an error here: the challenge delegate method is not `async`
}
#endif
