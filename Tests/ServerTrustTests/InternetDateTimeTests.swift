import Foundation
import SecureNetworkingInternal
import ServerTrust
import Testing

/// RFC 3339 `date-time`, the one date format of the policy file, pin-set updates and the CT log
/// list: read strictly, and written so that it reads back as the same instant.
@Suite("RFC 3339 date-time")
struct InternetDateTimeTests {
    /// RFC 3339 §5.8's examples (the instants computed with Python's `datetime`).
    @Test func theRFCsExamplesReadAsTheirInstants() {
        #expect(
            InternetDateTime.parse("1985-04-12T23:20:50.52Z", fractionalSeconds: true)?.timeIntervalSince1970
                == 482_196_050.52
        )
        #expect(InternetDateTime.parse("1996-12-19T16:39:57-08:00")?.timeIntervalSince1970 == 851_042_397)
        let netherlands = InternetDateTime.parse("1937-01-01T12:00:27.87+00:20", fractionalSeconds: true)
        #expect(abs((netherlands?.timeIntervalSince1970 ?? 0) - -1_041_337_172.13) < 0.000_1)
        // A leap second is a valid RFC 3339 time that `Date` cannot name: refused, not moved.
        #expect(InternetDateTime.parse("1990-12-31T23:59:60Z") == nil)
        #expect(InternetDateTime.parse("1990-12-31T15:59:60-08:00") == nil)
        // A fraction is read only where the format has one.
        #expect(InternetDateTime.parse("1985-04-12T23:20:50.52Z") == nil)
    }

    /// The JSON Schema Test Suite's `date-time` cases (Fixtures/JSONSchemaTestSuite, see its
    /// SOURCE.md): every invalid time is refused and every valid one read, except its two leap
    /// seconds, which RFC 3339 allows and `Date` cannot name.
    @Test func theJSONSchemaTestSuitesTimesAreJudgedAsItSays() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/JSONSchemaTestSuite/date-time.json")
        let groups = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [[String: Any]])
        var judged = 0
        for group in groups {
            for test in try #require(group["tests"] as? [[String: Any]]) {
                guard let text = test["data"] as? String else { continue }  // "ignores non-strings"
                let valid = try #require(test["valid"] as? Bool)
                let leapSecond = text.contains(":60")
                let read = InternetDateTime.parse(text, fractionalSeconds: true) != nil
                #expect(read == (valid && !leapSecond), "\(test["description"] ?? ""): \(text)")
                judged += 1
            }
        }
        #expect(judged == 24)
    }

    @Test(arguments: [
        "2027-02-29T00:00:00Z",  // not a leap year (ISO8601DateFormatter: March 1)
        "2100-02-29T00:00:00Z",  // a century that is not a leap year
        "1900-02-29T00:00:00Z",
        "2027-06-31T00:00:00Z",  // June has 30 days
        "2027-13-01T00:00:00Z", "2027-00-01T00:00:00Z", "2027-06-00T00:00:00Z",
        "2027-06-30T24:00:00Z",  // ISO8601DateFormatter: the next day
        "2027-06-30T23:60:00Z", "2027-06-30T23:59:61Z",
        "2027-06-30T00:00:00+24:00", "2027-06-30T00:00:00+23:60", "2027-06-30T00:00:00+25:00",
        "2027-06-30T00:00:00", "2027-06-30", "2027-06-30 00:00:00Z", "2027-06-30T00:00Z",
        "2027-6-30T00:00:00Z", "+2027-06-30T00:00:00Z", "20270630T000000Z", "2027-06-30T00:00:00ZZ",
        "2027-06-30T00:00:00.Z", "2027-06-30T00:00:00+0100", "2027-06-30T00:00:00 Z", " 2027-06-30T00:00:00Z",
        "２０２７-06-30T00:00:00Z", "2027-06-30T00:00:00\u{0}Z", "",
        "0000-01-01T00:00:00+00:01",  // before year 0000 in UTC
        "9999-12-31T23:59:59-00:01",  // after year 9999 in UTC
    ])
    func badTimesAreRefused(text: String) {
        #expect(InternetDateTime.parse(text, fractionalSeconds: true) == nil)
    }

    @Test func leapDaysLowerCaseAndOffsetsAreRead() {
        #expect(InternetDateTime.parse("2000-02-29T00:00:00Z") != nil)
        #expect(InternetDateTime.parse("2400-02-29T00:00:00Z") != nil)
        #expect(InternetDateTime.parse("2028-02-29t12:00:00z") == InternetDateTime.parse("2028-02-29T12:00:00Z"))
        #expect(InternetDateTime.parse("2027-06-30T02:00:00+02:00") == InternetDateTime.parse("2027-06-30T00:00:00Z"))
        #expect(InternetDateTime.parse("2027-06-30T00:00:00-00:00") == InternetDateTime.parse("2027-06-30T00:00:00Z"))
        #expect(InternetDateTime.parse("0000-01-01T00:00:00Z") == InternetDateTime.earliest)
        #expect(InternetDateTime.parse("9999-12-31T23:59:59Z") == InternetDateTime.latest)
    }

    /// Where Foundation's calendar is the Gregorian one (from 1583), `ISO8601DateFormatter` is an
    /// independent oracle: the same text for 20,000 whole seconds spread over 1583–9999, and each
    /// instant (with a fraction) read back as its whole second.
    @Test func writingAgreesWithFoundationFrom1583AndReadsBack() {
        let oracle = ISO8601DateFormatter()
        let from = oracle.date(from: "1583-01-01T00:00:00Z")!.timeIntervalSince1970
        let span = InternetDateTime.latest.timeIntervalSince1970 - from
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let date = Date(timeIntervalSince1970: from + span * Double(state >> 11) / Double(1 << 53))
            let whole = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
            // Foundation rounds a fraction to milliseconds first (…:38.9996 is written :39); here
            // a fraction is always dropped, so the oracle is asked about the whole second.
            #expect(InternetDateTime.format(whole) == oracle.string(from: whole), "\(whole.timeIntervalSince1970)")
            let text = InternetDateTime.format(date)
            #expect(text.flatMap { InternetDateTime.parse($0) } == whole, "\(text ?? "nil")")
        }
    }

    /// Before 1583 Foundation's calendar is Julian and has no year 0; the proleptic Gregorian one
    /// reads back every day it writes, year 0000 included.
    @Test func everyDayFromYear0000To1600ReadsBackAsItself() {
        var day = InternetDateTime.earliest
        var count = 0
        while day < Date(timeIntervalSince1970: -11_676_096_000) {  // 1600-01-01
            let text = InternetDateTime.format(day)
            #expect(text.flatMap { InternetDateTime.parse($0) } == day, "\(text ?? "nil")")
            day += 86_400
            count += 1
        }
        #expect(count == 584_388)
        #expect(InternetDateTime.format(InternetDateTime.earliest) == "0000-01-01T00:00:00Z")
        #expect(InternetDateTime.format(Date(timeIntervalSince1970: -12_219_292_800)) == "1582-10-15T00:00:00Z")
        #expect(InternetDateTime.format(InternetDateTime.earliest - 1) == nil)
        #expect(InternetDateTime.format(InternetDateTime.latest + 1) == nil)
        #expect(InternetDateTime.format(Date(timeIntervalSince1970: .nan)) == nil)
    }
}
