import Foundation
import HTTPTypes
import HTTPTypesFoundation
import Logging
import NIOConcurrencyHelpers
import ServerTrust

/// One hop, ready for a transport to send: the policy has accepted its URL and its header
/// fields have been checked.
struct PreparedHop: Sendable {
    var request: HTTPRequest
    var body: Data?
    /// The origin and the requirements the policy gives it.
    var target: ConnectionTarget
    var origin: Origin { self.target.origin }
    var requirements: ConnectionRequirements { self.target.requirements }
    /// The credential to bind when the hop has its connection; nil once a redirect left the
    /// original origin.
    var credential: HTTPRequestOptions.Credential?
    /// The connection lane.
    var lane: HTTPRequestOptions.Lane = .standard
    /// ``HTTPRequestOptions/responseHeadObserver``.
    var onResponseHead: (@Sendable () -> Void)?

    /// The hop's URL, built on demand (the NIO transport never needs it).
    var url: URL { RedirectHop(request: self.request, body: nil).url }

    /// The hop with ``boundRequest()`` as its request; the hop itself when it has no credential.
    ///
    /// - Throws: ``SecureHTTPError/Code/invalidHeaderValue``.
    func withBoundCredential() throws(SecureHTTPError) -> PreparedHop {
        guard self.credential != nil else { return self }
        var bound = self
        bound.request = try self.boundRequest()
        return bound
    }

    /// The request with its credential (and the credential's proof) bound now, checked for CR,
    /// LF and NUL.
    ///
    /// - Throws: ``SecureHTTPError/Code/invalidHeaderValue``.
    func boundRequest() throws(SecureHTTPError) -> HTTPRequest {
        guard let credential = self.credential, let value = credential.value() else { return self.request }
        guard HTTPField.isValidValue(value) else {
            throw SecureHTTPError(
                .invalidHeaderValue,
                "the value of \(credential.name) contains a character HTTP forbids"
            )
        }
        var request = self.request
        request.headerFields[credential.name] = value
        if let proof = credential.proof {
            let field: HTTPField?
            do {
                field = try proof(request, value)
            } catch {
                throw SecureHTTPError(
                    .credentialUnavailable,
                    "the proof that goes with \(credential.name) could not be made"
                )
            }
            if let field {
                guard HTTPField.isValidValue(field.value) else {
                    throw SecureHTTPError(
                        .invalidHeaderValue,
                        "the value of \(field.name) contains a character HTTP forbids"
                    )
                }
                request.headerFields[field.name] = field.value
            }
        }
        return request
    }
}

/// An origin and the requirements the policy gives it: what a connection is verified for.
///
/// The driver's ``RequirementsMemo`` hands out one instance per scheme and authority, so a
/// connection pool keyed by it compares keys by identity on every request instead of comparing
/// (and hashing) the requirements' trust anchors and pins; two separate instances with equal
/// contents are still equal.
///
/// ``pinGeneration`` says which pins the requirements were resolved under (it counts the pin
/// updates applied); it takes no part in equality: a target resolved again after an update
/// that left its pins alone is the same key.
final class ConnectionTarget: Hashable, Sendable {
    let origin: Origin
    let requirements: ConnectionRequirements
    /// The ``RequirementsMemo`` generation the requirements were resolved under.
    let pinGeneration: Int
    private let hash: Int

    init(origin: Origin, requirements: ConnectionRequirements, pinGeneration: Int = 0) {
        self.origin = origin
        self.requirements = requirements
        self.pinGeneration = pinGeneration
        var hasher = Hasher()
        hasher.combine(origin)
        hasher.combine(requirements)
        self.hash = hasher.finalize()
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(self.hash)
    }

    static func == (lhs: ConnectionTarget, rhs: ConnectionTarget) -> Bool {
        lhs === rhs || (lhs.hash == rhs.hash && lhs.origin == rhs.origin && lhs.requirements == rhs.requirements)
    }
}

/// The policy in force and its answer per scheme and authority.
/// ``TransportSecurityPolicy/requirements(for:)`` depends on the scheme, host and port alone,
/// so a request to an origin seen before skips the exception and pin lookups. Refusals are not
/// kept (they are rare and must stay exact); the table is bounded.
///
/// The policy changes only when a pin update is applied (``replacePinning(_:)``): the table is
/// emptied and its generation advances, so an answer computed from the previous policy by a
/// request that raced with the change is not kept.
final class RequirementsMemo: Sendable {
    struct Key: Hashable, Sendable {
        let scheme: String
        let authority: String
    }

