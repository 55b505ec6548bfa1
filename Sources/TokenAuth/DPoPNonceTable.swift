/// The latest `DPoP-Nonce` (RFC 9449 §8, §9) each origin supplied, for the origins a
/// ``DPoPSigner`` used most recently: at most ``maximumOrigins`` of them, so a client that talks
/// to many origins (or follows redirects to ever new ones) does not grow the table for ever.
///
/// Recording a nonce or reading one for a proof makes its origin the most recent; recording one
/// for a new origin when the table is full forgets the least recently used origin's nonce. An
/// origin whose nonce was forgotten is challenged again (`use_dpop_nonce`) and answered with a
/// retry, as on its first request: a nonce is an optimisation, never a credential.
struct DPoPNonceTable: Sendable {
    /// The most origins whose nonce is kept.
    static let maximumOrigins = 32

    /// Origin → nonce.
    private var nonces: [String: String] = [:]
    /// The origins of ``nonces``, least recently used first.
    private var order: [String] = []

    /// How many origins have a nonce.
    var count: Int { self.nonces.count }

    /// The nonce of `origin`, if one is kept; the origin becomes the most recently used.
    mutating func nonce(for origin: String) -> String? {
        guard let nonce = self.nonces[origin] else { return nil }
        self.touch(origin)
        return nonce
    }

    /// Keeps `nonce` as `origin`'s, forgetting the least recently used origin's when a new origin
    /// would make more than ``maximumOrigins``.
    mutating func record(_ nonce: String, for origin: String) {
        if self.nonces.updateValue(nonce, forKey: origin) != nil {
            self.touch(origin)
            return
        }
        self.order.append(origin)
        if self.order.count > Self.maximumOrigins {
            self.nonces[self.order.removeFirst()] = nil
        }
    }

    /// Moves `origin` to the most recent end (a linear scan of at most ``maximumOrigins``).
    private mutating func touch(_ origin: String) {
        guard self.order.last != origin, let index = self.order.firstIndex(of: origin) else { return }
        self.order.remove(at: index)
        self.order.append(origin)
    }
}
