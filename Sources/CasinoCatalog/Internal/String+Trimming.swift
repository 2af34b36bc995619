extension StringProtocol {
    /// The text without leading and trailing whitespace and newlines.
    ///
    /// Native and allocation-free when nothing is trimmed: Foundation's
    /// `trimmingCharacters(in:)` bridges through `NSString` on Linux, a large share of the
    /// normalizer's time, since every text field of every record is trimmed.
    @_spi(CatalogTools) public func trimmingWhitespace() -> String {
        // Both ends printable non-space ASCII, the common case: nothing to trim, and no
        // grapheme breaking or Unicode property lookups to find that out.
        let isPlain = { (byte: UInt8) in byte > 0x20 && byte < 0x7F }
        let whole = String(self)  // no copy for a String
        if let first = whole.utf8.first, let last = whole.utf8.last, isPlain(first), isPlain(last) {
            return whole
        }
        guard let first = firstIndex(where: { !$0.isWhitespace }) else { return "" }
        let last = lastIndex(where: { !$0.isWhitespace })!
        if first == startIndex && index(after: last) == endIndex, let string = self as? String { return string }
        return String(self[first...last])
    }
}