    private struct Table {
        var policy: TransportSecurityPolicy
        var generation = 0
        var entries: [Key: ConnectionTarget] = [:]
        /// The last entry found or added: a request to the same origin as the one before
        /// (most of them) compares two short strings instead of hashing them.
        var last: (key: Key, target: ConnectionTarget)?
    }

    private let table: NIOLockedValueBox<Table>
    private let capacity = 64

    init(policy: TransportSecurityPolicy) {
        self.table = NIOLockedValueBox(Table(policy: policy))
    }

    func lookup(_ key: Key) -> ConnectionTarget? {
        self.table.withLockedValue { table in
            if let last = table.last, last.key == key { return last.target }
            guard let target = table.entries[key] else { return nil }
            table.last = (key, target)
            return target
        }
    }

    /// The policy in force and its generation, for a request that missed the table.
    var policy: (policy: TransportSecurityPolicy, generation: Int) {
        self.table.withLockedValue { ($0.policy, $0.generation) }
    }

    /// Adds `value` for `key` unless another request added one first, and returns the one kept:
    /// requests that missed the table together all use the same instance afterwards, so the
    /// pool keeps comparing its keys by identity (with two, every lookup compared requirements).
    /// A value computed under an earlier generation of the policy is returned but not kept.
    func insert(_ value: ConnectionTarget, for key: Key, generation: Int) -> ConnectionTarget {
        self.table.withLockedValue { table in
            guard table.generation == generation else { return value }
            if let known = table.entries[key] {
                table.last = (key, known)
                return known
            }
            if table.entries.count >= self.capacity { table.entries.removeAll(keepingCapacity: true) }
            table.entries[key] = value
            table.last = (key, value)
            return value
        }
    }

    /// The generation of the policy in force.
    var generation: Int { self.table.withLockedValue { $0.generation } }

    /// Puts `pinning` in force in place of the policy's pins; returns the new policy.
    func replacePinning(_ pinning: PinningPolicy) -> TransportSecurityPolicy {
        self.replacingPinning(pinning).policy
    }

    /// Puts `pinning` in force in place of the policy's pins; returns the new policy and its
    /// generation.
    func replacingPinning(_ pinning: PinningPolicy) -> (policy: TransportSecurityPolicy, generation: Int) {
        self.table.withLockedValue { table in
            table.policy.pinning = pinning
            table.generation += 1
            table.entries.removeAll()
            table.last = nil
            return (table.policy, table.generation)
        }
    }
}

/// A change of the pins a transport enforces, applied: which connections were verified under
/// pins that no longer apply. One decision for every transport (the NIO pool's keys, the
/// URLSession transport's sessions).
struct PinningChange: Sendable {
    /// The policy now in force.
    let policy: TransportSecurityPolicy
    /// Its generation: a request whose target is of an older one was prepared before the change
    /// (see ``RequestDriver/current(_:)``).
    let generation: Int

    init(policy: TransportSecurityPolicy, generation: Int = 0) {
        self.policy = policy
        self.generation = generation
    }

    /// Whether a connection verified for `requirements` was verified under pins the policy no
    /// longer gives its origin (different pins, none where there were some, or some where
    /// there were none; an origin the policy now refuses counts too).
    func isStale(_ requirements: ConnectionRequirements) -> Bool {
        guard requirements.usesTLS else { return false }
        let host = requirements.host.contains(":") ? "[\(requirements.host)]" : requirements.host
        guard let url = URL(string: "https://\(host):\(requirements.port)/"),
            let fresh = try? self.policy.requirements(for: url)
        else {
            return true
        }
        return fresh.pins != requirements.pins
    }
}

/// What every transport does around the wire: policy first, header checks, redirects, the
/// whole-request deadline, cancellation and redacted logging. A transport supplies only the
/// exchange of one hop. A class: every closure of a request captures it, and copying the
/// configuration (policy, pins, logger) into each would retain and release all of it.
final class RequestDriver: Sendable {
    let configuration: HTTPTransportConfiguration
    let logger: Logger
    private let memo: RequirementsMemo

    init(configuration: HTTPTransportConfiguration) {
        self.configuration = configuration
        self.memo = RequirementsMemo(policy: configuration.policy)
        self.logger = configuration.logger ?? Logger(label: "SecureHTTP", factory: { _ in SwiftLogNoOpLogHandler() })
        for warning in configuration.policy.securityWarnings {
            self.logger.warning("transport policy weakened: \(warning)")
        }
    }

