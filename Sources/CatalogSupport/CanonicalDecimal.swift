/// Whole numbers written in ASCII the one way the project writes them: digits only, no sign, no
/// leading zero (`0`, `10`; never `010`, `+1`, `-0`, ` 1`), read with overflow checked: every
/// integer read from a file is hostile. Inlinable (public in a module that is no product, as
/// `Locked`), so each caller's collection type is specialized: the snapshot index is read at launch.
public enum CanonicalDecimal {
    /// The value `digits` spell, or `nil` when they are empty, longer than `maxDigits`, not
    /// canonical, or over `Int.max`.
    @inlinable
    public static func value(of digits: some Collection<UInt8>, maxDigits: Int = 19) -> Int? {
        guard let first = digits.first, digits.count <= maxDigits, first != UInt8(ascii: "0") || digits.count == 1
        else { return nil }
        var value = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (tens, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowedAgain) = tens.addingReportingOverflow(Int(byte &- UInt8(ascii: "0")))
            guard !overflowed, !overflowedAgain else { return nil }
            value = sum
        }
        return value
    }
}
