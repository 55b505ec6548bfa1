public import Foundation
public import HTTPTypes

/// App-specific steps around each attempt: adapt the request before it is sent, and decide
/// about retrying after a failure.
///
/// Interceptors run in order for every attempt, after the client has set `Authorization`, so they
/// see the final request. Header values they add are checked for CR, LF and NUL by the transport
/// like every other field.
public protocol RequestInterceptor: Sendable {
    /// Changes the request about to be sent (add a header, sign it). Throwing stops the call
    /// with ``APIError/Code/invalidRequest``; the thrown error is not shown, as it may hold secrets.
    func adapt(_ request: inout HTTPRequest, body: Data?) async throws

    /// Decides whether to retry after `error` (attempt `attempt` just failed). The client's
    /// ``RetryPolicy/maximumAttempts`` still applies.
    func retryDecision(for request: HTTPRequest, error: APIError, attempt: Int) async -> RetryDecision
}

extension RequestInterceptor {
    /// Leaves the request as it is.
    public func adapt(_ request: inout HTTPRequest, body: Data?) async throws {}

    /// Leaves the decision to the client's ``RetryPolicy``.
    public func retryDecision(for request: HTTPRequest, error: APIError, attempt: Int) async -> RetryDecision {
        .useDefault
    }
}

/// An interceptor's answer about a retry.
public struct RetryDecision: Hashable, Sendable {
    enum Base: Hashable, Sendable {
        case useDefault
        case retry(after: Duration)
        case doNotRetry
    }

    let base: Base

    /// Let the ``RetryPolicy`` decide.
    public static let useDefault = RetryDecision(base: .useDefault)
    /// Do not retry.
    public static let doNotRetry = RetryDecision(base: .doNotRetry)
    /// Retry after `delay`, even if the policy would not (a non-idempotent request included:
    /// only the app knows when that is safe).
    public static func retry(after delay: Duration) -> RetryDecision {
        RetryDecision(base: .retry(after: max(.zero, delay)))
    }
}
