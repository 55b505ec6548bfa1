import Foundation

/// A value behind a lock. `Synchronization.Mutex` needs macOS 15 / iOS 18, newer than the
/// package's platforms, so this wraps `NSLock`.
// SAFETY: `value` is only read or written inside `withLock`, which holds `lock`.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        self.lock.lock()
        defer { self.lock.unlock() }
        return try body(&self.value)
    }
}
