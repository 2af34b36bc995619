public import Foundation

/// The provider's `Retry-After` header (RFC 9110 §10.2.3), read the same way by the pipeline's
/// fetcher and the app's upstream.
///
/// ```swift
/// RetryAfter.seconds(from: "120", now: Date())                            // 120
/// RetryAfter.seconds(from: "Wed, 21 Oct 2026 07:28:00 GMT", now: now)     // seconds until then
/// ```
@_spi(CatalogTools) public enum RetryAfter {
    /// The longest wait honoured: one day (``RetryPolicy/maxRetryAfter``'s default). The header is the
    /// server's to set, and a larger value (or `Int.max`) would only turn into an overflow or a client
    /// that never asks again.
    public static let maxSeconds = RetryPolicy.maxRetryAfterSeconds

    /// The wait `value` asks for, as seconds from `now` within `0...maxSeconds`: delay-seconds
    /// (`120`) or an HTTP date (IMF-fixdate); `nil` when there is no header or it is neither.
    public static func seconds(from value: String?, now: Date) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            // All digits: delay-seconds, however many (Int would refuse 20 of them).
            return min(Double(value) ?? maxSeconds, maxSeconds)
        }
        guard let date = httpDate(value) else { return nil }
        return min(max(date.timeIntervalSince(now), 0), maxSeconds)
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7), parsed byte by byte.
    ///
    /// Not `DateFormatter`: the header is hostile input, and Foundation's formatter on Linux traps
    /// on some non-ASCII strings (a fuzzer found `"m\u{74A}"`).
    static func httpDate(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == UInt8(ascii: " "),
            bytes[7] == UInt8(ascii: " "), bytes[11] == UInt8(ascii: " "), bytes[16] == UInt8(ascii: " "),
            bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"), bytes[25...] == Array(" GMT".utf8)[...],
            days.contains(where: { $0.elementsEqual(bytes[0..<3]) }),
            let month = months.firstIndex(where: { $0.elementsEqual(bytes[8..<11]) }),
            let day = number(bytes[5..<7]), let year = number(bytes[12..<16]), let hour = number(bytes[17..<19]),
            let minute = number(bytes[20..<22]), let second = number(bytes[23..<25]),
            (1...daysIn(month: month + 1, year: year)).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month + 1, day: day)
        return Date(timeIntervalSince1970: TimeInterval(((days * 24 + hour) * 60 + minute) * 60 + second))
    }

    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map { Array($0.utf8) }
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .map { Array($0.utf8) }

    /// The decimal value of ASCII digits (at most four, so it cannot overflow).
    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
