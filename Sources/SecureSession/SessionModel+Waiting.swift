import Observation
import SecureNetworkingInternal

@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
extension SessionModel {
    /// Returns true once the state satisfies `condition`, or false when `deadline` passes or the
    /// task is cancelled first. Woken by Observation on each change of the state, never by
    /// polling: for what drives the model from outside the main actor's events, such as the demo
    /// and the tests, which wait for a sign-out that arrives through the token manager's events.
    package func waitForState(
        until deadline: ContinuousClock.Instant,
        _ condition: (SessionState<User>) -> Bool
    ) async -> Bool {
        while !condition(self.state) {
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
            let wait = Locked<(continuation: CheckedContinuation<Void, Never>?, done: Bool)>((nil, false))
            // Resumes the wait once, whichever comes first: a change, the deadline, cancellation.
            let finish: @Sendable () -> Void = {
                let continuation = wait.withLock { wait -> CheckedContinuation<Void, Never>? in
                    defer { wait = (nil, true) }
                    return wait.continuation
                }
                continuation?.resume()
            }
            // The bound of the wait, not an interleaving: a change of the state ends it first.
            let timer = Task {
                try? await Task.sleep(until: deadline)
                finish()
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let done = wait.withLock { wait -> Bool in
                        if !wait.done { wait.continuation = continuation }
                        return wait.done
                    }
                    if done {
                        continuation.resume()
                        return
                    }
                    withObservationTracking {
                        _ = self.state
                    } onChange: {
                        finish()
                    }
                }
            } onCancel: {
                finish()
            }
            timer.cancel()
        }
        return true
    }
}
