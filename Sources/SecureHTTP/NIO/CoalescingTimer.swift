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
