import Foundation
import Testing
import TokenAuth

/// RFC 9207: the authorization response's `iss`, checked against the request's issuer.
@Suite("Authorization response: the issuer (RFC 9207)")
struct AuthorizationResponseIssuerTests {
    static let issuer = "https://auth.example.com"

    static func request(_ issuer: AuthorizationRequest.Issuer?) -> AuthorizationRequest {
        AuthorizationRequest(
            authorizationEndpoint: URL(string: "https://auth.example.com/oauth/authorize")!,
            clientID: "ios-app",
            redirectURI: URL(string: "com.example.app:/oauth/callback")!,
            scopes: ["profile"],
            issuer: issuer
        )
    }

    static func redirect(_ request: AuthorizationRequest, _ extra: String) -> URL {
        URL(string: "com.example.app:/oauth/callback?code=abc&state=\(request.state)\(extra)")!
    }

    static func code(_ request: AuthorizationRequest, _ url: URL) -> TokenAuthError.Code? {
        do {
            _ = try request.response(from: url)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func anIssThatIsNotTheRequestsIssuerIsRefused() throws {
        let request = Self.request(.init(Self.issuer))
        let iss = "iss=" + "https://evil.example.com".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(Self.code(request, Self.redirect(request, "&" + iss)) == .invalidAuthorizationResponse)
        // The identifier is compared character for character: a trailing slash is another issuer.
        let slash = "iss=" + "https://auth.example.com/".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(Self.code(request, Self.redirect(request, "&" + slash)) == .invalidAuthorizationResponse)
        // RFC 9207 §2.4: an error response is checked too, before its error is believed.
        let error = URL(
            string: "com.example.app:/oauth/callback?error=access_denied&state=\(request.state)&\(iss)"
        )!
        #expect(Self.code(request, error) == .invalidAuthorizationResponse)
    }

    @Test func theRequestsIssuerIsAccepted() throws {
        let request = Self.request(.init(Self.issuer, sendsIssuerInResponses: true))
        let iss = "iss=" + Self.issuer.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(try request.response(from: Self.redirect(request, "&" + iss)).code == "abc")
    }

    @Test func aMissingIssIsRefusedOnlyFromAnIssuerThatSendsIt() throws {
        let sends = Self.request(.init(Self.issuer, sendsIssuerInResponses: true))
        #expect(Self.code(sends, Self.redirect(sends, "")) == .invalidAuthorizationResponse)
        let silent = Self.request(.init(Self.issuer))
        #expect(try silent.response(from: Self.redirect(silent, "")).code == "abc")
        // Without an issuer nothing is checked.
        let unknown = Self.request(nil)
        #expect(try unknown.response(from: Self.redirect(unknown, "&iss=https%3A%2F%2Fother.example")).code == "abc")
    }
}
