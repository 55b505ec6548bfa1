import NIOConcurrencyHelpers
import NIOCore

extension ConnectionSetup {
    /// On the event loop, once connected: arms the handshake timer and resumes `continuation`
    /// when the handshake ends. The timer and the handshake's completion run on the same loop,
    /// so exactly one of them decides.
    static func awaitHandshake(
        channel: any Channel,
        handshake: EventLoopFuture<Negotiated>?,
        attempt: ChannelCancellation,
        origin: Origin,
        budget: Duration,
        timeouts: HTTPTransportConfiguration.Timeouts,
        mapError: @escaping @Sendable (any Error) -> SecureHTTPError,
        onClose: @escaping @Sendable () -> Void,
        continuation: CheckedContinuation<(any Channel, Negotiated), any Error>
    ) {
        guard let handshake else {
            channel.close(promise: nil)
            continuation.resume(throwing: SecureHTTPError(.connectFailed, "the connection to \(origin) was not set up"))
            return
        }
        guard attempt.attach(channel) else {
            channel.close(promise: nil)
            continuation.resume(throwing: SecureHTTPError(.cancelled, "the request was cancelled during the handshake"))
            return
        }
        let timer = HandshakeTimer()
        let loop = channel.eventLoop.assumeIsolated()
        let scheduled = loop.scheduleTask(in: TimeAmount(max(budget, .zero))) {
            timer.timedOut = true
            channel.close(promise: nil)
        }
        handshake.assumeIsolated().whenComplete { result in
            scheduled.cancel()
            switch result {
            case .success(let negotiated):
                channel.closeFuture.whenComplete { _ in onClose() }
                continuation.resume(returning: (channel, negotiated))
            case .failure(let error):
                channel.close(promise: nil)
                if timer.timedOut {
                    if budget < timeouts.tlsHandshake {
                        continuation.resume(
                            throwing: SecureHTTPError(
                                .deadlineExceeded,
                                "the request deadline passed during the TLS handshake with \(origin)"
                            )
                        )
                    } else {
                        continuation.resume(
                            throwing: SecureHTTPError(
                                .tlsHandshakeTimeout,
                                "the TLS handshake with \(origin) timed out after \(TransportErrorText.seconds(timeouts.tlsHandshake))"
                            )
                        )
                    }
                } else {
                    continuation.resume(throwing: mapError(error))
                }
            }
        }
    }

}

/// Carries the handshake future out of the channel initializer to the connect callback (both
/// run on the connection's event loop, the initializer first).
// SAFETY: written once in the channel initializer and read in the callback of the connect
// future, which completes after the initializer ran; the lock makes that ordering explicit.
final class HandshakeBox: @unchecked Sendable {
    private let lock = NIOLock()
    private var _future: EventLoopFuture<ConnectionSetup.Negotiated>?

    var future: EventLoopFuture<ConnectionSetup.Negotiated>? {
        get { self.lock.withLock { self._future } }
        set { self.lock.withLock { self._future = newValue } }
    }
}

/// Whether the handshake timer fired; only touched on the connection's event loop.
final class HandshakeTimer {
    var timedOut = false
}

/// Lets a cancelled task close a channel that is still being set up: a connection in its
/// handshake, or an HTTP/2 stream (closing one that is open sends RST_STREAM with CANCEL).
// SAFETY: both fields are read and written only under `lock`.
final class ChannelCancellation: @unchecked Sendable {
    private let lock = NIOLock()
    private var channel: (any Channel)?
    private var cancelled = false

    /// Records the channel; false when the task was cancelled first (the caller then drops it).
    func attach(_ channel: any Channel) -> Bool {
        self.lock.withLock {
            self.channel = channel
            return !self.cancelled
        }
    }

    /// Cancels: closes the channel if there is one (which fails whatever waits on it).
    func cancel() {
        let channel = self.lock.withLock { () -> (any Channel)? in
            self.cancelled = true
            return self.channel
        }
        channel?.close(promise: nil)
    }
}
