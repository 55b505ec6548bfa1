import NIOCore

/// One scheduled task serving every deadline a connection handler keeps (the exchange
/// deadline, the idle timeout, the PING schedule). Asked to fire by a time, it keeps an earlier
/// pending fire and replaces a later one; the handler's callback re-checks what is due and asks
/// again. So a keep-alive exchange whose deadline is later than the pending fire schedules and
/// cancels nothing. Used only on the connection's event loop.
final class CoalescingTimer {
    private var scheduled: Scheduled<Void>?
    private var due: NIODeadline?

    /// Makes sure `fire` runs on `loop` no later than `due`.
    func ensure(firesBy due: NIODeadline, on loop: any EventLoop, _ fire: @escaping () -> Void) {
        if let pending = self.due, pending <= due { return }
        self.scheduled?.cancel()
        self.due = due
        self.scheduled = loop.assumeIsolated().scheduleTask(deadline: due) {
            self.scheduled = nil
            self.due = nil
            fire()
        }
    }

    /// Cancels the pending fire, if any.
    func cancel() {
        self.scheduled?.cancel()
        self.scheduled = nil
        self.due = nil
    }
}

/// The deadlines of many exchanges on one event loop (the streams of an HTTP/2 connection),
/// served by one ``CoalescingTimer``: an exchange adds its deadline when it starts and removes
/// it when it ends, which schedules nothing as long as an earlier deadline is pending (request
/// deadlines are all "now plus the same timeout", so later ones never move the timer). When the
/// timer fires, the expired exchanges are told and the timer is asked again for the earliest
/// remaining deadline. Used on its event loop only.
final class DeadlineQueue {
    private var entries: [Int: (deadline: NIODeadline, expire: () -> Void)] = [:]
    private var lastToken = 0
    private let timer = CoalescingTimer()
    private let loop: any EventLoop

    init(loop: any EventLoop) {
        self.loop = loop
    }

    /// Calls `expire` on the loop once `deadline` passes, unless ``remove(_:)`` comes first.
    func add(_ deadline: NIODeadline, expire: @escaping () -> Void) -> Int {
        self.lastToken += 1
        self.entries[self.lastToken] = (deadline, expire)
        self.timer.ensure(firesBy: deadline, on: self.loop) { self.fire() }
        return self.lastToken
    }

    func remove(_ token: Int) {
        self.entries.removeValue(forKey: token)
    }

    /// Forgets every deadline and the pending fire (the connection closed).
    func cancelAll() {
        self.entries.removeAll()
        self.timer.cancel()
    }

    private func fire() {
        let now = NIODeadline.now()
        var expired: [Int] = []
        var next: NIODeadline?
        for (token, entry) in self.entries {
            if entry.deadline <= now {
                expired.append(token)
            } else if next.map({ entry.deadline < $0 }) ?? true {
                next = entry.deadline
            }
        }
        if let next { self.timer.ensure(firesBy: next, on: self.loop) { self.fire() } }
        for token in expired {
            self.entries.removeValue(forKey: token)?.expire()
        }
    }
}
