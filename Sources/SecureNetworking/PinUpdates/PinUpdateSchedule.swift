public import Foundation

/// When ``PinUpdater`` checks for a pin-set update after a pin failure: at once after the first,
/// then no sooner than a delay that doubles with every check that found nothing new (up to a
/// maximum), so that a man in the middle who fails every handshake cannot make the app fetch in
/// a loop. A check that applies an update resets the delay. I/O-free: the updater asks it and
/// performs.
public struct PinUpdateSchedule: Hashable, Sendable {
    /// The delay after the first check that found nothing new.
    public let minimumDelay: TimeInterval
    /// The longest delay between checks triggered by pin failures.
    public let maximumDelay: TimeInterval
    /// The current delay (0 before any failure-triggered check).
    public private(set) var delay: TimeInterval = 0
    /// No failure-triggered check before this instant.
    public private(set) var notBefore: Date?
    /// A check is running: another trigger joins it rather than starting one.
    public private(set) var checking = false
    /// ``PinUpdater/start(applyingTo:)`` has run: before it, a pin failure starts no check (the
    /// stored record with the highest version applied has not been read, and a check then
    /// could take an older, still-valid update for a new one).
    public private(set) var started = false

    /// A schedule with the given delays (`maximumDelay` is at least `minimumDelay`).
    public init(minimumDelay: TimeInterval = 30, maximumDelay: TimeInterval = 3_600) {
        self.minimumDelay = max(0, minimumDelay)
        self.maximumDelay = max(self.minimumDelay, maximumDelay)
    }

    /// The updater has started: pin failures may start checks from now on.
    public mutating func start() {
        self.started = true
    }

    /// A pin failure was seen at `now`: whether to check now (and the check is then marked
    /// running). Never before ``start()``.
    public mutating func pinFailure(at now: Date) -> Bool {
        guard self.started, !self.checking else { return false }
        if let notBefore, now < notBefore { return false }
        self.checking = true
        return true
    }

    /// A check (whatever started it) begins at `now`: false while another runs.
    public mutating func checkStarting() -> Bool {
        guard !self.checking else { return false }
        self.checking = true
        return true
    }

    /// A check ended at `now`; `applied` says whether it applied a new update, and
    /// `afterPinFailure` whether a pin failure started it. After a failure-triggered check that
    /// applied nothing, the next such check waits (the delay doubles each time); an applied
    /// update resets the delay. A scheduled check that found nothing changes no delay.
    public mutating func checkFinished(at now: Date, applied: Bool, afterPinFailure: Bool) {
        self.checking = false
        if applied {
            self.delay = 0
            self.notBefore = nil
        } else if afterPinFailure {
            self.delay = self.delay == 0 ? self.minimumDelay : min(self.maximumDelay, self.delay * 2)
            self.notBefore = now.addingTimeInterval(self.delay)
        }
    }
}
