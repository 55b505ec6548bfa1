#if Tools
import Foundation
import NIOConcurrencyHelpers

/// The demo's clock: the server and the token manager read it, and the demo moves it forward
/// instead of waiting (certificate validity stays on the real clock).
final class DemoClock: Sendable {
    private let date: NIOLockedValueBox<Date>

    init(_ start: Date = Date()) { self.date = NIOLockedValueBox(start) }

    var now: Date { self.date.withLockedValue { $0 } }

    func advance(seconds: TimeInterval) {
        self.date.withLockedValue { $0 = $0.addingTimeInterval(seconds) }
    }
}
#endif
