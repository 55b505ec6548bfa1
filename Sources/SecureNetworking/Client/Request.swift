public import Foundation
public import HTTPTypes
import SecureHTTP

/// One API call, typed by the value it answers with.
///
/// The path is plain text: each `/`-separated segment is percent-encoded on the way out
/// (RFC 3986), so `"users/a b"` becomes `/users/a%20b` and a segment can never add another one.
/// Use ``init(_:pathSegments:query:headers:body:timeout:requiresAuthentication:)`` when a segment must
/// contain `/` itself. Query names and values are encoded the same way, so `+`, `&`, `=` and
/// non-ASCII text arrive exactly as given.
///
/// ```swift
/// struct Profile: Decodable, Sendable { var email: String; var displayName: String }
/// let profile = try await client.send(Request<Profile>.get("user/profile"))
/// ```
///
/// `Response` is decoded from JSON with the client's key strategy, except for three types:
/// ``EmptyResponse`` (any 2xx, the body is ignored), `Data` (the raw body, any content type)
/// and `String` (the body as UTF-8 text, any content type).
public struct Request<Response: Decodable & Sendable>: Sendable {
    /// The method. Default `GET`.
    public var method: HTTPRequest.Method
    /// The path segments after the client's base URL, not yet percent-encoded.
    public var pathSegments: [String]
    /// The query items, in order, not yet percent-encoded; a nil value sends the bare name.
    public var query: [URLQueryItem]
    /// Extra header fields. Values are checked for CR, LF and NUL again before sending; build
    /// them with `HTTPFields.appendChecked(name:value:)` to catch a bad value where it is made.
    public var headerFields: HTTPFields
    /// The body, encoded when the request is sent (JSON with the client's key strategy).
    public var body: RequestBody?
    /// Whether the request carries the session's access token. Default `true`: an
    /// unauthenticated call is the exception and has to be asked for.
    public var requiresAuthentication: Bool
    /// Whether the request may be sent again after a transient failure. Defaults to the
    /// method's idempotency (GET, HEAD, OPTIONS, PUT, DELETE); set it for a POST that carries an
    /// idempotency key.
    public var isIdempotent: Bool
    /// The media types a JSON response may have. Default `application/json` and `*/*+json`.
    public var acceptedContentTypes: [String]
    /// How long each attempt may take, from sending to the last byte of the answer (redirects
    /// included); nil (the default) uses the transport's request timeout. Past it the attempt
    /// fails with ``APIError/Code/transportFailure`` whose transport error is `deadlineExceeded`,
    /// and is not retried. It may be longer or shorter than the transport's.
    public var timeout: Duration?

    /// Creates a request for `path` (plain text, split at `/`).
    ///
    /// - Parameters:
    ///   - method: the method. Default `GET`.
    ///   - path: the path after the client's base URL, plain text split at `/`.
    ///   - query: the query items, in order.
    ///   - headers: extra header fields (checked for CR, LF and NUL before sending).
    ///   - body: the body, encoded when the request is sent.
    ///   - timeout: how long each attempt may take; nil uses the transport's request timeout.
    ///   - requiresAuthentication: whether the session's access token is attached.
    public init(
        _ method: HTTPRequest.Method = .get,
        path: String,
        query: [URLQueryItem] = [],
        headers: HTTPFields = [:],
        body: RequestBody? = nil,
        timeout: Duration? = nil,
        requiresAuthentication: Bool = true
    ) {
        self.init(
            method,
            pathSegments: path.split(separator: "/", omittingEmptySubsequences: true).map(String.init),
            query: query,
            headers: headers,
            body: body,
            timeout: timeout,
            requiresAuthentication: requiresAuthentication
        )
    }

    /// Creates a request from path segments that are used as they are (a `/` inside a segment is
    /// encoded as `%2F`).
    ///
    /// - Parameters:
    ///   - method: the method. Default `GET`.
    ///   - pathSegments: the path segments after the client's base URL, not yet percent-encoded.
    ///   - query: the query items, in order.
    ///   - headers: extra header fields (checked for CR, LF and NUL before sending).
    ///   - body: the body, encoded when the request is sent.
    ///   - timeout: how long each attempt may take; nil uses the transport's request timeout.
    ///   - requiresAuthentication: whether the session's access token is attached.
    public init(
        _ method: HTTPRequest.Method = .get,
        pathSegments: [String],
        query: [URLQueryItem] = [],
        headers: HTTPFields = [:],
        body: RequestBody? = nil,
        timeout: Duration? = nil,
        requiresAuthentication: Bool = true
    ) {
        self.method = method
        self.pathSegments = pathSegments
        self.query = query
        self.headerFields = headers
        self.body = body
        self.timeout = timeout
        self.requiresAuthentication = requiresAuthentication
        self.isIdempotent = Self.idempotentMethods.contains(method)
        self.acceptedContentTypes = ["application/json", "*/*+json"]
    }

    /// A `GET` request.
    ///
    /// - Parameters:
    ///   - path: the path after the client's base URL, plain text split at `/`.
    ///   - query: the query items, in order.
    ///   - headers: extra header fields (checked for CR, LF and NUL before sending).
    ///   - timeout: how long each attempt may take; nil uses the transport's request timeout.
    ///   - requiresAuthentication: whether the session's access token is attached.
    public static func get(
        _ path: String,
        query: [URLQueryItem] = [],
        headers: HTTPFields = [:],
        timeout: Duration? = nil,
        requiresAuthentication: Bool = true
    ) -> Request {
        Request(
            .get,
            path: path,
            query: query,
            headers: headers,
            timeout: timeout,
            requiresAuthentication: requiresAuthentication
        )
    }

