public import Foundation

/// A span of time as the CLI's options write it (`--max-age`, `--expires-in`): `30d`, `12h`, `90m`, `3600s`;
/// and an age as `catalog validate` and `catalog preview` say it.
public enum DurationText {
    /// `text` in seconds; `nil` unless a positive whole number (at most 100 years) and d, h, m or s.
    public static func seconds(_ text: String) -> TimeInterval? {
        let units: [Character: Int] = ["d": 86_400, "h": 3_600, "m": 60, "s": 1]
        guard let unit = text.last.flatMap({ units[$0] }), let count = Int(text.dropLast()), count > 0,
            count <= 100 * 365 * 86_400 / unit
        else { return nil }
        return TimeInterval(count * unit)
    }

    /// `seconds` as a person reads an age: whole days, else hours, else minutes.
    public static func age(_ seconds: TimeInterval) -> String {
        let whole = Int(max(seconds, 0))
        if whole >= 86_400 { return "\(whole / 86_400) days \((whole % 86_400) / 3_600) hours" }
        if whole >= 3_600 { return "\(whole / 3_600) hours" }
        return "\(whole / 60) minutes"
    }
}
