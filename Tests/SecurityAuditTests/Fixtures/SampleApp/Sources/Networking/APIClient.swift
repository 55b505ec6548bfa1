import Foundation

/// Talks to the SampleApp backend.
final class APIClient {
    static let baseURL = URL(string: "http://api.backend.com/v1")!
    static let secureBaseURL = URL(string: "https://api.backend.com/v1")!
    static let devURL = URL(string: "http://localhost:8080/v1")!
    static let soapNamespace = "http://schemas.xmlsoap.org/soap/envelope/"

    private let apiKey = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
    private let tokenHeaderName = "Authorization"
    private let clientID = "sample-app-ios"
    private let session: URLSession

    init(token: String) {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = URLCache(memoryCapacity: 4_000_000, diskCapacity: 40_000_000)
        configuration.httpAdditionalHeaders = ["Authorization": "Bearer \(token)"]
        session = URLSession(configuration: configuration)
    }

    func upgrade(_ url: URL) -> String {
        url.absoluteString.replacingOccurrences(of: "http://", with: "https://")
    }
}

/// Downloads public images; nothing authenticated, so caching is fine.
final class ImageLoader {
    private let session: URLSession

    init() {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = URLCache.shared
        configuration.requestCachePolicy = .returnCacheDataElseLoad
        session = URLSession(configuration: configuration)
    }
}

/// Fetches the user's profile with a bearer token.
struct ProfileRequest {
    func make(token: String) -> URLRequest {
        var request = URLRequest(url: APIClient.secureBaseURL.appendingPathComponent("me"))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.cachePolicy = .reloadIgnoringLocalCacheData
        return request
    }

    func ephemeral() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        return configuration
    }
}

/// Signs the user in at the identity provider's page.
@MainActor
final class SignInController {
    func signIn(url: URL, completion: @escaping (URL?) -> Void) {
        let session = ASWebAuthenticationSession(url: url, callbackURLScheme: "sampleapp") { callbackURL, _ in
            completion(callbackURL)
        }
        session.start()
    }

    func signInSafely(url: URL, completion: @escaping @Sendable (URL?) -> Void) {
        let session = ASWebAuthenticationSession(url: url, callbackURLScheme: "sampleapp") { @Sendable callbackURL, _ in
            completion(callbackURL)
        }
        session.start()
    }
}
