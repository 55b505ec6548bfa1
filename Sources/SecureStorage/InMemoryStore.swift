public import Foundation
import SecureNetworkingInternal

/// A store that keeps items in memory only: for tests and for sessions that must not persist.
public final class InMemoryStore: SecureStore {
    private let items: Locked<[String: Data]>

    /// Creates a store, optionally with initial items.
    public init(_ items: [String: Data] = [:]) {
        self.items = Locked(items)
    }

    /// The bytes under `key`, or nil.
    public func data(forKey key: String) async throws(SecureStoreError) -> Data? {
        try validateItemKey(key)
        return self.items.withLock { $0[key] }
    }

    /// Stores `data` under `key`.
    public func set(_ data: Data, forKey key: String) async throws(SecureStoreError) {
        try validateItemKey(key)
        self.items.withLock { $0[key] = data }
    }

    /// Removes the item under `key`.
    public func removeValue(forKey key: String) async throws(SecureStoreError) {
        try validateItemKey(key)
        _ = self.items.withLock { $0.removeValue(forKey: key) }
    }

    /// Whether an item exists under `key`.
    public func contains(_ key: String) async throws(SecureStoreError) -> Bool {
        try validateItemKey(key)
        return self.items.withLock { $0[key] != nil }
    }

    /// The item keys held, sorted (never the values).
    public var keys: [String] { self.items.withLock { $0.keys.sorted() } }
}
