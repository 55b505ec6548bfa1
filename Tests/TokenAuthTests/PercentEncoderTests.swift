import SecureNetworkingInternal
import Testing

@testable import TokenAuth

/// The one percent-encoder behind query components, path segments, the authorization request's
/// URL and the token endpoint's form bodies.
@Suite("Percent-encoding")
struct PercentEncoderTests {
    @Test(arguments: [
        ("Az09-._~", false, "Az09-._~"),
        ("a b", false, "a%20b"),
        ("a b", true, "a+b"),
        ("a+b&c=d#e", true, "a%2Bb%26c%3Dd%23e"),
        ("naïve", false, "na%C3%AFve"),
        ("/?%", false, "%2F%3F%25"),
        ("\r\n", true, "%0D%0A"),
        ("", false, ""),
    ])
    func encodesAllButTheUnreservedCharacters(text: String, spaceAsPlus: Bool, expected: String) {
        #expect(PercentEncoder.encode(text, spaceAsPlus: spaceAsPlus) == expected)
    }

    @Test func formBodiesDecodeBackToWhatWasEncoded() {
        let fields = [("grant_type", "refresh_token"), ("refresh_token", "a+b/c= d"), ("scope", "read write")]
        let body = FormEncoding.encode(fields)
        #expect(body == "grant_type=refresh_token&refresh_token=a%2Bb%2Fc%3D+d&scope=read+write")
        #expect(FormEncoding.decode(body) == Dictionary(uniqueKeysWithValues: fields))
    }
}
