#if Tools
import Foundation
import SecureNetworkingTesting
import ServerTrust
import Testing

@Suite("securenet pins with certificate files")
struct PinsFileCommandTests {
    typealias TemporaryDirectory = CLI.TemporaryDirectory

    @Test func securenetPinsPrintsEachCertificateAndFailsOnBadFiles() async throws {
        let path = try CLI.securenet()
        let directory = try TemporaryDirectory()
        let chain = try Fixtures.pki.validChain()
        let pem = try directory.write("chain.pem", Array(chain.pem.utf8))

        let good = try await CLI.run(path, [pem])
        #expect(good.status == 0)
        for pin in chain.pins { #expect(good.output.contains("pin:        \(pin)")) }
        #expect(good.output.contains("subject:    CN=localhost,O=SecureNetworking Tests"))
        #expect(good.output.contains("issuer:     CN=SecureNetworking Test Intermediate CA"))
        #expect(good.output.contains("not after:"))

        let bad = try await CLI.run(path, [pem, directory.url.appendingPathComponent("nope.pem").path])
        #expect(bad.status == 1)
        #expect(bad.error.contains("cannot read"))
        #expect(bad.output.contains(chain.pins[0].description))  // the good file is still printed
    }
}
#endif
