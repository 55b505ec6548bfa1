import Foundation
import SecureNetworkingTesting
import ServerTrust
import Testing

@Suite("Certificate files and securenet pins")
struct CertificateFileTests {
    let pki = Fixtures.pki

    @Test func readsEveryCertificateOfAPEMChainAndADERFile() throws {
        let directory = try TemporaryDirectory()
        let chain = try pki.validChain()
        let pem = try CertificateFile(path: directory.write("chain.pem", Array(chain.pem.utf8)))
        #expect(pem.entries.map(\.pin) == chain.pins)
        #expect(pem.entries.map(\.certificate) == chain.certificates)
        let der = try CertificateFile(path: directory.write("leaf.der", chain.derChain[0]))
        #expect(der.entries.map(\.pin) == [chain.pins[0]])
    }

    @Test func weakRSACertificateStillHasItsPinAndKeySize() throws {
        let chain = try pki.rsa1024Chain()
        let file = try CertificateFile(bytes: chain.derChain[0])
        #expect(file.entries[0].rsaKeyBits == 1024)
        #expect(file.entries[0].pin == chain.pins[0])
        #expect(file.entries[0].certificate == nil)  // swift-certificates refuses RSA-1024
    }

    @Test func unreadableAndNonCertificateFilesAreTypedErrors() throws {
        let directory = try TemporaryDirectory()
        #expect {
            try CertificateFile(path: directory.url.appendingPathComponent("missing.pem").path)
        } throws: { ($0 as? ServerTrustError)?.code == .unreadableFile }
        let text = try directory.write("notes.txt", Array("hello, not a certificate\n".utf8))
        #expect {
            try CertificateFile(path: text)
        } throws: { ($0 as? ServerTrustError)?.code == .notACertificate }
        let key = try directory.write("key.pem", Array(pki.root.privateKeyPEM.utf8))
        #expect {
            try CertificateFile(path: key)
        } throws: { error in
            let error = error as? ServerTrustError
            return error?.code == .notACertificate && error?.message.contains("no CERTIFICATE block") == true
        }
    }
}
