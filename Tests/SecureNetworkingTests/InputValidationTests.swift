import Foundation
import SecureNetworking
import Testing

@Suite("Input validation: e-mail addresses")
struct EmailAddressTests {
    static let valid: [String] = [
        "user@example.com",
        "user+tag@example.com",
        "a@b.co",
        "x@example.museum",
        "first.last@example.org",
        "o'reilly@example.ie",
        "user_name@sub.domain.example.com",
        "1234567890@example.com",
        "x@example.technology",
        "email@123.example.com",
        "!#$%&'*+/=?^_`{|}~-@example.com",
        "user@bücher.de",
        "用户@例子.广告",
        "josé@example.es",
        "UPPER@EXAMPLE.COM",
        "user@xn--bcher-kva.de",
        "very.common@example.co.uk",
        "a-b@a-b.example",
        "  padded@example.com  ",
        String(repeating: "l", count: 64) + "@example.com",
        String(repeating: "a", count: 64) + "@"
            + [String](repeating: String(repeating: "b", count: 61), count: 3).joined(separator: ".") + ".ccc",
    ]

    static let invalid: [(String, ValidationError.Code)] = [
        ("plainaddress", .invalidEmail),
        ("@example.com", .invalidEmail),
        ("user@", .invalidEmail),
        ("user@@example.com", .invalidEmail),
        ("user@exa@mple.com", .invalidEmail),
        ("user..dots@example.com", .invalidEmail),
        (".leading@example.com", .invalidEmail),
        ("trailing.@example.com", .invalidEmail),
        ("user@example..com", .invalidEmail),
        ("user@localhost", .invalidEmail),
        ("user@-example.com", .invalidEmail),
        ("user@example-.com", .invalidEmail),
        ("user@example.123", .invalidEmail),
        ("user name@example.com", .invalidEmail),
        ("user@exam ple.com", .invalidEmail),
        ("\"quoted\"@example.com", .invalidEmail),
        ("user@[192.168.0.1]", .invalidEmail),
        ("user@example.com.", .invalidEmail),
        ("user\r\n@example.com", .invalidEmail),
        ("user@exa_mple.com", .invalidEmail),
        ("", .invalidEmail),
        (String(repeating: "l", count: 65) + "@example.com", .tooLong),
        ("user@" + String(repeating: "d", count: 64) + ".com", .tooLong),
        // 255 characters in all: over the 254 limit.
        (
            String(repeating: "a", count: 64) + "@"
                + [String](repeating: String(repeating: "b", count: 61), count: 3).joined(separator: ".") + ".cccc",
            .tooLong
        ),
    ]

    @Test func theTableHasAtLeastFortyAddresses() {
        #expect(Self.valid.count + Self.invalid.count >= 40)
        #expect(Self.valid.last?.count == 254)
        #expect(Self.invalid.last?.0.count == 255)
    }

    @Test(arguments: Self.valid)
    func validAddressesAreAccepted(_ address: String) throws {
        let parsed = try EmailAddress(address)
        #expect(parsed.description.contains("@"))
    }