    /// Puts the compiled-in pins with `update` applied in force (the compiled-in pins alone
    /// for nil): every request prepared from now on is verified under them. Returns the change,
    /// for the transport to retire connections verified under pins that no longer apply.
    func applyPinUpdate(_ update: PinSetUpdate?) -> PinningChange {
        let compiled = self.configuration.policy.pinning
        let pinning = update.map { compiled.applying($0) } ?? compiled
        let (policy, generation) = self.memo.replacingPinning(pinning)
        self.logger.info("pins updated\(update.map { " to version \($0.version)" } ?? " to the compiled-in pins")")
        return PinningChange(policy: policy, generation: generation)
    }

    /// `hop`, its target resolved again if a pin update was applied since it was prepared: a
    /// request that waited for a connection, or is retried after it was not sent, never opens
    /// a connection under pins that no longer apply (issue 51 item 14). The transports call
    /// it before each attempt (the NIO pool when it finds the hop's key superseded).
    ///
    /// - Throws: ``SecureHTTPError/Code/policyViolation`` when the policy now in force refuses
    ///   the hop's URL.
    func current(_ hop: PreparedHop) throws(SecureHTTPError) -> PreparedHop {
        guard hop.target.pinGeneration != self.memo.generation else { return hop }
        var resolved = hop
        resolved.target = try self.target(for: hop.request)
        return resolved
    }

