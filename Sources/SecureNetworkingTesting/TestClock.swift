public import Foundation
import NIOConcurrencyHelpers

/// A clock a test moves by hand: a wall-clock `Date` and a monotonic instant that advance
/// together, and nothing else moves them.
///
/// Hand ``function`` to anything that takes a `@Sendable () -> Date` (a token manager, a pin
/// expiry check, the reference server) and ``instant`` to anything that measures durations.
///
/// ```swift
/// let clock = TestClock()
/// let manager = TokenManager(…, now: clock.function)
/// clock.advance(3_600)  // an hour later, for everyone holding the clock
/// ```
public final class TestClock: Sendable {
    private struct State {
        var date: Date
        var offset: Duration
    }

    private let state: NIOLockedValueBox<State>
    private let start = ContinuousClock.now

    /// A clock that reads `start` until it is advanced (by default 2027-01-15T08:00:00Z).
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        self.state = NIOLockedValueBox(State(date: start, offset: .zero))
    }

    /// The current wall-clock time.
    public var now: Date { self.state.withLockedValue { $0.date } }

    /// The current monotonic instant: the instant the clock was made, plus every advance since.
    public var instant: ContinuousClock.Instant { self.start + self.state.withLockedValue { $0.offset } }

    /// `now`, as a function for APIs that take a clock.
    public var function: @Sendable () -> Date { { self.now } }

    /// Moves both readings forward by `seconds` (backward if negative: the wall clock only;
    /// a monotonic instant never goes back).
    public func advance(_ seconds: TimeInterval) {
        self.state.withLockedValue {
            $0.date = $0.date.addingTimeInterval(seconds)
            if seconds > 0 { $0.offset += .milliseconds(Int64((seconds * 1_000).rounded())) }
        }
    }

    /// Moves both readings forward by `duration` (a negative duration moves the wall clock only).
    public func advance(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self.advance(Double(seconds) + Double(attoseconds) / 1e18)
    }
}
