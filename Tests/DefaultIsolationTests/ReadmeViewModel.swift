// swift-format-ignore-file
// The README's example under "From a `@MainActor` view model", verbatim: DefaultIsolationTests compares the two.
import Foundation
import SecureNetworking

@MainActor
final class ProfileViewModel {
    private(set) var profile: Profile?
    private(set) var errorMessage: String?
    private(set) var isLoading = false
    private let configuration: SecureAPIClient.Configuration

    init(configuration: SecureAPIClient.Configuration) {
        self.configuration = configuration
    }

    func signInAndLoad(email: String, password: String) async {
        isLoading = true
        defer { isLoading = false }
        do {
            // The closure runs on the main actor: it may read and write the view model directly.
            try await withSecureAPIClient(configuration) { client in
                try await client.signIn(.post("auth/login", body: .json(Login(email: email, password: password)), requiresAuthentication: false))
                profile = try await client.send(Request<Profile>.get("user/profile", timeout: .seconds(10)))
                errorMessage = nil
            }
        } catch let error as APIError {
            errorMessage = error.userMessage  // a sentence for people, never the server's text
        } catch {
            errorMessage = UserMessageCatalog().fallback
        }
    }
}
