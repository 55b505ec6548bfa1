import Foundation
import SecureHTTP
import SecureNetworking
import SecureStorage
import Testing
import TokenAuth

@testable import SecureSession

/// Which failures of the `user` closure keep the session offline, and the sentence for each:
/// TokenAuth's transient errors and the client's and transport's errors that say the same; never
/// a refusal, a decoding failure, a cancellation or the store's failure.
@Suite("A session's transient failures")
struct TransientFailureTests {
    static let catalog = UserMessageCatalog()

    static func message(_ situation: UserMessageCatalog.Situation) -> String {
        catalog.message(for: situation)
    }

    static let connectFailed = SecureHTTPError(.connectFailed, "connection refused")

    @Test func transientFailuresKeepTheSessionWithTheirSentence() {
        let table: [(any Error, String)] = [
            // The closure's own request could not be sent.
            (APIError(.transportFailure, "refused", transportError: Self.connectFailed), Self.message(.unreachable)),
            // The refresh before it could not reach the token endpoint, or it answered 5xx.
            (
                APIError(
                    .authenticationFailed,
                    "no token",
                    transportError: SecureHTTPError(.deadlineExceeded, "late"),
                    authenticationError: TokenAuthError(
                        .transportFailure,
                        "unreachable",
                        transportError: SecureHTTPError(.deadlineExceeded, "late")
                    )
                ),
                Self.message(.timedOut)
            ),
            (
                APIError(.authenticationFailed, "no token", authenticationError: TokenAuthError(.serverError, "503")),
                Self.catalog.statusMessages[500]!
            ),
            // The server answered 5xx or 429 to the closure's request.
            (APIError(.serverError, "503", status: 503), Self.catalog.statusMessages[503]!),
            (APIError(.rateLimited, "429", status: 429), Self.catalog.statusMessages[429]!),
            // The token manager's and the transport's own errors.
            (
                TokenAuthError(
                    .transportFailure,
                    "lost",
                    transportError: SecureHTTPError(.connectionClosed, "closed")
                ),
                Self.message(.connectionLost)
            ),
            (TokenAuthError(.transportFailure, "no transport error"), Self.message(.unreachable)),
            (TokenAuthError(.invalidResponse, "a captive portal's page"), Self.catalog.fallback),
            (TokenAuthError(.refreshLoop, "too many"), Self.catalog.fallback),
            (Self.connectFailed, Self.message(.unreachable)),
            // URLSession's, for a closure that makes its own request.
            (URLError(.notConnectedToInternet), Self.message(.unreachable)),
            (URLError(.cannotConnectToHost), Self.message(.unreachable)),
            (URLError(.timedOut), Self.message(.timedOut)),
            (URLError(.networkConnectionLost), Self.message(.connectionLost)),
        ]
        for (error, message) in table {
            #expect(TransientFailure.message(for: error, messages: Self.catalog) == message, "\(error)")
        }
    }

    @Test func otherFailuresAreNotTransient() {
        struct ProfileUndecodable: Error {}
        let invalidGrant = TokenAuthError(.invalidGrant, "refused", oauthError: "invalid_grant")
        let table: [any Error] = [
            // The session ended (the model tells it from the token manager, not from this).
            APIError(.signedOut, "ended", authenticationError: invalidGrant),
            invalidGrant,
            TokenAuthError(.signedOut, "no session"),
            // Refused or undecodable: trying again later changes nothing.
            APIError(.notFound, "404", status: 404),
            APIError(.unauthorized, "401", status: 401),
            APIError(.decodingFailed, "not a profile", status: 200),
            ProfileUndecodable(),
            URLError(.badURL),
            // The store's failures, and cancellation.
            TokenAuthError(.storageFailure, "store", storageError: SecureStoreError(.ioFailure, "disk")),
            TokenAuthError(.sessionLocked, "locked"),
            APIError(.cancelled, "cancelled"),
            SecureHTTPError(.cancelled, "cancelled"),
            CancellationError(),
        ]
        for error in table {
            #expect(TransientFailure.message(for: error, messages: Self.catalog) == nil, "\(error)")
        }
    }

    @Test func theStoresErrorIsFoundBehindTheClientsAndTheTokenManagers() {
        let locked = SecureStoreError(.deviceLocked, "locked")
        let tokens = TokenAuthError(.storageFailure, "store", storageError: locked)
        #expect(TransientFailure.storageError(of: locked)?.code == .deviceLocked)
        #expect(TransientFailure.storageError(of: tokens)?.code == .deviceLocked)
        #expect(
            TransientFailure.storageError(of: APIError(.authenticationFailed, "x", authenticationError: tokens))?.code
                == .deviceLocked
        )
        #expect(TransientFailure.storageError(of: Self.connectFailed) == nil)
    }
}
