/// Which responses carry a body, and how many bytes the server announces for one: the rule the
/// HTTP/1.1 handler and the HTTP/2 stream handler both apply before reading a body.
enum ResponseBodyRule {
    /// Whether a body follows a response with `status` to a request with `method`.
    ///
    /// RFC 9110 §6.4.1: a response to `HEAD` (§9.3.2) and a `1xx`, `204 No Content` (§15.3.5) or
    /// `304 Not Modified` (§15.4.5) response has no content. Their `Content-Length` describes the
    /// representation a `GET` would have had (§8.6), so it is not a body to read or to refuse.
    static func hasBody(method: String, status: Int) -> Bool {
        !(method == "HEAD" || (100..<200).contains(status) || status == 204 || status == 304)
    }

    /// The body length to check against the size limit before reading: the `Content-Length`
    /// value when a body follows and it is a number, nil otherwise.
    static func announcedLength(method: String, status: Int, contentLength: String?) -> Int? {
        guard self.hasBody(method: method, status: status) else { return nil }
        return contentLength.flatMap { Int($0) }
    }
}
