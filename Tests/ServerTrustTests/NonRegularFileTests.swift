import Foundation
import SecureNetworkingInternal
import SecureNetworkingTesting
import ServerTrust
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 51 item 12: a FIFO named as a trust anchor hung `policy check` for ever, and a policy
/// file that is `/dev/zero` was read until memory ran out. Every input is opened with
/// `O_NONBLOCK`, must be a regular file before a byte is read, and is read up to a limit.
///
/// A regression would block in `open` (a FIFO without a writer) or read without end
/// (`/dev/zero`); the time limit turns that into a failure.
@Suite("Inputs that are not regular files", .timeLimit(.minutes(1)))
struct NonRegularFileTests {
    /// A folder with a FIFO `pipe` that nothing writes to.
    struct Folder {
        let directory: TemporaryDirectory
        let fifo: String

        init() throws {
            self.directory = try TemporaryDirectory(prefix: "non-regular")
            self.fifo = self.directory.url.standardizedFileURL.appendingPathComponent("pipe").path
            guard mkfifo(self.fifo, 0o600) == 0 else { throw POSIXError(.EIO) }
        }
    }

    static func failure(_ body: () throws(ServerTrustError) -> Void) -> ServerTrustError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test func aPolicyWhoseTrustAnchorIsAFIFOIsRefusedAtOnce() throws {
        let folder = try Folder()
        let policy = try folder.directory.write(
            "policy.json",
            Array(#"{"trustAnchors": {"system": true, "certificates": ["pipe"]}}"#.utf8)
        )
        let error = Self.failure { () throws(ServerTrustError) in
            _ = try TransportSecurityPolicy(contentsOfFile: policy)
        }
        #expect(error?.code == .invalidPolicyFile)
        #expect(error?.keyPath == "$.trustAnchors.certificates[0]")
        #expect(error?.message.contains("it is a FIFO, not a regular file") == true, "\(String(describing: error))")
    }

    @Test func aFIFOGivenAsAFileIsRefusedByEveryReader() throws {
        let folder = try Folder()
        let readers: [(String, () throws(ServerTrustError) -> Void)] = [
            ("policy", { () throws(ServerTrustError) in _ = try TransportSecurityPolicy(contentsOfFile: folder.fifo) }),
            (
                "anchors",
                { () throws(ServerTrustError) in _ = try TrustAnchors.system(addingPEMFile: folder.fifo) }
            ),
            (
                "Info.plist",
                { () throws(ServerTrustError) in
                    _ = try TransportSecurityPolicy.readInfoPlist(contentsOfFile: folder.fifo)
                }
            ),
            ("certificate file", { () throws(ServerTrustError) in _ = try CertificateFile(path: folder.fifo) }),
        ]
        for (name, read) in readers {
            let error = Self.failure(read)
            #expect(error?.code == .unreadableFile, "\(name)")
            #expect(
                error?.message.contains("\(folder.fifo)\": it is a FIFO, not a regular file") == true,
                "\(name): \(String(describing: error))"
            )
        }
    }

    @Test func aDeviceIsRefusedBeforeAByteIsRead() throws {
        for (name, read) in [
            ("policy", { () throws(ServerTrustError) in _ = try TransportSecurityPolicy(contentsOfFile: "/dev/zero") }),
            ("anchors", { () throws(ServerTrustError) in _ = try TrustAnchors.only(pemFile: "/dev/zero") }),
        ] as [(String, () throws(ServerTrustError) -> Void)] {
            let error = Self.failure(read)
            #expect(error?.code == .unreadableFile, "\(name)")
            #expect(
                error?.message.contains("\"/dev/zero\": it is a character device, not a regular file") == true,
                "\(name): \(String(describing: error))"
            )
        }
    }

    /// The shared reader: a FIFO, a device and a folder by their kind, a file past the limit as
    /// too large (not read past one byte more), a symbolic link when links are not followed.
    @Test func theReaderSaysWhatAFileIs() throws {
        let folder = try Folder()
        #expect(throws: RegularFileReader.Failure.notRegularFile(kind: "a FIFO")) {
            try RegularFileReader.read(folder.fifo, limit: 100)
        }
        #expect(throws: RegularFileReader.Failure.notRegularFile(kind: "a character device")) {
            try RegularFileReader.read("/dev/zero", limit: 100)
        }
        #expect(throws: RegularFileReader.Failure.notRegularFile(kind: "a directory")) {
            try RegularFileReader.read(folder.directory.url.path, limit: 100)
        }
        let file = try folder.directory.write("ten", Array("0123456789".utf8))
        #expect(try RegularFileReader.read(file, limit: 10) == Data("0123456789".utf8))
        #expect(throws: RegularFileReader.Failure.tooLarge(limit: 9)) { try RegularFileReader.read(file, limit: 9) }
        let link = folder.directory.url.appendingPathComponent("link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        #expect(try RegularFileReader.read(link, limit: 10).count == 10)
        #expect(throws: RegularFileReader.Failure.symbolicLink) {
            try RegularFileReader.read(link, followingLinks: false, limit: 10)
        }
        #expect(throws: RegularFileReader.Failure.missing) {
            try RegularFileReader.read(folder.directory.url.appendingPathComponent("none").path, limit: 10)
        }
    }
}
