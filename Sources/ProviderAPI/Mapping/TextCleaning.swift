import Foundation

/// Turns provider text into schema text: HTML stripped, entities decoded, whitespace collapsed,
/// Unicode NFC-normalized, control characters removed.
@_spi(CatalogTools) public enum TextCleaning {
    /// Cleans a one-line text such as a name: trims, collapses whitespace runs to one space,
    /// removes control characters and NFC-normalizes (`"  Cafe\u{301} "` → `"Café"`).
    public static func line(_ text: String) -> String {
        if isCleanASCII(text) { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace || scalar.properties.generalCategory == .control {
                pendingSpace = !result.isEmpty
                continue
            }
            if pendingSpace {
                result.unicodeScalars.append(" ")
                pendingSpace = false
            }
            result.unicodeScalars.append(scalar)
        }
        return result.precomposedStringWithCanonicalMapping
    }

    /// Whether `text` is printable ASCII with single inner spaces and none at the ends: already
    /// clean (and NFC), the common case, checked without Unicode tables.
    private static func isCleanASCII(_ text: String) -> Bool {
        var previousWasSpace = true  // rejects a leading space
        for byte in text.utf8 {
            guard byte >= 0x20, byte < 0x7F else { return false }
            let isSpace = byte == 0x20
            if isSpace && previousWasSpace { return false }
            previousWasSpace = isSpace
        }
        return !previousWasSpace || text.isEmpty
    }

    /// Converts HTML to plain text: drops tags (and the content of `script` and `style`),
    /// decodes character references, then cleans the result like ``line(_:)``.
    ///
    /// `"<p>Did you grow up playing <b>Tomb Raider</b>? &amp; more</p>"` →
    /// `"Did you grow up playing Tomb Raider? & more"`.
    public static func plainText(fromHTML html: String) -> String {
        var output = ""
        output.reserveCapacity(html.utf8.count)
        var index = html.startIndex
        var skipUntil: String?
        while index < html.endIndex {
            let character = html[index]
            if character == "<" {
                guard let close = html[index...].firstIndex(of: ">") else {
                    break  // an unterminated tag: drop the rest
                }
                let tag = html[html.index(after: index)..<close].lowercased()
                let name = tag.prefix { $0.isLetter || $0.isNumber || $0 == "/" }
                if let closing = skipUntil {
                    if name == closing { skipUntil = nil }
                } else if name == "script" || name == "style" {
                    skipUntil = "/" + name
                } else if !inlineTags.contains(String(name.drop(while: { $0 == "/" }))) {
                    output.append(" ")  // block tags (p, br, div, li…) separate words; inline ones do not
                }
                index = html.index(after: close)
                continue
            }
            if skipUntil != nil {
                index = html.index(after: index)
                continue
            }
            if character == "&", let (decoded, next) = entity(in: html, at: index) {
                output.append(decoded)
                index = next
                continue
            }
            output.append(character)
            index = html.index(after: index)
        }
        return line(output)
    }

    /// Tags that do not separate words (`<b>Tomb</b>Raider` stays one word).
    private static let inlineTags: Set<String> = [
        "a", "abbr", "b", "bdi", "bdo", "cite", "code", "em", "font", "i", "mark", "q", "s", "small", "span", "strong",
        "sub", "sup", "u",
    ]

    private static let namedEntities: [Substring: Character] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "copy": "©", "reg": "®",
        "trade": "™", "euro": "€", "hellip": "…", "mdash": "—", "ndash": "–", "laquo": "«", "raquo": "»",
        "rsquo": "’", "lsquo": "‘", "rdquo": "”", "ldquo": "“",
    ]

    /// Decodes one character reference starting at `start` (`&amp;`, `&#233;`, `&#xE9;`).
    private static func entity(in text: String, at start: String.Index) -> (Character, String.Index)? {
        let body = text[text.index(after: start)...].prefix(12)
        guard let semicolon = body.firstIndex(of: ";") else { return nil }
        let name = body[..<semicolon]
        let next = text.index(after: semicolon)
        if name.hasPrefix("#") {
            let digits = name.dropFirst()
            let value =
                digits.first == "x" || digits.first == "X"
                ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            guard let value, let scalar = Unicode.Scalar(value), scalar.value != 0 else { return nil }
            return (Character(scalar), next)
        }
        guard let character = namedEntities[name] else { return nil }
        return (character, next)
    }

    /// Whether `text` looks like it holds HTML (a tag or a character reference).
    public static func looksLikeHTML(_ text: String) -> Bool {
        text.contains("<") || text.contains("&")
    }
}
