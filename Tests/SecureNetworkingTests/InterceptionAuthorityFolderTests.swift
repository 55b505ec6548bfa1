#if TestServers
import Foundation
import ServerTrust
import Testing

@testable import SecureNetworkingTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The intercept CA's folder and key are private: whoever can write the folder or read the key
/// can intercept every device that trusts the CA.
@Suite("Intercept CA folder")
struct InterceptionAuthorityFolderTests {
    /// A fresh parent folder (mode 0700) for one test, removed afterwards.
    final class Parent {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("intercept-ca-\(UUID().uuidString)")
        init() throws {
            try FileManager.default.createDirectory(
                at: self.url,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        }
        deinit { try? FileManager.default.removeItem(at: self.url) }

        var ca: URL { self.url.appendingPathComponent("ca") }
        var key: String { self.ca.appendingPathComponent(InterceptionAuthority.File.privateKeyPEM).path }
    }

    static func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    /// The message of the error `body` throws, which must be `unreadableFile`.
    static func refusal(_ body: () throws -> Void) -> String? {
        let error = #expect(throws: ServerTrustError.self) { try body() }
        #expect(error?.code == .unreadableFile)
        return error?.message
    }

    @Test func aNewCAIsWrittenToAPrivateFolderWithA0600KeyAndReused() throws {
        let parent = try Parent()
        let (created, wasCreated) = try InterceptionAuthority.loadOrCreate(in: parent.ca)
        #expect(wasCreated)
        #expect(try Self.mode(parent.ca.path) == 0o700)
        #expect(try Self.mode(parent.key) == 0o600)
        let (reused, wasReused) = try InterceptionAuthority.loadOrCreate(in: parent.ca)
        #expect(!wasReused)
        #expect(reused.pin == created.pin)
    }

    @Test func aFolderThatGroupOrOthersCanEnterIsRefused() throws {
        let parent = try Parent()
        _ = try InterceptionAuthority.loadOrCreate(in: parent.ca)
        #expect(chmod(parent.ca.path, 0o755) == 0)
        let message = Self.refusal { _ = try InterceptionAuthority.loadOrCreate(in: parent.ca) }
        #expect(
            message
                == "the intercept CA folder \(parent.ca.path) has mode 0755; group and others must have no access (chmod 700)"
        )
    }

    @Test func aSharedFolderIsNotWrittenTo() throws {
        let parent = try Parent()
        try FileManager.default.createDirectory(at: parent.ca, withIntermediateDirectories: false)
        #expect(chmod(parent.ca.path, 0o777) == 0)
        let message = Self.refusal { _ = try InterceptionAuthority.loadOrCreate(in: parent.ca) }
        #expect(message?.hasSuffix("has mode 0777; group and others must have no access (chmod 700)") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.ca.path).isEmpty)
    }

    @Test func aKeyThatOthersCanReadIsRefused() throws {
        let parent = try Parent()
        _ = try InterceptionAuthority.loadOrCreate(in: parent.ca)
        #expect(chmod(parent.key, 0o640) == 0)
        let message = Self.refusal { _ = try InterceptionAuthority.loadOrCreate(in: parent.ca) }
        #expect(
            message
                == "the intercept CA key \(parent.key) has mode 0640; group and others must have no access (chmod 600)"
        )
    }

    @Test func aKeyThatIsASymbolicLinkIsRefused() throws {
        let parent = try Parent()
        _ = try InterceptionAuthority.loadOrCreate(in: parent.ca)
        let elsewhere = parent.url.appendingPathComponent("key.pem").path
        try FileManager.default.moveItem(atPath: parent.key, toPath: elsewhere)
        try FileManager.default.createSymbolicLink(atPath: parent.key, withDestinationPath: elsewhere)
        let message = Self.refusal { _ = try InterceptionAuthority.loadOrCreate(in: parent.ca) }
        #expect(message == "the intercept CA key \(parent.key) is a symbolic link")
    }

    /// The owner check, with another user's id (the tests cannot own a file as someone else).
    @Test func aFolderOrKeyOfAnotherUserIsRefused() throws {
        let parent = try Parent()
        _ = try InterceptionAuthority.loadOrCreate(in: parent.ca)
        let someoneElse = geteuid() &+ 1
        let folder = Self.refusal { try PrivateFile.checkDirectory(parent.ca.path, owner: someoneElse) }
        #expect(folder == "the intercept CA folder \(parent.ca.path) belongs to another user; use a folder of your own")
        let key = Self.refusal { _ = try PrivateFile.readKey(parent.key, owner: someoneElse) }
        #expect(key == "the intercept CA key \(parent.key) belongs to another user; use a folder of your own")
        #expect(try PrivateFile.readKey(parent.key).count > 0)
    }

    /// The key is created with O_CREAT | O_EXCL: a file or a symbolic link already in its place
    /// is refused, never written through.
    @Test func aKeyFileAlreadyInPlaceIsNotWrittenThrough() throws {
        let parent = try Parent()
        try FileManager.default.createDirectory(
            at: parent.ca,
            withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o700]
        )
        let target = parent.url.appendingPathComponent("planted.pem").path
        try FileManager.default.createSymbolicLink(atPath: parent.key, withDestinationPath: target)
        let authority = try InterceptionAuthority.create()
        let linked = Self.refusal { try authority.write(to: parent.ca) }
        #expect(linked == "\(parent.key) already exists; remove it or choose another folder")
        #expect(!FileManager.default.fileExists(atPath: target))

        try FileManager.default.removeItem(atPath: parent.key)
        #expect(FileManager.default.createFile(atPath: parent.key, contents: Data("planted".utf8)))
        let planted = Self.refusal { try authority.write(to: parent.ca) }
        #expect(planted == "\(parent.key) already exists; remove it or choose another folder")
        #expect(try String(contentsOfFile: parent.key, encoding: .utf8) == "planted")
    }
}
#endif
