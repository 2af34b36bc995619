import CatalogSupport
import Testing

@Suite struct CanonicalDecimalTests {
    @Test(arguments: [("0", 0), ("7", 7), ("10", 10), ("9223372036854775807", Int.max)])
    func readsACanonicalWholeNumber(_ text: String, _ value: Int) {
        #expect(CanonicalDecimal.value(of: text.utf8) == value)
    }

    /// Over `Int.max`, signed, padded, with a leading zero, not digits, or empty.
    @Test(arguments: [
        "9223372036854775808", "99999999999999999999", "-0", "+1", "-1", " 1", "1 ", "01", "00", "1a", "", "1_000",
        "١",
    ])
    func refusesAnythingElse(_ text: String) {
        #expect(CanonicalDecimal.value(of: text.utf8) == nil)
    }

    @Test func refusesMoreDigitsThanAllowed() {
        #expect(CanonicalDecimal.value(of: "999".utf8, maxDigits: 3) == 999)
        #expect(CanonicalDecimal.value(of: "1000".utf8, maxDigits: 3) == nil)
    }
}
