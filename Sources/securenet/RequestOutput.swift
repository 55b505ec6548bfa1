#if Tools
import Foundation
import HTTPTypes
import SecureHTTP
import ServerTrust

/// What `securenet request` saw: the request, the response, the handshake and the timings.
struct Exchange {
    struct Timings: Encodable {
        let dns: Duration?
        let connect: Duration?
        let tlsHandshake: Duration?
        /// From the request going on the wire to its response's head.
        let firstByte: Duration?
        let total: Duration

        /// `3.21 ms`.
        static func text(_ duration: Duration?) -> String {
            guard let duration else { return "-" }
            return String(format: "%.2f ms", Self.milliseconds(duration))
        }

        static func milliseconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
        }

        enum CodingKeys: String, CodingKey {
            case dnsMilliseconds, connectMilliseconds, tlsHandshakeMilliseconds, firstByteMilliseconds,
                totalMilliseconds
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(self.dns.map(Self.milliseconds), forKey: .dnsMilliseconds)
            try container.encodeIfPresent(self.connect.map(Self.milliseconds), forKey: .connectMilliseconds)
            try container.encodeIfPresent(self.tlsHandshake.map(Self.milliseconds), forKey: .tlsHandshakeMilliseconds)
            try container.encodeIfPresent(self.firstByte.map(Self.milliseconds), forKey: .firstByteMilliseconds)
            try container.encode(Self.milliseconds(self.total), forKey: .totalMilliseconds)
        }
    }

    let request: HTTPRequest
    let requestBody: Data?
    let response: HTTPTransportResponse
    let handshake: HandshakeObservation?
    let connection: ConnectionObservation?
    let timings: Timings

    var body: Data { self.response.body }

    /// The `--json` document.
    struct Record: Encodable {
        struct Field: Encodable {
            let name: String
            let value: String
        }

        struct Message: Encodable {
            var method: String?
            var url: String?
            var status: Int?
            let headers: [Field]
            let body: String?
            let bodyBytes: Int
        }

        struct Connection: Encodable {
            let tlsVersion: String?
            let cipherSuite: String?
            let httpVersion: String
        }

        struct Trust: Encodable {
            let verdict: String
            let chain: [PinsOutput.Certificate]
            let pins: String
            let certificateTransparency: String
        }

        let request: Message
        let response: Message
        let connection: Connection?
        let trust: Trust?
        let timings: Timings
    }

    var record: Record {
        let requestType = self.request.headerFields[.contentType]
        let responseType = self.response.response.headerFields[.contentType]
        var request = Record.Message(
            headers: Redaction.fields(self.request.headerFields),
            body: self.requestBody.flatMap { Redaction.body($0, contentType: requestType) },
            bodyBytes: self.requestBody?.count ?? 0
        )
        request.method = self.request.method.rawValue
        request.url = Redaction.url(self.request.url)
        var response = Record.Message(
            headers: Redaction.fields(self.response.response.headerFields),
            body: Redaction.body(self.response.body, contentType: responseType),
            bodyBytes: self.response.body.count
        )
        response.status = self.response.response.status.code
        return Record(
            request: request,
            response: response,
            connection: self.connection.map {
                Record.Connection(
                    tlsVersion: $0.negotiated?.version.description,
                    cipherSuite: $0.negotiated?.cipherSuiteName,
                    httpVersion: $0.httpVersion
                )
            },
            trust: self.handshake.map(Self.trust),
            timings: self.timings
        )
    }

    static func trust(_ observation: HandshakeObservation) -> Record.Trust {
        let decision = observation.decision
        let requirements = observation.requirements
        let pins: String
        if let set = requirements.pins {
            let scope = "\(requirements.pinScope ?? requirements.host), \(set.pins.count) pins"
            if decision.failure?.code == .pinMismatch {
                pins = "MISMATCH (\(scope))"
            } else if decision.pinReport != nil {
                pins = "report-only mismatch (\(scope))"
            } else {
                pins = decision.isTrusted ? "matched (\(scope))" : "not checked: the chain is not trusted"
            }
        } else {
            pins = "none for \(requirements.host)"
        }
        let transparency =
            decision.transparencyReport.map { "\($0.result.rawValue) (\($0.policy)): \($0.summary)" } ?? "not required"
        // A refused chain has no validated path: show what the server presented.
        let chain =
            decision.isTrusted
            ? decision.chain.map { PinsOutput.Certificate(certificate: $0, pin: Pin(certificate: $0)) }
            : observation.presentedChain.compactMap { try? CertificateFile(bytes: $0).entries.first }.map(
                PinsOutput.Certificate.init
            )
        return Record.Trust(
            verdict: decision.failure.map { "NOT trusted: \($0.code): \($0.message)" } ?? "trusted",
            chain: chain,
            pins: pins,
            certificateTransparency: transparency
        )
    }

    /// The trust decision of `-v`, on standard error; for a refused server too.
    static func printTrust(_ observation: HandshakeObservation) {
        var standardError = StandardError()
        let trust = Self.trust(observation)
        printEscaped("* trust: \(trust.verdict)", to: &standardError)
        for (index, certificate) in trust.chain.enumerated() {
            printEscaped("*   [\(index)] \(certificate.subject)  \(certificate.pin)", to: &standardError)
        }
        printEscaped("* pins: \(trust.pins)", to: &standardError)
        printEscaped("* CT: \(trust.certificateTransparency)", to: &standardError)
    }

    /// `-v`: on standard error, in curl's manner.
    func printVerbose() {
        var standardError = StandardError()
        let record = self.record
        if let connection = self.connection {
            let tls = connection.negotiated.map { "\($0.version), \($0.cipherSuiteName), " } ?? ""
            printEscaped(
                "* connected to \(connection.host):\(connection.port): \(tls)\(connection.httpVersion)",
                to: &standardError
            )
        }
        if let handshake = self.handshake { Self.printTrust(handshake) }
        printEscaped("> \(record.request.method ?? "") \(record.request.url ?? "")", to: &standardError)
        for field in record.request.headers { printEscaped("> \(field.name): \(field.value)", to: &standardError) }
        if let body = record.request.body { printEscaped("> (body) \(body)", to: &standardError) }
        printEscaped("< \(record.response.status ?? 0)", to: &standardError)
        for field in record.response.headers { printEscaped("< \(field.name): \(field.value)", to: &standardError) }
        printEscaped(
            "* timings: DNS \(Timings.text(self.timings.dns)), connect \(Timings.text(self.timings.connect)), TLS \(Timings.text(self.timings.tlsHandshake)), first byte \(Timings.text(self.timings.firstByte)) (request sent to response head), total \(Timings.text(self.timings.total))",
            to: &standardError
        )
    }
}

