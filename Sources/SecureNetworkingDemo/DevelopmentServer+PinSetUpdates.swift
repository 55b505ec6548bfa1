#if Tools
public import Foundation
import NIOConcurrencyHelpers
import NIOPosix
import SecureNetworking
import SecureNetworkingInternal

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension DevelopmentServer {
    /// What a look at the pin-set update file found: what is served now, and why the file is not
    /// (or why an app would refuse it).
    public struct Publication: Sendable, CustomStringConvertible {
        /// The version served now at ``Summary/pinSetUpdateURL``; nil when nothing is (404).
        public let servedVersion: UInt64?
        /// Whether the file's contents are what is served now. False when the file holds no
        /// signed pin-set update (one half written, or another file): the update served before
        /// is still served.
        public let published: Bool
        /// Why the file is not published; or, when it is, why an app that trusts the folder's
        /// update key for the audience `securenet-dev` and compiles in its policy file's pins
        /// would refuse it (a document signed by another key or for another audience, expired,
        /// not newer than the one served before, dropping `localhost`): the code and message of
        /// the app's `ServerTrustError`. Nil when such an app applies it.
        public let problem: String?
        /// The file's name, for ``description``.
        let file: String

        /// One line for a person: `published pin-set update version 2 (pins.signed.json)`, …
        public var description: String {
            if !self.published {
                let still = self.servedVersion.map { "still serving version \($0)" } ?? "nothing is served"
                return "\(self.file) not published: \(self.problem ?? "unreadable"); \(still)"
            }
            guard let version = self.servedVersion else {
                return "\(self.file) is gone: nothing is published (404)"
            }
            let line = "published pin-set update version \(version) (\(self.file))"
            return self.problem.map { "\(line); an app with this folder's update key and policy refuses it: \($0)" }
                ?? line
        }
    }

    /// Reads the pin-set update file (``Summary/pinSetUpdateFile``) again and, when it changed,
    /// serves what it holds at ``Summary/pinSetUpdateURL``. This is how a new version is
    /// published without a restart: sign it into the file (`securenet pins sign --key
    /// pin-update-key.pem --version 2 … --out pins.signed.json`); `securenet serve` looks every
    /// second.
    ///
    /// The file is served when it is a signed update whose document parses, signed by any key
    /// and judged by nothing else, so that what an app refuses can be rehearsed too
    /// (``Publication/problem`` says what it would refuse). A file that is no signed update
    /// leaves the update served before in place; a removed file stops the publication.
    ///
    /// - Returns: what changed, or nil when the file holds what it held at the last look.
    public func publishPinSetUpdateFile() async -> Publication? {
        let publisher = self.publisher
        // File I/O, off the cooperative pool.
        return try? await NIOThreadPool.singleton.runIfActive { publisher.look(now: Date()) }
    }
}

/// The signed pin-set update the development server serves, read from its file.
final class PinSetPublisher: Sendable {
    struct State {
        /// Whether the file was there, and what it held (nil: unreadable), at the last look; nil
        /// before the first.
        var seen: (exists: Bool, contents: Data?)?
        /// The envelope served, and its version.
        var served: (envelope: Data, version: UInt64)?
    }

    let file: URL
    let policyFile: URL
    let updateKey: PinUpdateKey
    private let state = NIOLockedValueBox(State())

    init(file: URL, policyFile: URL, updateKey: PinUpdateKey) {
        self.file = file
        self.policyFile = policyFile
        self.updateKey = updateKey
    }

    /// What `GET /.well-known/securenet-pins.json` answers; nil is 404.
    func served() -> Data? {
        self.state.withLockedValue { $0.served?.envelope }
    }

    /// Reads the file and publishes it when it changed. Blocks on file I/O.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    func look(now: Date) -> DevelopmentServer.Publication? {
        let exists = FileManager.default.fileExists(atPath: self.file.path)
        // A regular file of at most 1 MiB: a FIFO or a device in its place is unreadable at
        // once, never waited on or read without end.
        let contents = exists ? try? RegularFileReader.read(self.file.path, limit: 1 << 20) : nil
        let unchanged = self.state.withLockedValue { state in
            defer { state.seen = (exists, contents) }
            return state.seen.map { $0.exists == exists && $0.contents == contents } ?? false
        }
        if unchanged { return nil }
        let name = self.file.lastPathComponent
        guard exists else {
            self.state.withLockedValue { $0.served = nil }
            return .init(servedVersion: nil, published: true, problem: nil, file: name)
        }
        let previous = self.state.withLockedValue { $0.served?.version }
        guard let contents else {
            return .init(servedVersion: previous, published: false, problem: "it cannot be read", file: name)
        }
        let update: PinSetUpdate
        do {
            update = try PinSetUpdate(json: try SignedPinSetUpdate(envelope: contents).document)
        } catch {
            return .init(
                servedVersion: previous,
                published: false,
                problem: "it is not a signed pin-set update (\(error.code): \(error.message))",
                file: name
            )
        }
        self.state.withLockedValue { $0.served = (contents, update.version) }
        return .init(
            servedVersion: update.version,
            published: true,
            problem: self.appRefusal(contents, appliedVersion: previous, now: now),
            file: name
        )
    }

    /// Why an app that trusts ``updateKey`` for the folder's audience
    /// (``DevelopmentFolder/pinUpdateAudience``), compiles in the policy file's pins and applied
    /// `appliedVersion` would refuse `envelope`; nil when it would apply it.
    private func appRefusal(_ envelope: Data, appliedVersion: UInt64?, now: Date) -> String? {
        let compiled = (try? TransportSecurityPolicy(contentsOfFile: self.policyFile.path))?.pinning ?? .none
        do {
            _ = try PinUpdateVerifier(
                trustedKeys: [self.updateKey],
                audience: DevelopmentFolder.pinUpdateAudience
            ).verify(
                envelope,
                current: compiled,
                compiled: compiled,
                appliedVersion: appliedVersion,
                now: now
            )
            return nil
        } catch {
            return "\(error.code): \(error.message)"
        }
    }
}
#endif
