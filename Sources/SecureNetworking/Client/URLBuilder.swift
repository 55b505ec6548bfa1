import Foundation

/// Builds request targets under a base URL with RFC 3986 percent-encoding.
enum URLBuilder {
    struct Target {
        /// The encoded path, without the query (what the client logs).
        var path: String
        /// The encoded path and query (the request target).
        var pathAndQuery: String
    }

    /// The request target for `segments` and `query` under `base`'s path.
    static func target(base: URL, segments: [String], query: [URLQueryItem]) throws(APIError) -> Target {
        guard let components = URLComponents(url: base, resolvingAgainstBaseURL: true) else {
            throw APIError(.invalidRequest, "the base URL cannot be parsed")
        }
        var basePath = components.percentEncodedPath
        if !basePath.hasPrefix("/") { basePath = "/" + basePath }
        if basePath.hasSuffix("/") { basePath.removeLast() }
        var path = basePath
        for segment in segments {
            path += "/" + PercentEncoding.pathSegment(segment)
        }
        if path.isEmpty { path = "/" }
        let pathAndQuery = query.isEmpty ? path : path + "?" + Self.formEncoded(query)
        return Target(path: path, pathAndQuery: pathAndQuery)
    }

    /// `base` with `path` (plain text, split at `/`) appended.
    static func url(base: URL, path: String) throws(APIError) -> URL {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let target = try Self.target(base: base, segments: segments, query: [])
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: true) else {
            throw APIError(.invalidRequest, "the base URL cannot be parsed")
        }
        components.percentEncodedPath = target.path
        components.percentEncodedQuery = nil
        components.fragment = nil
        guard let url = components.url else { throw APIError(.invalidRequest, "the URL cannot be built") }
        return url
    }

    /// `name=value&…`, each part percent-encoded (so a `+` is `%2B` and a space `%20`).
    static func formEncoded(_ items: [URLQueryItem]) -> String {
        items.map { item in
            let name = PercentEncoding.queryComponent(item.name)
            guard let value = item.value else { return name }
            return name + "=" + PercentEncoding.queryComponent(value)
        }.joined(separator: "&")
    }
}
