import Foundation
import SecureHTTP
import SecureNetworking
import SecureStorage
import TokenAuth

/// Which failures of the app's `user` closure keep the session without opening it
/// (``SessionState/offline(message:)``), and what to tell the user.
///
/// TokenAuth draws the line (DESIGN decision 6): a terminal error ends the session, any other
/// leaves the tokens in place to be tried again. So a transient failure is a token manager error
/// that is not terminal (the token endpoint unreachable or answering 5xx, an answer that is not a
/// token response, the refresh-loop guard), and the client's and transport's errors that say the
/// same of the closure's own request: a transport failure, a 5xx, a 429. URLSession's
/// connectivity errors count too, for a closure that makes its request itself. A failure of the
/// store is not the network's, nor is a request the server refused (401, 404) or a body that
/// does not decode.
enum TransientFailure {
    /// The sentence for the user when `error` is transient, or nil when it is not.
    static func message(for error: any Error, messages: UserMessageCatalog) -> String? {
        switch error {
        case let error as APIError:
            switch error.code {
            case .transportFailure, .serverError, .rateLimited:
                return error.userMessage(messages)
            case .authenticationFailed:
                guard let authentication = error.authenticationError else { return error.userMessage(messages) }
                return Self.message(for: authentication, messages: messages)
            default:
                return nil
            }
        case let error as TokenAuthError:
            return Self.message(for: error, messages: messages)
        case let error as SecureHTTPError:
            return error.code == .cancelled ? nil : messages.message(for: error)
        case let error as URLError:
            return Self.message(for: error, messages: messages)
        default:
            return nil
        }
    }

    /// The store's error behind `error`, if it is one.
    static func storageError(of error: any Error) -> SecureStoreError? {
        switch error {
        case let error as SecureStoreError: error
        case let error as TokenAuthError: error.storageError
        case let error as APIError: error.authenticationError?.storageError
        default: nil
        }
    }

    private static func message(for error: TokenAuthError, messages: UserMessageCatalog) -> String? {
        guard !error.isTerminal else { return nil }
        switch error.code {
        case .transportFailure:
            return error.transportError.map { messages.message(for: $0) } ?? messages.message(for: .unreachable)
        case .serverError:
            return messages.statusMessages[500] ?? messages.fallback
        case .storageFailure, .sessionLocked:
            // The store's or the lock's, not the network's: trying again later changes nothing.
            return nil
        default:
            // Kept by the token manager (not a token response, the refresh-loop guard, a DPoP
            // nonce or proof): worth another try later.
            return messages.fallback
        }
    }

    private static func message(for error: URLError, messages: UserMessageCatalog) -> String? {
        switch error.code {
        case .timedOut:
            messages.message(for: .timedOut)
        case .networkConnectionLost:
            messages.message(for: .connectionLost)
        case .notConnectedToInternet, .cannotFindHost, .cannotConnectToHost, .dnsLookupFailed,
            .internationalRoamingOff, .callIsActive, .dataNotAllowed:
            messages.message(for: .unreachable)
        default:
            nil
        }
    }
}