    /// A `POST` request with a body.
    ///
    /// - Parameters:
    ///   - path: the path after the client's base URL, plain text split at `/`.
    ///   - body: the body, encoded when the request is sent.
    ///   - headers: extra header fields (checked for CR, LF and NUL before sending).
    ///   - timeout: how long each attempt may take; nil uses the transport's request timeout.
    ///   - requiresAuthentication: whether the session's access token is attached.
    public static func post(
        _ path: String,
        body: RequestBody?,
        headers: HTTPFields = [:],
        timeout: Duration? = nil,
        requiresAuthentication: Bool = true
    ) -> Request {
        Request(
            .post,
            path: path,
            headers: headers,
            body: body,
            timeout: timeout,
            requiresAuthentication: requiresAuthentication
        )
    }

    /// A `PUT` request with a body.
    ///
    /// - Parameters:
    ///   - path: the path after the client's base URL, plain text split at `/`.
    ///   - body: the body, encoded when the request is sent.
    ///   - headers: extra header fields (checked for CR, LF and NUL before sending).
    ///   - timeout: how long each attempt may take; nil uses the transport's request timeout.
    ///   - requiresAuthentication: whether the session's access token is attached.
    public static func put(
        _ path: String,
        body: RequestBody?,
        headers: HTTPFields = [:],
        timeout: Duration? = nil,
        requiresAuthentication: Bool = true
    ) -> Request {
        Request(
            .put,
            path: path,
            headers: headers,
            body: body,
            timeout: timeout,
            requiresAuthentication: requiresAuthentication
        )
    }

    /// A `PATCH` request with a body.
    ///
    /// - Parameters:
    ///   - path: the path after the client's base URL, plain text split at `/`.
    ///   - body: the body, encoded when the request is sent.
    ///   - headers: extra header fields (checked for CR, LF and NUL before sending).
    ///   - timeout: how long each attempt may take; nil uses the transport's request timeout.
    ///   - requiresAuthentication: whether the session's access token is attached.
    public static func patch(
        _ path: String,
        body: RequestBody?,
        headers: HTTPFields = [:],
        timeout: Duration? = nil,
        requiresAuthentication: Bool = true
    ) -> Request {
        Request(
            .patch,
            path: path,
            headers: headers,
            body: body,
            timeout: timeout,
            requiresAuthentication: requiresAuthentication
        )
    }

    /// A `DELETE` request.
    ///
    /// - Parameters:
    ///   - path: the path after the client's base URL, plain text split at `/`.
    ///   - headers: extra header fields (checked for CR, LF and NUL before sending).
    ///   - timeout: how long each attempt may take; nil uses the transport's request timeout.
    ///   - requiresAuthentication: whether the session's access token is attached.
    public static func delete(
        _ path: String,
        headers: HTTPFields = [:],
        timeout: Duration? = nil,
        requiresAuthentication: Bool = true
    ) -> Request {
        Request(.delete, path: path, headers: headers, timeout: timeout, requiresAuthentication: requiresAuthentication)
    }

    /// Sets a header field, refusing a value that holds CR, LF or NUL (which could otherwise
    /// smuggle another header into the request).
    ///
    /// - Throws: ``APIError/Code/invalidRequest`` whose ``APIError/transportError`` has the code
    ///   `invalidHeaderValue`; the value is not in the error.
    public mutating func setHeader(_ name: HTTPField.Name, _ value: String) throws(APIError) {
        do {
            try self.headerFields.setChecked(name: name, value: value)
        } catch {
            throw APIError(.invalidRequest, "the value of header \(name) is not allowed", transportError: error)
        }
    }

    static var idempotentMethods: Set<HTTPRequest.Method> { [.get, .head, .options, .put, .delete, .trace] }
}

/// The answer of a request that has no body worth reading (204, or a 2xx whose body is ignored).
public struct EmptyResponse: Decodable, Hashable, Sendable {
    /// Creates an empty response.
    public init() {}
    /// Decodes nothing.
    public init(from decoder: any Decoder) throws {}
}

/// A request body: JSON from an `Encodable` value, form fields, or bytes with their media type.
public struct RequestBody: Sendable {
    enum Storage: Sendable {
        case json(any Encodable & Sendable)
        case form([URLQueryItem])
        case data(Data, contentType: String)
    }

    let storage: Storage

    /// A JSON body, encoded with the client's key and date strategies.
    public static func json(_ value: some Encodable & Sendable) -> RequestBody {
        RequestBody(storage: .json(value))
    }

    /// An `application/x-www-form-urlencoded` body; names and values are percent-encoded so
    /// `+`, `&` and `=` survive.
    public static func form(_ items: [URLQueryItem]) -> RequestBody {
        RequestBody(storage: .form(items))
    }

    /// Raw bytes with their media type.
    public static func data(_ data: Data, contentType: String) -> RequestBody {
        RequestBody(storage: .data(data, contentType: contentType))
    }
}

/// A decoded response with its status and header fields.
public struct APIResponse<Value: Sendable>: Sendable {
    /// The decoded value.
    public var value: Value
    /// The final status (after any redirects).
    public var status: HTTPResponse.Status
    /// The response's header fields.
    public var headerFields: HTTPFields
    /// How many attempts the request took (1 when it was not retried; a 401 → refresh → retry
    /// counts as a second attempt).
    public var attempts: Int
}
