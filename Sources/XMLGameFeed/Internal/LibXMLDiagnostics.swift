import CLibXML2
import Foundation

/// Collects libxml2's first error from the reader's structured error handler, so its message
/// and line end up in the ``XMLFeedError`` and nothing is printed.
///
/// A reference type because libxml2 holds it as the handler's opaque context; it lives on one
/// thread for one read (not `Sendable`).
final class LibXMLDiagnostics {
    /// One libxml2 error.
    struct Diagnostic: Equatable {
        /// libxml2's code (`xmlParserErrors`, e.g. 76 for a tag mismatch).
        var code: Int32
        /// libxml2's message, trimmed and cut to 300 characters.
        var message: String
        /// The line libxml2 reports, when it has one.
        var line: Int?
    }

    /// The first error (warnings are ignored); later ones are usually its consequences.
    private(set) var first: Diagnostic?

    func record(_ error: xmlError) {
        guard first == nil, error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        var message = error.message.map { String(cString: $0) } ?? "unknown libxml2 error"
        message = message.trimmingCharacters(in: .whitespacesAndNewlines)
        if message.count > 300 { message = String(message.prefix(299)) + "…" }
        first = Diagnostic(code: error.code, message: message, line: error.line > 0 ? Int(error.line) : nil)
    }

    /// Installs `self` as `reader`'s structured error handler. The reader must not outlive
    /// `self`.
    func install(on reader: xmlTextReaderPtr) {
        xmlTextReaderSetStructuredErrorHandler(
            reader,
            { context, error in
                guard let context, let error else { return }
                Unmanaged<LibXMLDiagnostics>.fromOpaque(context).takeUnretainedValue().record(error.pointee)
            },
            Unmanaged.passUnretained(self).toOpaque())
    }
}
