extension StringProtocol {
    /// The text without leading and trailing whitespace and newlines.
    ///
    /// Native and allocation-free when nothing is trimmed: Foundation's
    /// `trimmingCharacters(in:)` bridges through `NSString` on Linux and cost 17 % of the
    /// normalizer's time in a profile of a 2,000-game sample.
    package func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }) else { return "" }
        let last = lastIndex(where: { !$0.isWhitespace })!
        if first == startIndex && index(after: last) == endIndex, let string = self as? String { return string }
        return String(self[first...last])
    }
}