    /// Sends `request`, following redirects, within the request deadline.
    func send(
        _ request: HTTPRequest,
        body: Data?,
        options: HTTPRequestOptions,
        exchange: @escaping @Sendable (PreparedHop) async throws(SecureHTTPError) -> (HTTPResponse, Data)
    ) async throws(SecureHTTPError) -> HTTPTransportResponse {
        if Task.isCancelled {
            throw SecureHTTPError(.cancelled, "the request was cancelled before it started")
        }
        let timeout = options.timeout ?? self.configuration.timeouts.request
        let deadline = ContinuousClock.now.advanced(by: timeout)
        do {
            return try await withThrowingTaskGroup(of: HTTPTransportResponse?.self) { group in
                group.addTask {
                    try await self.followRedirects(request, body: body, options: options, exchange: exchange)
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

    /// Sends `request` like ``send(_:body:exchange:)``, for a transport whose exchange enforces
    /// the deadline it is given (waiting for a connection, connecting, the handshake and the
    /// exchange itself) and fails with `deadlineExceeded` once it passes.
    ///
    /// This path starts no task and arms no timer of its own, which matters on every request of
    /// a keep-alive connection: the task group of the generic path costs more thread wake-ups
    /// than the exchange.
    nonisolated(nonsending) func send(
        _ request: HTTPRequest,
        body: Data?,
        options: HTTPRequestOptions,
        exchangeWithinDeadline exchange:
            nonisolated(nonsending) @escaping @Sendable (PreparedHop, ContinuousClock.Instant)
            async throws(SecureHTTPError) -> (HTTPResponse, Data)
    ) async throws(SecureHTTPError) -> HTTPTransportResponse {
        if Task.isCancelled {
            throw SecureHTTPError(.cancelled, "the request was cancelled before it started")
        }
        let timeout = options.timeout ?? self.configuration.timeouts.request
        let deadline = ContinuousClock.now.advanced(by: timeout)
        do {
            return try await self.followRedirects(request, body: body, options: options) {
                hop throws(SecureHTTPError) in
                if ContinuousClock.now >= deadline {
                    throw SecureHTTPError(.deadlineExceeded, "the request did not complete within \(timeout)")
                }
                return try await exchange(hop, deadline)
            }
        } catch {
            if error.code == .deadlineExceeded
                || (error.code == .cancelled && !Task.isCancelled && ContinuousClock.now >= deadline)
            {
                self.logger.debug("request failed: deadline of \(timeout) exceeded")
                throw SecureHTTPError(.deadlineExceeded, "the request did not complete within \(timeout)")
            }
            self.logger.debug("request failed: \(error)")
            throw error
        }
    }

    private nonisolated(nonsending) func followRedirects(
        _ request: HTTPRequest,
        body: Data?,
        options: HTTPRequestOptions,
        exchange: nonisolated(nonsending) @Sendable (PreparedHop) async throws(SecureHTTPError) -> (HTTPResponse, Data)
    ) async throws(SecureHTTPError) -> HTTPTransportResponse {
        var hop = RedirectHop(request: request, body: body)
        var rules = RedirectRules(
            policy: options.redirects ?? self.configuration.redirects,
            first: hop,
            strippedFields: self.configuration.crossOriginStrippedFields,
            forwardsBodyAcrossOrigins: options.forwardsBodyAcrossOrigins
        )
        while true {
            var prepared = try self.prepare(hop)
            prepared.lane = options.lane
            prepared.credential = rules.crossedOrigin ? nil : options.credential
            prepared.onResponseHead = options.responseHeadObserver
            self.logger.debug(
                "→ \(prepared.request.method.rawValue) \(Origin.logDescription(prepared.url))\(SensitiveFields.loggablePath(prepared.request.path)) [\(SensitiveFields.redacted(prepared.request.headerFields))]"
            )
            let (response, responseBody) = try await exchange(prepared)
            self.logger.debug(
                "← \(response.status.code) \(responseBody.count) bytes [\(SensitiveFields.redacted(response.headerFields))]"
            )
            guard let next = try rules.next(after: response, of: hop) else {
                return HTTPTransportResponse(
                    response: response,
                    body: responseBody,
                    request: hop.request,
                    redirectCount: rules.followed,
                    redirectedAcrossOrigins: rules.crossedOrigin
                )
            }
            self.logger.debug("following \(response.status.code) redirect to \(Origin.logDescription(next.url))")
            hop = next
        }
    }

    /// Applies the policy and the header rules to one hop, before any byte is sent.
    func prepare(_ hop: RedirectHop) throws(SecureHTTPError) -> PreparedHop {
        // Every hop, the redirects' too (their targets come from Foundation's URL parser, which
        // percent-encodes what a request line cannot carry): the HTTP/1.1 request is written
        // as bytes, and no space, control character or quote may reach its request line.
        guard RequestTarget.isValid(hop.request) else {
            throw SecureHTTPError(
                .invalidRequest,
                "the request needs a scheme, an authority and a path of URI characters"
            )
        }
        let target = try self.target(for: hop.request)
        var contentLength: String?
        var hasTransferEncoding = false
        for field in hop.request.headerFields {
            guard HTTPField.isValidValue(field.value) else {
                throw SecureHTTPError(
                    .invalidHeaderValue,
                    "the value of \(field.name) contains a character HTTP forbids"
                )
            }
            if field.name == .contentLength {
                // RFC 9110 §8.6: several Content-Length fields must agree, and then count once.
                if let seen = contentLength, seen != field.value {
                    throw SecureHTTPError(.invalidRequest, "the request has Content-Length fields that disagree")
                }
                contentLength = field.value
            } else if field.name == .transferEncoding {
                hasTransferEncoding = true
            }
        }
        if let contentLength {
            // A length that disagrees with the body would frame the bytes after it as another
            // request on an HTTP/1.1 connection (RFC 9112 §6.3, §11.2: request smuggling).
            guard !hasTransferEncoding else {
                throw SecureHTTPError(
                    .invalidRequest,
                    "the request has both Content-Length and Transfer-Encoding (RFC 9112 §6.2)"
                )
            }
            let count = hop.body?.count ?? 0
            guard let declared = Int(contentLength), declared == count else {
                throw SecureHTTPError(
                    .invalidRequest,
                    "the request's Content-Length (\(contentLength.prefix(20))) is not its body's size (\(count) bytes)"
                )
            }
        }
        return PreparedHop(request: hop.request, body: hop.body, target: target)
    }

    /// The origin and requirements the policy in force gives `request`'s URL.
    private func target(for request: HTTPRequest) throws(SecureHTTPError) -> ConnectionTarget {
        let memoKey = request.scheme.flatMap { scheme in
            request.authority.map { RequirementsMemo.Key(scheme: scheme, authority: $0) }
        }
        if let memoKey, let known = self.memo.lookup(memoKey) {
            return known
        }
        let requirements: ConnectionRequirements
        guard let url = request.url, url.host != nil else {
            throw SecureHTTPError(.invalidRequest, "the request needs a scheme, an authority and a path")
        }
        let (policy, generation) = self.memo.policy
        do {
            requirements = try policy.requirements(for: url)
        } catch {
            throw SecureHTTPError.policy(error)
        }
        guard let parsed = Origin(url) else {
            throw SecureHTTPError(.invalidRequest, "the request URL has no host")
        }
        let made = ConnectionTarget(origin: parsed, requirements: requirements, pinGeneration: generation)
        return memoKey.map { self.memo.insert(made, for: $0, generation: generation) } ?? made
    }
}

extension Origin {
    /// A printable origin for logs, or `<no origin>`.
    static func logDescription(_ url: URL) -> String {
        Origin(url)?.description ?? "<no origin>"
    }
}
