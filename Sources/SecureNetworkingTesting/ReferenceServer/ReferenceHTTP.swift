#if TestServers
import Foundation
import HTTPTypes
import Hummingbird
import NIOHTTP1

/// Building JSON answers and reading request targets, form bodies and bearer tokens for the
/// reference server.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
enum ReferenceHTTP {
    /// A JSON answer (`application/json`, `Cache-Control: no-store`). Keys are written sorted.
    static func json(_ status: HTTPResponse.Status, _ object: [String: Any], headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        fields[.cacheControl] = "no-store"
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Bytes as they are (`Cache-Control: no-store`): a signed document must reach the client
    /// exactly as it was signed.
    static func bytes(_ status: HTTPResponse.Status, _ data: Data, contentType: String) -> Response {
        var fields = HTTPFields()
        fields[.contentType] = contentType
        fields[.cacheControl] = "no-store"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `{"error": code}` plus a message when given.
    static func error(
        _ status: HTTPResponse.Status,
        _ code: String,
        message: String? = nil,
        headers: HTTPFields = [:]
    ) -> Response {
        var object: [String: Any] = ["error": code]
        if let message { object["message"] = message }
        return Self.json(status, object, headers: headers)
    }

    /// A request target split into its raw path and raw query (nil when there is no `?`).
    static func splitTarget(_ target: String) -> (path: String, query: String?) {
        let withoutFragment = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard let mark = withoutFragment.firstIndex(of: "?") else { return (String(withoutFragment), nil) }
        return (String(withoutFragment[..<mark]), String(withoutFragment[withoutFragment.index(after: mark)...]))
    }

    /// Percent-decodes `text`; `+` becomes a space only when `plusIsSpace` (form bodies), and
    /// text that is not valid percent-encoded UTF-8 is returned as it is.
    static func percentDecode(_ text: Substring, plusIsSpace: Bool) -> String {
        let spaced = plusIsSpace ? text.replacingOccurrences(of: "+", with: " ") : String(text)
        return spaced.removingPercentEncoding ?? spaced
    }

    /// `name=value&…` pairs, decoded, in order, duplicates kept. A pair without `=` has an
    /// empty value.
    static func pairs(_ text: String, plusIsSpace: Bool) -> [(String, String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count > 1 ? Self.percentDecode(parts[1], plusIsSpace: plusIsSpace) : ""
            return (Self.percentDecode(parts[0], plusIsSpace: plusIsSpace), value)
        }
    }

    /// The string fields of a JSON object body, or nil when the body is not a JSON object.
    static func jsonObject(_ body: Data) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    }

    /// The fields of a form or JSON body (by its content type); the last of duplicates wins.
    static func formOrJSONFields(_ body: Data, contentType: String?) -> [String: String]? {
        let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        if mediaType == "application/json" {
            return Self.jsonObject(body)?.compactMapValues { $0 as? String }
        }
        guard let text = String(data: body, encoding: .utf8) else { return nil }
        return Dictionary(Self.pairs(text, plusIsSpace: true), uniquingKeysWith: { _, last in last })
    }

    /// The access token of an `Authorization` field: `Bearer` (RFC 6750 §2.1) or `DPoP`
    /// (RFC 9449 §7.1).
    enum AccessToken {
        case missing
        case bearer(String)
        case dpop(String)
    }

    static func accessToken(in headers: HTTPFields) -> AccessToken {
        guard let value = headers[.authorization] else { return .missing }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard let scheme = parts.first?.lowercased() else { return .missing }
        let token = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        switch scheme {
        case "bearer": return .bearer(token)
        case "dpop": return .dpop(token)
        default: return .missing
        }
    }

    /// The RFC 6750 challenge: `Bearer realm="reference"`, with `error="invalid_token"` and a
    /// description when a token was presented.
    static func bearerChallenge(errorDescription: String?) -> HTTPFields {
        var value = #"Bearer realm="reference""#
        if let errorDescription {
            value += #", error="invalid_token", error_description="\#(errorDescription)""#
        }
        return [.wwwAuthenticate: value]
    }

    /// A status's reason phrase in snake case (`service_unavailable`), or `status_NNN`.
    static func reasonCode(_ status: HTTPResponse.Status) -> String {
        // HTTPTypes keeps no phrase for a status made from a bare code; NIOHTTP1 has the table.
        let phrase =
            status.reasonPhrase.isEmpty
            ? HTTPResponseStatus(statusCode: status.code).reasonPhrase
            : status.reasonPhrase
        let words = phrase.lowercased().split { !$0.isLetter && !$0.isNumber }
        return words.isEmpty ? "status_\(status.code)" : words.joined(separator: "_")
    }

    /// base64url without padding (RFC 4648 §5), as JWS segments, PKCE and tokens use it; nil for
    /// text outside its alphabet.
    static func base64URLDecode(_ text: Substring) -> Data? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            return nil
        }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
#endif
