import Crypto
import Foundation

/// Text from a snapshot made safe in an HTML page: every name, id and URL goes through ``escape(_:)``.
@_spi(CatalogTools) public enum HTMLText {
    /// A self-contained page: its `Content-Security-Policy` allows nothing but images beside it,
    /// `style` and `script` (each by its SHA-256), so nothing it shows can load or run anything.
    public static func document(title: String, body: [String], style: String, script: String?) -> String {
        let scriptSource = script.map { "'sha256-\(base64SHA256($0))'" } ?? "'none'"
        let policy =
            "default-src 'none'; img-src 'self'; style-src 'sha256-\(base64SHA256(style))'; "
            + "script-src \(scriptSource); base-uri 'none'; form-action 'none'"
        return
            ([
                "<!DOCTYPE html>", #"<html lang="en">"#, "<head>", #"<meta charset="utf-8">"#,
                #"<meta http-equiv="Content-Security-Policy" content="\#(policy)">"#,
                #"<meta name="referrer" content="no-referrer">"#,
                #"<meta name="viewport" content="width=device-width, initial-scale=1">"#,
                "<title>\(escape(title))</title>", "<style>\(style)</style>", "</head>", "<body>",
            ] + body + ["</body>", "</html>"]).joined(separator: "\n") + "\n"
    }

    private static func base64SHA256(_ text: String) -> String {
        Data(SHA256.hash(data: Data(text.utf8))).base64EncodedString()
    }

    /// `text` with `&`, `<`, `>`, `"` and `'` as character references: safe as element text and
    /// inside a quoted attribute value (either quote), so no value can close a tag or an attribute,
    /// open an element or start an entity. Control characters other than tab and newline become
    /// U+FFFD (a NUL or a C1 control has no business in a name).
    public static func escape(_ text: String) -> String {
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
