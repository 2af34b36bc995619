public import Foundation

/// The canonical JSON of snapshot files and content hashes: RFC 8785 (JCS) for what the catalogue
/// holds, with NFC text.
///
/// Canonical JSON has no whitespace. Object members are ordered by their keys' UTF-16 code units,
/// and keys are unique. Numbers are written as ECMAScript's `Number.prototype.toString` writes
/// them: the shortest digits that round-trip, `1e+21` and up in exponent form, `-0` as `0`; an
/// integer only when its double is written with the same digits (always within ±2^53), so it
/// decodes as the same integer. Strings escape `"`, `\`
/// and the controls below U+0020 (as `\b \f \n \r \t`, else `\u00xx`) and nothing else; the rest
/// is UTF-8. Text is in Unicode Normalization Form C (RFC 8785 keeps text as given; the pipeline
/// normalizes it, so a non-NFC string means a file was written by something else).
///
/// The same value therefore has the same bytes on every platform, whatever key order Foundation's
/// `.sortedKeys` gives there (swift-corelibs-foundation #4702): payload hashes built on a Mac and
/// on Linux agree, and an app's bulk validation agrees with the server's.
///
/// ```swift
/// let json = try CanonicalJSON.encode(page)       // what the pipeline writes and hashes
/// try CanonicalJSON.requireCanonical(json)        // what a reader checks
/// ```
@_spi(CatalogTools) public enum CanonicalJSON {
    /// The deepest nesting accepted (the catalogue's files nest 6 deep).
    public static let maxDepth = 128

    /// The canonical JSON of `value`, encoded with `CatalogCoding/encoder()` (dates as ISO 8601).
    ///
    /// - Throws: The encoder's `EncodingError`, or `CanonicalJSONError` when the value holds
    ///   what canonical JSON cannot (a non-NFC string, an integer a double cannot write exactly).
    public static func encode(_ value: some Encodable) throws -> Data {
        try canonicalized(CatalogCoding.encoder().encode(value))
    }

    /// `json` rewritten canonically: members sorted, whitespace dropped, numbers and strings in
    /// their one canonical spelling.
    ///
    /// - Parameters:
    ///   - json: A JSON text (RFC 8259) in UTF-8.
    ///   - requiringNFC: Whether a string that is not NFC is refused (`true` by default); `false`
    ///     gives plain RFC 8785, which keeps text as given.
    /// - Throws: `CanonicalJSONError` for malformed JSON or UTF-8, a duplicate key, a lone
    ///   surrogate, a number out of range, nesting deeper than ``maxDepth`` or non-NFC text.
    public static func canonicalized(_ json: Data, requiringNFC: Bool = true) throws(CanonicalJSONError) -> Data {
        var transcoder = CanonicalJSONTranscoder(requiresNFC: requiringNFC)
        // `withUnsafeBytes` rethrows untyped errors: the typed one comes out as a result.
        let result = json.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Result<Void, CanonicalJSONError> in
            Result { () throws(CanonicalJSONError) in try transcoder.transcode(raw.bindMemory(to: UInt8.self)) }
        }
        try result.get()
        return Data(transcoder.output)
    }

    /// Whether `json` is exactly its canonical form.
    ///
    /// - Throws: `CanonicalJSONError`: `CanonicalJSONError/Code/notCanonical` with the offset
    ///   of the first byte that differs, or why `json` has no canonical form.
    public static func requireCanonical(_ json: Data) throws(CanonicalJSONError) {
        let canonical = try canonicalized(json)
        guard canonical != json else { return }
        let offset = zip(canonical, json).prefix { $0 == $1 }.count
        func excerpt(_ data: Data) -> String {
            let bytes = data.dropFirst(offset).prefix(24)
            return bytes.isEmpty ? "the end" : "`\(String(decoding: bytes, as: UTF8.self))`"
        }
        throw CanonicalJSONError(
            .notCanonical, at: offset, "has \(excerpt(json)) where canonical JSON has \(excerpt(canonical))")
    }

    /// Appends `byte`, a UTF-8 byte of a string's text, as canonical JSON writes it inside the
    /// string: `"` and `\` escaped, controls as `\b \f \n \r \t` or `\u00xx`, anything else as it is
    /// (a byte of a multi-byte scalar too). The transcoder and `CanonicalPayload` both write strings
    /// through it.
    @inline(__always)
    static func appendInString(_ byte: UInt8, to output: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case 0x08: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
        case 0x0C: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
        case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        case 0..<0x20:
            let hex = Array("0123456789abcdef".utf8)
            output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            output.append(hex[Int(byte >> 4)])
            output.append(hex[Int(byte & 0xF)])
        default: output.append(byte)
        }
    }

    /// `value` as ECMAScript's `Number.prototype.toString` writes it (RFC 8785 §3.2.2.3):
    /// `0.9646`, `1e+21`, `1e-7`, `0.000001`, `123456789012345680000`; `nil` for NaN and infinities.
    public static func numberText(_ value: Double) -> String? {
        guard value.isFinite else { return nil }
        if value == 0 { return "0" }  // -0 too
        // Swift's description has the shortest round-trip digits, closest to the value, as
        // ECMAScript requires; only their layout differs (`1e-07`, `1e+16`, `100.0`).
        let text = value.magnitude.description
        let parts = text.split(separator: "e", maxSplits: 1)
        let exponent = parts.count == 2 ? Int(parts[1])! : 0
        let mantissa = parts[0].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        var digits = Array(mantissa[0].utf8) + (mantissa.count == 2 ? Array(mantissa[1].utf8) : [])
        var point = mantissa[0].utf8.count + exponent  // digits before the decimal point
        let leadingZeros = digits.prefix { $0 == UInt8(ascii: "0") }.count
        digits.removeFirst(leadingZeros)
        point -= leadingZeros
        while digits.last == UInt8(ascii: "0") { digits.removeLast() }
        let k = digits.count
        let n = point
        var out = value < 0 ? "-" : ""
        let all = String(decoding: digits, as: UTF8.self)
        if k <= n && n <= 21 {
            out += all + String(repeating: "0", count: n - k)
        } else if 0 < n && n <= 21 {
            out += String(decoding: digits[..<n], as: UTF8.self) + "." + String(decoding: digits[n...], as: UTF8.self)
        } else if -6 < n && n <= 0 {
            out += "0." + String(repeating: "0", count: -n) + all
        } else {
            let e = n - 1
            out += String(decoding: digits[..<1], as: UTF8.self)
            if k > 1 { out += "." + String(decoding: digits[1...], as: UTF8.self) }
            out += (e < 0 ? "e-" : "e+") + String(e.magnitude)
        }
        return out
    }
}
