import CLibXML2
import Foundation

/// Collects libxml2's first error from the parser's structured error handler, so its message
/// and line end up in the ``XMLFeedError`` and nothing is printed.
///
/// A reference type because libxml2 holds it as the handler's opaque context; it lives on one
/// thread for one read (not `Sendable`).
final class LibXMLDiagnostics {
    /// One libxml2 error.
    struct Diagnostic: Equatable {
        /// libxml2's code (`xmlParserErrors`, e.g. 76 for a tag mismatch).
        var code: Int32
        /// libxml2's message on one line, cut to 300 characters.
        var message: String
        /// The line libxml2 reports, when it has one.
        var line: Int?
        /// How many elements were open when the parser gave up.
        var openElements: Int
        /// Whether the parser had passed the root element's end.
        var isAfterRoot: Bool
        /// Whether the parser had consumed every byte it was given.
        var isAtEndOfData: Bool
    }

    /// The first error (warnings are ignored); later ones are usually its consequences.
    private(set) var first: Diagnostic?

    func record(_ error: xmlError) {
        guard first == nil, error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        var message = error.message.map { String(cString: $0) } ?? "unknown libxml2 error"
        message = message.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        if message.count > 300 { message = String(message.prefix(299)) + "…" }
        // The parser's state tells a truncated feed from content after the root, which
        // libxml2 reports with the same code and message. Only the parser domain's context is
        // an xmlParserCtxt.
        let isParser = error.domain == Int32(XML_FROM_PARSER.rawValue)
        let parser = isParser ? error.ctxt.map { $0.assumingMemoryBound(to: xmlParserCtxt.self).pointee } : nil
        let input = parser?.input?.pointee
        first = Diagnostic(
            code: error.code, message: message, line: error.line > 0 ? Int(error.line) : nil,
            openElements: parser.map { Int($0.nameNr) } ?? 0, isAfterRoot: parser?.instate == XML_PARSER_EPILOG,
            isAtEndOfData: input.map { $0.cur != nil && $0.cur == $0.end } ?? false)
    }
}