    @Test(arguments: 0..<Self.invalid.count)
    func invalidAddressesAreRefusedWithTheirCode(_ index: Int) {
        let (address, expected) = Self.invalid[index]
        do {
            _ = try EmailAddress(address)
            Issue.record("accepted \(address.debugDescription)")
        } catch {
            #expect(error.code == expected, "\(address.debugDescription): \(error)")
            #expect(error.fieldPath == "email")
            if !address.isEmpty { #expect(!error.description.contains(address)) }
        }
    }

    @Test func domainsAreLowerCasedAndEncodedForSending() throws {
        let address = try EmailAddress("Ada+News@Bücher.DE")
        #expect(address.localPart == "Ada+News")
        #expect(address.domain == "bücher.de")
        #expect(address.asciiAddress == "Ada+News@xn--bcher-kva.de")
        #expect(try EmailAddress("x@münchen.de").asciiDomain == "xn--mnchen-3ya.de")
        // 50,000 distinct non-ASCII characters: refused by size before Punycode runs (which is
        // quadratic in them), with the up-front rule's message.
        let huge =
            "x@" + String(String.UnicodeScalarView((0x4E00..<(0x4E00 + 50_000)).compactMap(Unicode.Scalar.init)))
            + ".de"
        #expect { try EmailAddress(huge) } throws: { ($0 as? ValidationError)?.message.contains("as entered") == true }
        #expect { try EmailAddress(huge) } throws: { ($0 as? ValidationError)?.code == .tooLong }
        #expect(try EmailAddress("x@例子.广告").asciiDomain == "xn--fsqu00a.xn--4rr70v")  // Python's idna codec agrees
    }
}

@Suite("Input validation: text, identifiers, encoding")
struct TextValidationTests {
    @Test func graphemesAreCountedAsTheUserSeesThem() throws {
        let rule = TextInput(length: 1...3)
        // A thumbs-up with a skin tone, a family (ZWJ sequence), a flag: three characters.
        #expect(try rule.sanitize("👍🏽👨‍👩‍👧🇳🇿", field: "reaction") == "👍🏽👨‍👩‍👧🇳🇿")
        #expect(throws: ValidationError(.tooLong, "")) { try rule.sanitize("👍🏽👨‍👩‍👧🇳🇿a", field: "reaction") }
        // e + combining acute is one grapheme, and NFC makes it the single scalar é.
        let decomposed = "e\u{0301}e\u{0301}e\u{0301}"
        let sanitized = try rule.sanitize(decomposed, field: "name")
        #expect(sanitized == "\u{00E9}\u{00E9}\u{00E9}")
        #expect(sanitized.unicodeScalars.count == 3)
        #expect(throws: ValidationError(.tooLong, "")) { try rule.sanitize(decomposed + "e\u{0301}", field: "name") }
    }

    @Test func controlAndBidiCharactersAreRemoved() throws {
        let rule = TextInput(length: 0...100)
        #expect(try rule.sanitize("ab\u{0000}c\u{0007}d\u{001B}[31me\u{007F}\u{0085}", field: "t") == "abcd[31me")
        // A right-to-left override that would disguise a file name (CVE-2021-42574).
        #expect(try rule.sanitize("invoice\u{202E}fdp.exe", field: "t") == "invoicefdp.exe")
        #expect(try rule.sanitize("a\u{2066}b\u{2069}c\u{200F}", field: "t") == "abc")
        #expect(try rule.sanitize("line1\nline2\r\n", field: "t") == "line1line2")
        #expect(try TextInput(allowsLineBreaks: true).sanitize("line1\nline2\r\n", field: "t") == "line1\nline2")
        #expect(try rule.sanitize("  spaced  ", field: "t") == "spaced")
        // Zero-width joiners inside emoji stay.
        #expect(try rule.sanitize("👩‍💻", field: "t").unicodeScalars.contains("\u{200D}"))
    }

    @Test func inputIsBoundedInBytesAndScalarsBeforeItIsCounted() throws {
        // One grapheme of 100,001 scalars: refused by the byte bound, before normalisation.
        let zalgo = "e" + String(repeating: "\u{0301}", count: 100_000)
        #expect(throws: ValidationError(.tooLong, "")) { try TextInput(length: 0...64).sanitize(zalgo, field: "name") }
        // Within the byte bound, a character with more than 32 scalars is refused.
        let heavy = "e" + String(repeating: "\u{0301}\u{0302}", count: 20)
        #expect(throws: ValidationError(.invalidCharacters, "")) {
            try TextInput(length: 0...64).sanitize(heavy, field: "name")
        }
        // Near misses: a family emoji (7 scalars) and an accented letter are single characters.
        #expect(try TextInput(length: 0...2).sanitize("👨‍👩‍👧‍👦e\u{0301}", field: "name").count == 2)
    }