/// What `securenet request` never prints: credential fields, secret-named JSON, form and query
/// fields.
enum Redaction {
    static let marker = "<redacted>"

    /// Whether a field, parameter or JSON key name holds a secret.
    static func isSecret(_ name: String) -> Bool {
        let name = name.lowercased().replacingOccurrences(of: "-", with: "_")
        // Names about a secret that hold none (`token_type`, `grant_type`, `token_endpoint`).
        if ["_type", "_uri", "_endpoint", "_in", "_at"].contains(where: name.hasSuffix) { return false }
        return [
            "password", "passwd", "passphrase", "secret", "token", "api_key", "apikey", "credential", "private_key",
        ]
        .contains { name.contains($0) }
            || ["code", "code_verifier", "authorization", "otp", "assertion"].contains(name)
    }

    static func fields(_ fields: HTTPFields) -> [Exchange.Record.Field] {
        fields.map { field in
            Exchange.Record.Field(
                name: field.name.rawName,
                value: field.name.carriesCredentials || Self.isSecret(field.name.rawName) ? Self.marker : field.value
            )
        }
    }

    /// The URL with secret-named query parameters redacted.
    static func url(_ url: URL?) -> String? {
        guard let url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        components.queryItems = components.queryItems?.map { item in
            Self.isSecret(item.name) ? URLQueryItem(name: item.name, value: "REDACTED") : item
        }
        components.user = nil
        components.password = nil
        return components.string
    }

    /// A body as text with secret-named JSON or form fields redacted; nil when it is not text.
    static func body(_ data: Data, contentType: String?) -> String? {
        guard !data.isEmpty, let text = String(data: data, encoding: .utf8) else { return nil }
        let type = contentType?.lowercased() ?? ""
        if let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) {
            let redacted = Self.json(object)
            if let encoded = try? JSONSerialization.data(
                withJSONObject: redacted,
                options: [.sortedKeys, .fragmentsAllowed]
            ) {
                return String(decoding: encoded, as: UTF8.self)
            }
        }
        if type.hasPrefix("application/x-www-form-urlencoded") || (!text.contains(" ") && text.contains("=")) {
            return text.split(separator: "&", omittingEmptySubsequences: false).map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
                return parts.count == 2 && Self.isSecret(name) ? "\(parts[0])=\(Self.marker)" : String(pair)
            }.joined(separator: "&")
        }
        return text
    }

    static func json(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            return Dictionary(
                uniqueKeysWithValues: object.map { key, value in
                    (key, Self.isSecret(key) ? Self.marker : Self.json(value))
                }
            )
        }
        if let array = value as? [Any] { return array.map(Self.json) }
        return value
    }
}
#endif
