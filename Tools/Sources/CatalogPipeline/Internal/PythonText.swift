import Foundation

/// The few text functions of Python's standard library the curated data was written with, so
/// `CuratedRecording` produces the same slugs, URLs and XML as the script did.
enum PythonText {
    /// `re.sub(r"[^a-z0-9]+", "-", NFKD(text).encode("ascii", "ignore").decode().lower()).strip("-")`:
    /// `"Château Fortune"` → `"chateau-fortune"`, `"Robin's Arrow"` → `"robin-s-arrow"`.
    static func slugify(_ text: String) -> String {
        var slug = ""
        var pendingSeparator = false
        for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars where scalar.isASCII {
            let lower = (65...90).contains(scalar.value) ? Unicode.Scalar(scalar.value + 32)! : scalar
            if ("a"..."z").contains(lower) || ("0"..."9").contains(lower) {
                if pendingSeparator && !slug.isEmpty { slug += "-" }
                pendingSeparator = false
                slug.unicodeScalars.append(lower)
            } else {
                pendingSeparator = true
            }
        }
        return slug
    }

    /// `urllib.parse.quote(text, safe="")`: every UTF-8 byte but `A-Z a-z 0-9 _ . - ~` as `%XX`.
    static func quote(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if ("A"..."Z").contains(scalar) || ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
                || "_.-~".unicodeScalars.contains(scalar)
            {
                output.unicodeScalars.append(scalar)
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                output += byte < 16 ? "%0" + hex : "%" + hex
            }
        }
        return output
    }

    /// `xml.sax.saxutils.escape(text)`: `&`, `<` and `>` as entities; with `quotes`, `"` as
    /// `&quot;` too (the script's `attr()`).
    static func xmlEscape(_ text: String, quotes: Bool = false) -> String {
        var output = ""
        for character in text.unicodeScalars {
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"" where quotes: output += "&quot;"
            default: output.unicodeScalars.append(character)
            }
        }
        return output
    }

    /// `f"{value:g}"` for a whole number of hundredths (`9650` → `"96.5"`, `9600` → `"96"`):
    /// six significant digits cannot cut such a value, so only trailing zeros go.
    static func generalFormat(hundredths: Int) -> String {
        let whole = hundredths / 100
        var fraction = String(hundredths % 100)
        if fraction.count < 2 { fraction = "0" + fraction }
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? String(whole) : "\(whole).\(fraction)"
    }

    /// `round(value, 2)`: the double nearest the correctly rounded two-decimal value, ties to
    /// even on the exact binary value, as CPython's dtoa-based `round` does (and glibc's `%.2f`).
    static func round2(_ value: Double) -> Double {
        Double(String(format: "%.2f", value))!
    }
}
