package import Foundation

/// RFC 3339 §5.6 `date-time`, read strictly and written so that it reads back as the same
/// instant: the one date format of the policy file, signed pin-set updates and the CT log list.
///
/// `ISO8601DateFormatter` is lenient where a signed document must not be (it reads
/// `2027-02-30` as March 2, `24:00` as the next day and an offset of `+25:00`) and its calendar
/// is Julian before 1582 and has no year 0, so a date it reads is not always the date it
/// writes back (`0000-01-01T00:00:00Z` is written `0001-01-01T00:00:00Z`, a year later). Here
/// the calendar is the proleptic Gregorian one RFC 3339 §5.6 and ISO 8601 use, and every field
/// is range-checked (RFC 3339 §5.7).
package enum InternetDateTime {
    /// The earliest instant written with a four-digit year: `0000-01-01T00:00:00Z`.
    package static let earliest = Date(timeIntervalSince1970: -62_167_219_200)
    /// The last whole second written with a four-digit year: `9999-12-31T23:59:59Z`.
    package static let latest = Date(timeIntervalSince1970: 253_402_300_799)

    /// The instant `text` names, or nil unless it is exactly
    /// `YYYY-MM-DD("T"|"t")hh:mm:ss[.fraction]("Z"|"z"|±hh:mm)` with a real calendar date,
    /// hours 00–23, minutes 00–59, seconds 00–59 (a leap second, `60`, is refused: `Date` cannot
    /// name it), an offset of at most 23:59, and a result between ``earliest`` and ``latest``.
    /// A fraction is read only when `fractionalSeconds` is set.
    package static func parse(_ text: String, fractionalSeconds: Bool = false) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0
        func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }
        func expect(_ characters: UInt8...) -> Bool {
            guard index < bytes.count, characters.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), expect(UInt8(ascii: "-")), let month = digits(2), expect(UInt8(ascii: "-")),
            let day = digits(2), expect(UInt8(ascii: "T"), UInt8(ascii: "t")),
            let hour = digits(2), expect(UInt8(ascii: ":")), let minute = digits(2), expect(UInt8(ascii: ":")),
            let second = digits(2)
        else { return nil }
        guard (1...12).contains(month), (1...Self.days(inMonth: month, year: year)).contains(day),
            hour <= 23, minute <= 59, second <= 59
        else { return nil }
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            guard fractionalSeconds else { return nil }
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                fraction += Double(bytes[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offset = 0
        if expect(UInt8(ascii: "Z"), UInt8(ascii: "z")) {
            offset = 0
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = digits(2), expect(UInt8(ascii: ":")), let minutes = digits(2), hours <= 23,
                minutes <= 59
            else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let seconds =
            Self.daysSinceEpoch(year: year, month: month, day: day) * 86_400
            + hour * 3600 + minute * 60 + second - offset
        let date = Date(timeIntervalSince1970: Double(seconds) + fraction)
        guard date >= Self.earliest, date < Self.latest.addingTimeInterval(1) else { return nil }
        return date
    }

    /// `date` as `YYYY-MM-DDThh:mm:ssZ`, the second rounded down (so `parse` reads back
    /// `date` rounded down to a whole second); nil outside ``earliest`` … ``latest``.
    package static func format(_ date: Date) -> String? {
        guard date.timeIntervalSince1970.isFinite, date >= Self.earliest, date < Self.latest.addingTimeInterval(1)
        else { return nil }
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - days * 86_400
        let (year, month, day) = Self.civil(daysSinceEpoch: days)
        func padded(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T"
            + "\(padded(time / 3600, 2)):\(padded(time / 60 % 60, 2)):\(padded(time % 60, 2))Z"
    }

    static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's `days_from_civil`).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (H. Hinnant's `civil_from_days`).
    static func civil(daysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (era * 400 + yearOfEra + (month <= 2 ? 1 : 0), month, day)
    }
}
