public import Foundation

/// The `Retry-After` header (RFC 9110 §10.2.3): delay-seconds, or an HTTP-date.
public enum RetryAfter {
    /// The wait the header asks for, or nil when it is absent or malformed. A date in the past
    /// means no wait.
    public static func parse(_ value: String?, now: Date) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            guard value.utf8.count <= 9, let seconds = Int(value) else { return .seconds(Int.max / 1_000_000_000) }
            return .seconds(seconds)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: value) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds <= 0 ? .zero : .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }
}
