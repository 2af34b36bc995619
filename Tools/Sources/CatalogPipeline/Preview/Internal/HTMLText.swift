/// Text from a snapshot made safe in an HTML page: every name, id and URL goes through ``escape(_:)``.
enum HTMLText {
    /// `text` with `&`, `<`, `>`, `"` and `'` as character references: safe as element text and
    /// inside a quoted attribute value (either quote), so no value can close a tag or an attribute,
    /// open an element or start an entity. Control characters other than tab and newline become
    /// U+FFFD (a NUL or a C1 control has no business in a name).
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\t", "\n": result.unicodeScalars.append(scalar)
            case _ where scalar.properties.generalCategory == .control: result += "\u{FFFD}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
