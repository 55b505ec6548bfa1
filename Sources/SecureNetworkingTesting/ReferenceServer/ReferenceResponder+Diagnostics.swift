#if TestServers
import Foundation
import HTTPTypes
import Hummingbird

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension ReferenceResponder {
    /// The longest `/slow` delay, in milliseconds.
    static let maximumSlowMilliseconds = 10_000

    /// `GET /mtls/whoami`: the subject of a verified client certificate, or 403.
    func whoami(_ exchange: Exchange) async -> Response {
        guard self.acceptsClientCertificates, let certificate = await exchange.context.clientCertificate() else {
            return ReferenceHTTP.error(.forbidden, "client_certificate_required")
        }
        return ReferenceHTTP.json(.ok, ["subject": String(describing: certificate.subject)])
    }

    /// `/echo/**`: the request as the server saw it. The `Authorization` value is never echoed.
    func echo(_ exchange: Exchange) -> Response {
        let rest = exchange.rawPath.dropFirst("/echo".count).drop { $0 == "/" }
        let segments =
            rest.isEmpty
            ? []
            : rest.split(separator: "/", omittingEmptySubsequences: false).map {
                ReferenceHTTP.percentDecode($0, plusIsSpace: false)
            }
        let text = exchange.body.isEmpty ? nil : String(data: exchange.body, encoding: .utf8)
        let body: Any = text ?? NSNull()
        return ReferenceHTTP.json(
            .ok,
            [
                "method": exchange.method.rawValue,
                "raw_path": exchange.rawPath,
                "path_segments": segments,
                "raw_query": exchange.rawQuery ?? NSNull(),
                "query": exchange.query.map { [$0.0, $0.1] },
                "body": body,
                "content_type": exchange.headers[.contentType] ?? NSNull(),
                "authorization_present": exchange.headers[.authorization] != nil,
            ]
        )
    }

    /// `/status/{code}`: that status with an error body a client must not show to users.
    func status(_ exchange: Exchange, code: String) -> Response {
        guard let code = Int(code), (200...599).contains(code) else {
            return ReferenceHTTP.error(.badRequest, "invalid_request", message: "the status must be 200 to 599")
        }
        return Self.failure(HTTPResponse.Status(code: code), retryAfter: nil, defaultRetryAfter: true)
    }

    /// `/flaky/{key}?failures=N&status=S&retry_after=R`: the first N calls for the key answer S
    /// (default 503), later ones 200 with the number of calls so far.
    func flaky(_ exchange: Exchange, key: String) -> Response {
        let failures = Int(exchange.queryValue("failures") ?? "1")
        let status = Int(exchange.queryValue("status") ?? "503")
        let retryAfterText = exchange.queryValue("retry_after")
        let retryAfter = retryAfterText.flatMap { Int($0) }
        guard let failures, failures >= 0, let status, (200...599).contains(status),
            retryAfterText == nil || (retryAfter ?? -1) >= 0
        else {
            return ReferenceHTTP.error(
                .badRequest,
                "invalid_request",
                message: "failures and retry_after must be non-negative integers, status 200 to 599"
            )
        }
        let attempt = self.state.nextFlakyAttempt(for: key)
        guard attempt > failures else {
            return Self.failure(
                HTTPResponse.Status(code: status),
                retryAfter: retryAfter,
                defaultRetryAfter: false,
                attempts: attempt
            )
        }
        return ReferenceHTTP.json(.ok, ["attempts": attempt])
    }

    /// `GET /slow?ms=N`: 200 after N milliseconds (at most 10 seconds).
    func slow(_ exchange: Exchange) async -> Response {
        guard let milliseconds = Int(exchange.queryValue("ms") ?? "0"), milliseconds >= 0 else {
            return ReferenceHTTP.error(.badRequest, "invalid_request", message: "ms must be a non-negative integer")
        }
        let delay = min(milliseconds, Self.maximumSlowMilliseconds)
        try? await Task.sleep(for: .milliseconds(delay))
        return ReferenceHTTP.json(.ok, ["slept_ms": delay])
    }

    /// A diagnostic answer with `status`: `Retry-After` when given (or 1 for 429 and 503 when
    /// `defaultRetryAfter`), a bearer challenge for 401, no body for 204 and 304 (which cannot
    /// carry one).
    private static func failure(
        _ status: HTTPResponse.Status,
        retryAfter: Int?,
        defaultRetryAfter: Bool,
        attempts: Int? = nil
    ) -> Response {
        var headers: HTTPFields = [:]
        if let retryAfter {
            headers[.retryAfter] = String(retryAfter)
        } else if defaultRetryAfter, status.code == 429 || status.code == 503 {
            headers[.retryAfter] = "1"
        }
        if status.code == 401 { headers[.wwwAuthenticate] = #"Bearer realm="reference""# }
        if status.code == 204 || status.code == 304 { return Response(status: status, headers: headers) }
        var object: [String: Any] = [
            "error": ReferenceHTTP.reasonCode(status),
            "message": "internal detail: do-not-show-users",
        ]
        if let attempts { object["attempts"] = attempts }
        return ReferenceHTTP.json(status, object, headers: headers)
    }
}
#endif
