/// A small map that keeps at most ``capacity`` entries and forgets the least recently used one
/// to make room. Linear in its size, which is meant to stay small (the pool keeps a handful of
/// TLS contexts in one). Not thread-safe: its owner locks it.
struct LeastRecentlyUsedCache<Key: Hashable, Value> {
    let capacity: Int
    /// Most recently used last.
    private var entries: [(key: Key, value: Value)] = []

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var count: Int { self.entries.count }

    /// The value for `key`, which becomes the most recently used.
    mutating func value(for key: Key) -> Value? {
        guard let index = self.entries.firstIndex(where: { $0.key == key }) else { return nil }
        let entry = self.entries.remove(at: index)
        self.entries.append(entry)
        return entry.value
    }

    /// Adds or replaces the value for `key`, forgetting the least recently used entry when full.
    mutating func set(_ value: Value, for key: Key) {
        if let index = self.entries.firstIndex(where: { $0.key == key }) { self.entries.remove(at: index) }
        if self.entries.count >= self.capacity { self.entries.removeFirst() }
        self.entries.append((key, value))
    }
}

extension LeastRecentlyUsedCache: Sendable where Key: Sendable, Value: Sendable {}
