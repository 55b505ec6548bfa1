import NIOConcurrencyHelpers
import TokenAuth

/// A refresher that counts its calls and answers each with a new access token of `tokenType`
/// (`access-1`, `refresh-1`, then `access-2`, …).
final class CountingRefresher: TokenRefresher {
    let calls = NIOLockedValueBox(0)
    private let tokenType: String

    init(tokenType: String = "Bearer") {
        self.tokenType = tokenType
    }

    func refresh(using refreshToken: String) async throws(TokenAuthError) -> TokenResponse {
        let number = self.calls.withLockedValue {
            $0 += 1
            return $0
        }
        return TokenResponse(
            accessToken: "access-\(number)",
            tokenType: self.tokenType,
            expiresIn: 3600,
            refreshToken: "refresh-\(number)"
        )
    }
}
