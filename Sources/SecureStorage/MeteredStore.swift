public import CoreMetrics
public import Foundation

/// A ``SecureStore`` that counts the operations of the store it wraps with swift-metrics, by
/// operation and outcome: `securenet_store_operations_total{operation, outcome}`.
///
/// `operation` is `read`, `write`, `remove`, `contains` or `lock`; `outcome` is `success`,
/// `missing` (a read of an absent item) or the ``SecureStoreError/Code`` of a failure
/// (`tampered`, `wrongKey`, `deviceLocked`, …): a tampered store or a device that keeps
/// refusing the Keychain shows up on a dashboard. Item keys and values never reach a dimension.
///
/// ```swift
/// let store = MeteredStore(try EncryptedFileStore(directory: folder, keySource: .keyFile(keyFile)))
/// ```
public struct MeteredStore: SecureStore {
    /// The metric's name.
    public static let label = "securenet_store_operations_total"

    private let base: any SecureStore
    private let factory: any MetricsFactory

    /// Wraps `base`. Nil `factory` (the default) uses `MetricsSystem.factory`, which records
    /// nothing until the app bootstraps a backend.
    public init(_ base: any SecureStore, factory: (any MetricsFactory)? = nil) {
        self.base = base
        self.factory = factory ?? MetricsSystem.factory
    }

    public func data(forKey key: String) async throws(SecureStoreError) -> Data? {
        let data = try await self.counting("read") { () async throws(SecureStoreError) in
            try await self.base.data(forKey: key)
        } outcome: {
            $0 == nil ? "missing" : "success"
        }
        return data
    }

    public func set(_ data: Data, forKey key: String) async throws(SecureStoreError) {
        try await self.counting("write") { () async throws(SecureStoreError) in
            try await self.base.set(data, forKey: key)
        }
    }

    public func removeValue(forKey key: String) async throws(SecureStoreError) {
        try await self.counting("remove") { () async throws(SecureStoreError) in
            try await self.base.removeValue(forKey: key)
        }
    }

    public func contains(_ key: String) async throws(SecureStoreError) -> Bool {
        try await self.counting("contains") { () async throws(SecureStoreError) in
            try await self.base.contains(key)
        }
    }

    public func coordinationData(forKey key: String) async throws(SecureStoreError) -> Data? {
        let data = try await self.counting("read") { () async throws(SecureStoreError) in
            try await self.base.coordinationData(forKey: key)
        } outcome: {
            $0 == nil ? "missing" : "success"
        }
        return data
    }

    public func setCoordinationData(_ data: Data, forKey key: String) async throws(SecureStoreError) {
        try await self.counting("write") { () async throws(SecureStoreError) in
            try await self.base.setCoordinationData(data, forKey: key)
        }
    }

    public func lockAcrossProcesses(timeout: Duration) async throws(SecureStoreError) -> CrossProcessLock? {
        try await self.counting("lock") { () async throws(SecureStoreError) in
            try await self.base.lockAcrossProcesses(timeout: timeout)
        }
    }

    private func counting<Value>(
        _ operation: String,
        _ body: () async throws(SecureStoreError) -> Value,
        outcome: (Value) -> String = { _ in "success" }
    ) async throws(SecureStoreError) -> Value {
        do {
            let value = try await body()
            self.count(operation, outcome(value))
            return value
        } catch {
            self.count(operation, error.code.description)
            throw error
        }
    }

    private func count(_ operation: String, _ outcome: String) {
        Counter(label: Self.label, dimensions: [("operation", operation), ("outcome", outcome)], factory: self.factory)
            .increment()
    }
}