    @Test func emptyAndShortValuesAreRefused() {
        #expect(throws: ValidationError(.empty, "")) {
            try TextInput(length: 1...10).sanitize(" \u{0000} ", field: "name")
        }
        #expect(throws: ValidationError(.tooShort, "")) { try TextInput(length: 3...10).sanitize("ab", field: "name") }
    }

    @Test func identifiersFollowTheirAllowList() throws {
        #expect(try IdentifierRule.slug.validate("my-post-42", field: "slug") == "my-post-42")
        #expect(throws: ValidationError(.invalidCharacters, "")) {
            try IdentifierRule.slug.validate("My Post", field: "slug")
        }
        #expect(throws: ValidationError(.invalidCharacters, "")) {
            try IdentifierRule.slug.validate("ünï", field: "slug")
        }
        #expect(throws: ValidationError(.invalidCharacters, "")) {
            try IdentifierRule.username.validate("ada'; DROP", field: "user")
        }
        #expect(throws: ValidationError(.tooShort, "")) { try IdentifierRule.username.validate("ab", field: "user") }
        #expect(throws: ValidationError(.tooLong, "")) {
            try IdentifierRule.alphanumeric.validate(String(repeating: "a", count: 65), field: "id")
        }
        do {
            try IdentifierRule.slug.validate("bad value", field: "slug")
        } catch {
            #expect(error.fieldPath == "slug")
            #expect(!error.description.contains("bad value"))
        }
    }

    @Test func percentEncodingKeepsValuesInsideTheirComponent() {
        #expect(PercentEncoding.pathSegment("a/b?c#d") == "a%2Fb%3Fc%23d")
        #expect(PercentEncoding.pathSegment("..") == "%2E%2E")
        #expect(PercentEncoding.pathSegment("naïve file") == "na%C3%AFve%20file")
        #expect(PercentEncoding.queryComponent("a&b=c+d") == "a%26b%3Dc%2Bd")
        #expect(PercentEncoding.queryComponent("Az09-._~") == "Az09-._~")
    }
}

@Suite("Input validation: upload sniffing")
struct ContentSnifferTests {
    static let files: [(Data, SniffedType, String)] = [
        (SniffFixtures.jpeg, .jpeg, "photo.jpg"),
        (SniffFixtures.png, .png, "image.png"),
        (SniffFixtures.gif, .gif, "anim.gif"),
        (SniffFixtures.webp, .webp, "pic.webp"),
        (SniffFixtures.pdf, .pdf, "doc.pdf"),
    ]

    @Test func realMinimalFilesAreRecognised() throws {
        for (data, type, name) in Self.files {
            #expect(ContentSniffer.detect(data) == type, "\(name)")
            #expect(try ContentSniffer().validate(data, fileName: name) == type)
        }
    }

    @Test func impostorsWithTheRightExtensionAreRefused() {
        // Right extension, wrong bytes.
        for (data, name) in [
            (SniffFixtures.pdf, "photo.png"), (SniffFixtures.png, "scan.jpg"), (SniffFixtures.gif, "doc.pdf"),
        ] {
            #expect(throws: ValidationError(.contentTypeMismatch, "")) {
                try ContentSniffer().validate(data, fileName: name)
            }
        }
        // A script named like an image.
        #expect(throws: ValidationError(.unrecognisedContent, "")) {
            try ContentSniffer().validate(Data("<?php system($_GET['c']); ?>".utf8), fileName: "avatar.jpg")
        }
        // A truncated JPEG (no end-of-image marker) and a PNG signature without IHDR.
        #expect(ContentSniffer.detect(SniffFixtures.jpeg.dropLast(2)) == nil)
        #expect(ContentSniffer.detect(SniffFixtures.png.prefix(8) + Data(repeating: 0, count: 30)) == nil)
        // A WebP whose RIFF size lies, a GIF without its trailer, a PDF without %%EOF.
        var webp = SniffFixtures.webp
        webp[4] = webp[4] &+ 100
        #expect(ContentSniffer.detect(webp) == nil)
        #expect(ContentSniffer.detect(SniffFixtures.gif.dropLast()) == nil)
        #expect(ContentSniffer.detect(Data("%PDF-1.7\n1 0 obj".utf8)) == nil)
        #expect(ContentSniffer.detect(Data()) == nil)
    }

    @Test func typesAndSizeAreCapped() {
        let imagesOnly = ContentSniffer(allowed: [.jpeg, .png], maximumSize: 1024)
        #expect(throws: ValidationError(.unrecognisedContent, "")) {
            try imagesOnly.validate(SniffFixtures.gif, fileName: "a.gif")
        }
        #expect(throws: ValidationError(.tooLarge, "")) {
            try imagesOnly.validate(SniffFixtures.pdf, fileName: "a.pdf")
        }
        #expect(throws: ValidationError(.tooLarge, "")) {
            try imagesOnly.validate(SniffFixtures.png + Data(repeating: 0, count: 2000), fileName: "a.png")
        }
    }
}
