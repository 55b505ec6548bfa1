import CFuzzDriver
import Dispatch
import NIOConcurrencyHelpers

/// Stops the run with `message` when an invariant does not hold: libFuzzer reports the trap
/// as a crash and writes the input that caused it.
public func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant broken: \(message())") }
}

/// The bytes of one input, read front to back: a harness takes its choices (a status, a
/// method, where to split) from the first bytes and gives the rest to the parser.
public struct FuzzInput {
    public private(set) var bytes: ArraySlice<UInt8>

    public init(_ start: UnsafePointer<UInt8>?, _ count: Int) {
        if let start, count > 0 {
            self.bytes = ArraySlice(UnsafeBufferPointer(start: start, count: count))
        } else {
            self.bytes = []
        }
    }

    /// The next byte, or 0 once the input is used up.
    public mutating func byte() -> UInt8 {
        self.bytes.popFirst() ?? 0
    }

    /// One of `choices`, picked by the next byte.
    public mutating func pick<T>(_ choices: [T]) -> T {
        choices[Int(self.byte()) % choices.count]
    }

    /// The next `count` bytes, or as many as are left.
    public mutating func take(_ count: Int) -> [UInt8] {
        let taken = self.bytes.prefix(count)
        self.bytes = self.bytes.dropFirst(count)
        return Array(taken)
    }

    /// Everything not yet read.
    public var rest: [UInt8] { Array(self.bytes) }

    /// Everything not yet read, as UTF-8 text (invalid sequences become U+FFFD).
    public var restText: String { String(decoding: self.bytes, as: UTF8.self) }
}

/// Runs `body` to completion from the synchronous fuzzer callback. The calling thread is
/// libFuzzer's, never one of Swift's cooperative pool, so blocking it cannot starve the task.
public func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let result = NIOLockedValueBox<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let value = await body()
        result.withLockedValue { $0 = value }
        done.signal()
    }
    done.wait()
    return result.withLockedValue { $0! }
}

/// Runs libFuzzer on `testOneInput`. SwiftPM links an executable target's entry point as
/// `<module>_main`, so each target defines that symbol and calls this; libFuzzer's own `main`
/// is then never linked, and its driver takes the command line as usual.
public func runFuzzer(
    _ argc: CInt,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, testOneInput)
}
