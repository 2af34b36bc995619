public import Foundation

/// The provider's `Retry-After` header (RFC 9110 §10.2.3), read the same way by the pipeline's
/// fetcher and the app's upstream.
///
/// ```swift
/// RetryAfter.seconds(from: "120", now: Date())                            // 120
/// RetryAfter.seconds(from: "Wed, 21 Oct 2026 07:28:00 GMT", now: now)     // seconds until then
/// ```
public enum RetryAfter {
    /// The longest wait honoured: one day. The header is the server's to set, and a larger value
    /// (or `Int.max`) would only turn into an overflow or a client that never asks again.
    public static let maxSeconds: TimeInterval = 86_400

    /// The wait `value` asks for, as seconds from `now` within `0...maxSeconds`: delay-seconds
    /// (`120`) or an HTTP date; `nil` when there is no header or it is neither.
    public static func seconds(from value: String?, now: Date) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            // All digits: delay-seconds, however many (Int would refuse 20 of them).
            return min(Double(value) ?? maxSeconds, maxSeconds)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return min(max(date.timeIntervalSince(now), 0), maxSeconds)
    }
}
