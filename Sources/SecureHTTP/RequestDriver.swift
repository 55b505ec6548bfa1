import Foundation
import HTTPTypes
import HTTPTypesFoundation
import Logging
import ServerTrust

/// One hop, ready for a transport to send: the policy has accepted its URL and its header
/// fields have been checked.
struct PreparedHop: Sendable {
    var request: HTTPRequest
    var url: URL
    var body: Data?
    var requirements: ConnectionRequirements
}

/// What every transport does around the wire: policy first, header checks, redirects, the
/// whole-request deadline, cancellation and redacted logging. A transport supplies only the
/// exchange of one hop.
struct RequestDriver: Sendable {
    let configuration: HTTPTransportConfiguration
    let logger: Logger

    init(configuration: HTTPTransportConfiguration) {
        self.configuration = configuration
        self.logger = configuration.logger ?? Logger(label: "SecureHTTP", factory: { _ in SwiftLogNoOpLogHandler() })
        for warning in configuration.policy.securityWarnings {
            self.logger.warning("transport policy weakened: \(warning)")
        }
    }

    /// Sends `request`, following redirects, within the request deadline.
    func send(
        _ request: HTTPRequest,
        body: Data?,
        exchange: @escaping @Sendable (PreparedHop) async throws(SecureHTTPError) -> (HTTPResponse, Data)
    ) async throws(SecureHTTPError) -> HTTPTransportResponse {
        if Task.isCancelled {
            throw SecureHTTPError(.cancelled, "the request was cancelled before it started")
        }
        let deadline = ContinuousClock.now.advanced(by: self.configuration.timeouts.request)
        let timeout = self.configuration.timeouts.request
        do {
            return try await withThrowingTaskGroup(of: HTTPTransportResponse?.self) { group in
                group.addTask {
                    try await self.followRedirects(request, body: body, exchange: exchange)
                }
                group.addTask {
                    try? await Task.sleep(until: deadline, clock: .continuous)
                    return nil
                }
                defer { group.cancelAll() }
                while let result = try await group.next() {
                    if let response = result { return response }
                    if Task.isCancelled { break }
                    throw SecureHTTPError(.deadlineExceeded, "the request did not complete within \(timeout)")
                }
                throw SecureHTTPError(.cancelled, "the request was cancelled")
            }
        } catch let error as SecureHTTPError {
            if error.code == .cancelled, !Task.isCancelled, ContinuousClock.now >= deadline {
                throw SecureHTTPError(.deadlineExceeded, "the request did not complete within \(timeout)")
            }
            self.logger.debug("request failed: \(error)")
            throw error
        } catch {
            throw SecureHTTPError(.cancelled, "the request was cancelled")
        }
    }

    private func followRedirects(
        _ request: HTTPRequest,
        body: Data?,
        exchange: @Sendable (PreparedHop) async throws(SecureHTTPError) -> (HTTPResponse, Data)
    ) async throws(SecureHTTPError) -> HTTPTransportResponse {
        guard let url = request.url, url.host != nil else {
            throw SecureHTTPError(.invalidRequest, "the request needs a scheme, an authority and a path")
        }
        var hop = RedirectHop(request: request, url: url, body: body)
        var rules = RedirectRules(policy: self.configuration.redirects, first: hop)
        while true {
            let prepared = try self.prepare(hop)
            self.logger.debug(
                "→ \(prepared.request.method.rawValue) \(Origin.logDescription(prepared.url))\(prepared.request.path ?? "") [\(SensitiveFields.redacted(prepared.request.headerFields))]"
            )
            let (response, responseBody) = try await exchange(prepared)
            self.logger.debug(
                "← \(response.status.code) \(responseBody.count) bytes [\(SensitiveFields.redacted(response.headerFields))]"
            )
            guard let next = try rules.next(after: response, of: hop) else {
                return HTTPTransportResponse(
                    response: response,
                    body: responseBody,
                    url: hop.url,
                    redirectCount: rules.followed
                )
            }
            self.logger.debug("following \(response.status.code) redirect to \(Origin.logDescription(next.url))")
            hop = next
        }
    }

    /// Applies the policy and the header rules to one hop, before any byte is sent.
    func prepare(_ hop: RedirectHop) throws(SecureHTTPError) -> PreparedHop {
        let requirements: ConnectionRequirements
        do {
            requirements = try self.configuration.policy.requirements(for: hop.url)
        } catch {
            throw SecureHTTPError.policy(error)
        }
        for field in hop.request.headerFields where !HTTPField.isValidValue(field.value) {
            throw SecureHTTPError(.invalidHeaderValue, "the value of \(field.name) contains a character HTTP forbids")
        }
        return PreparedHop(request: hop.request, url: hop.url, body: hop.body, requirements: requirements)
    }
}

extension Origin {
    /// A printable origin for logs, or `<no origin>`.
    static func logDescription(_ url: URL) -> String {
        Origin(url)?.description ?? "<no origin>"
    }
}
