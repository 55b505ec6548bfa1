#if Tools
import Foundation
import SecureNetworkingTesting
import Testing

/// Runs the built `securenet` executable, as a user would.
enum CLI {
    typealias TemporaryDirectory = SecureNetworkingTesting.TemporaryDirectory

    /// The built `securenet` executable.
    static func securenet() throws -> String {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "securenet"
        )
        let candidates = [binary.path, FileManager.default.currentDirectoryPath + "/.build/debug/securenet"]
        return try #require(
            candidates.first(where: FileManager.default.isExecutableFile(atPath:)),
            "securenet was not built"
        )
    }

    /// Runs `securenet pins` (or, with `subcommand`, another subcommand) with `arguments`, on a
    /// thread of its own: waiting for a child process on one of Swift's cooperative threads (as
    /// many as cores) would starve every other test's tasks for as long as the child runs, and
    /// their deadlines with them. (A synchronous test function runs on a cooperative thread too,
    /// so there is no blocking variant for tests to call.)
    static func run(
        _ path: String,
        _ arguments: [String],
        subcommand: String = "pins",
        environment: [String: String] = [:]
    ) async throws -> (status: Int32, output: String, error: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        try CLI.blockingRun(path, arguments, subcommand: subcommand, environment: environment)
                    }
                )
            }
        }
    }

    /// ``run(_:_:subcommand:environment:)`` on the calling thread, which it blocks until the
    /// child exits: only for a thread of its own (never a test function or a task).
    static func blockingRun(
        _ path: String,
        _ arguments: [String],
        subcommand: String = "pins",
        environment: [String: String] = [:]
    ) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = subcommand.split(separator: " ").map(String.init) + arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}
#endif
