import Foundation
import SecureNetworkingInternal
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 51 item 4: the one way the package creates a file that holds a secret (the store's key
/// file, `securenet pins keygen`'s key, `serve`'s and the intercept CA's keys).
@Suite("PrivateFileWriter: a secret's file, private from its first byte")
struct PrivateFileWriterTests {
    /// A fresh folder, removed afterwards.
    final class Folder {
        let path: String

        init() throws {
            self.path =
                FileManager.default.temporaryDirectory.appendingPathComponent("private-\(UUID().uuidString)")
                .path
            try FileManager.default.createDirectory(atPath: self.path, withIntermediateDirectories: false)
        }

        deinit { try? FileManager.default.removeItem(atPath: self.path) }

        func file(_ name: String) -> String { self.path + "/" + name }
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        return info.st_mode & 0o7777
    }

    @Test func theFileIsCreatedWithExactlyTheModeAndContents() throws {
        let folder = try Folder()
        try PrivateFileWriter.create(folder.file("key.pem"), contents: Data("secret".utf8))
        #expect(Self.mode(folder.file("key.pem")) == 0o600)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.file("key.pem"))) == Data("secret".utf8))
        try PrivateFileWriter.create(folder.file("key.pub.pem"), contents: Data("public".utf8), mode: 0o644)
        #expect(Self.mode(folder.file("key.pub.pem")) == 0o644)
    }

    @Test func anExistingFileIsRefusedAndLeftAsItIs() throws {
        let folder = try Folder()
        let path = folder.file("key.pem")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("planted".utf8)))
        #expect(throws: PrivateFileWriter.Failure.exists) {
            try PrivateFileWriter.create(path, contents: Data("secret".utf8))
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "planted")
    }

    /// A symbolic link, to a file or to nothing, is refused and not followed: the file it
    /// points to is neither created nor written.
    @Test func aSymbolicLinkIsRefusedAndNotFollowed() throws {
        let folder = try Folder()
        let path = folder.file("key.pem")
        let target = folder.file("elsewhere.pem")
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        #expect(throws: PrivateFileWriter.Failure.symbolicLink) {
            try PrivateFileWriter.create(path, contents: Data("secret".utf8))
        }
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(FileManager.default.createFile(atPath: target, contents: Data("theirs".utf8)))
        #expect(throws: PrivateFileWriter.Failure.symbolicLink) {
            try PrivateFileWriter.create(path, contents: Data("secret".utf8))
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "theirs")
    }

    @Test func aMissingFolderIsReportedWithItsError() throws {
        let folder = try Folder()
        #expect(throws: PrivateFileWriter.Failure.cannotCreate(errno: ENOENT)) {
            try PrivateFileWriter.create(folder.file("none/key.pem"), contents: Data())
        }
    }
}
