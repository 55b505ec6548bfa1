// swift-format-ignore-file
// The README's example under "The layers underneath", verbatim: DefaultIsolationTests compares the two.
import Foundation
import HTTPTypes
import HTTPTypesFoundation
import SecureHTTP
import ServerTrust
import X509

/// Fetches the signed-in user's profile over a policy-checked, pinned TLS connection.
func fetchProfile(from api: URL, token: String, policyFile: String, companyRoot: Certificate) async throws -> Data {
    var policy = try TransportSecurityPolicy(contentsOfFile: policyFile)  // ATS-style keys and pinnedDomains
    policy.trustAnchors = .system(adding: [companyRoot])
    return try await withNIOHTTPTransport(configuration: HTTPTransportConfiguration(policy: policy)) { transport in
        var request = HTTPRequest(method: .get, url: api.appendingPathComponent("v1/me"))
        try request.headerFields.appendChecked(name: .authorization, value: "Bearer \(token)")  // CR/LF is refused
        let response = try await transport.send(request)  // SecureHTTPError: .serverTrustFailure (pinMismatch, expired, …), .policyViolation, …
        return response.body
    }
}
