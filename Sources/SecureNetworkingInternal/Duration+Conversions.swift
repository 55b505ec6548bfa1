package import Foundation

extension Duration {
    /// The duration in seconds, as Foundation's `TimeInterval`.
    package var timeInterval: TimeInterval {
        let (seconds, attoseconds) = self.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// The duration in whole nanoseconds (truncated), as metrics record it.
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = self.components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }
}
