import Foundation
import NIOConcurrencyHelpers

/// Waits for an in-app browser session that reports its end through a completion handler, the
/// way `ASWebAuthenticationSession` does; the Apple adapter
/// (`AuthorizationRequest.authorize(presentationContextProvider:)`) is a thin call of it.
///
/// The session is made, configured and started on the main actor (its presentation anchor is
/// asked for there), but its completion handler is `@Sendable` and assumes no actor:
/// AuthenticationServices calls it on a thread of its own (always on macOS, sometimes on iOS).
/// A closure formed on the main actor without `@Sendable` would be main-actor isolated, and under
/// Swift 6 its entry checks the executor and traps when called elsewhere
/// (`_dispatch_assert_queue_fail`, SE-0423's dynamic isolation check).
enum WebAuthenticationFlow {
    /// Makes a session with a `@Sendable` completion, starts it, and returns what it reported.
    ///
    /// Whichever comes first ends the wait: the completion, or `start` returning false (which
    /// ends it with neither a URL nor an error). The session is kept until then, as
    /// `ASWebAuthenticationSession` requires, and released on the main actor.
    ///
    /// - Parameters:
    ///   - makeSession: makes the session; hand `completion` to it as it is. Wrapping it in a
    ///     closure here would form a main-actor closure again.
    ///   - start: configures and starts the session; false when it could not start.
    /// - Returns: the callback URL and the error the session reported.
    @MainActor
    static func run<Session: AnyObject>(
        makeSession: (_ completion: @escaping @Sendable (URL?, (any Error)?) -> Void) -> Session,
        start: (Session) -> Bool
    ) async -> (callbackURL: URL?, error: (any Error)?) {
        var session: Session?
        let outcome = await withCheckedContinuation {
            (continuation: CheckedContinuation<(callbackURL: URL?, error: (any Error)?), Never>) in
            let resumed = NIOLockedValueBox(false)
            let completion: @Sendable (URL?, (any Error)?) -> Void = { callbackURL, error in
                let first = resumed.withLockedValue { resumed in
                    defer { resumed = true }
                    return !resumed
                }
                if first { continuation.resume(returning: (callbackURL, error)) }
            }
            let made = makeSession(completion)
            session = made
            if !start(made) { completion(nil, nil) }
        }
        withExtendedLifetime(session) {}
        return outcome
    }
}
