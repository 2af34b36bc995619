import CLibXML2
import Foundation

/// A forward-only walk over libxml2's `xmlTextReader` that applies the feed's rules to every
/// node: no DTD, no entity references, bounded depth and text, and libxml2's or the input's
/// first error turned into an ``XMLFeedError``.
///
/// The structural helpers (``forEachChild(_:)``, ``text()``, ``skipElement()``) start on an
/// element's start tag and leave the cursor on its end (or on the start tag of an empty
/// element).
final class XMLCursor {
    /// What the cursor is on.
    enum Kind {
        case element, endElement, text, documentType, entity, other
    }

    private let reader: xmlTextReaderPtr
    private let input: FeedInput
    private let diagnostics: LibXMLDiagnostics
    /// The feed's name, for errors.
    let file: String
    let limits: XMLFeedReader.Limits
    /// Counts ``advance()`` calls, so a helper can tell whether a closure consumed a node.
    private(set) var position = 0

    init(
        reader: xmlTextReaderPtr, input: FeedInput, diagnostics: LibXMLDiagnostics, file: String,
        limits: XMLFeedReader.Limits
    ) {
        self.reader = reader
        self.input = input
        self.diagnostics = diagnostics
        self.file = file
        self.limits = limits
    }

    // MARK: - Moving

    /// Moves to the next node.
    ///
    /// - Returns: `false` at the end of the document.
    /// - Throws: The input's or libxml2's first error; `.doctypeForbidden`,
    ///   `.entityForbidden`, or `.tooLarge` for too deep an element or too long a text.
    func advance() throws(XMLFeedError) -> Bool {
        let status = xmlTextReaderRead(reader)
        position += 1
        try checkHealth()
        guard status >= 0 else {
            throw error(.malformed, "libxml2 stopped reading without a diagnostic", line: parserLine)
        }
        guard status == 1 else { return false }
        switch kind {
        case .documentType:
            throw error(.doctypeForbidden, Self.doctypeMessage, line: line)
        case .entity:
            throw error(
                .entityForbidden,
                "entity reference &\(name.prefix(60)); is not allowed; feeds may use only &amp; &lt; &gt; &quot; &apos; and character references",
                line: line)
        case .element:
            if depth + 1 > limits.maxDepth {
                throw error(
                    .tooLarge,
                    "<\(name.prefix(60))> is nested \(depth + 1) levels deep, over the limit of \(limits.maxDepth)",
                    line: line)
            }
        case .text:
            let count = valueByteCount
            if count > limits.maxTextBytes {
                throw error(
                    .tooLarge, "a text of \(count) bytes is over the limit of \(limits.maxTextBytes) per element",
                    line: line)
            }
        case .endElement, .other:
            break
        }
        return true
    }

    /// Throws what stopped the input or libxml2, input first: libxml2's error is then only a
    /// consequence (the input refused to go on).
    private func checkHealth() throws(XMLFeedError) {
        if let error = input.stopError(file: file) {
            throw error
        }
        if let diagnostic = diagnostics.first {
            throw error(for: diagnostic)
        }
    }

    private func error(for diagnostic: LibXMLDiagnostics.Diagnostic) -> XMLFeedError {
        let line = diagnostic.line
        switch diagnostic.code {
        case Int32(XML_ERR_UNDECLARED_ENTITY.rawValue), Int32(XML_WAR_UNDECLARED_ENTITY.rawValue),
            Int32(XML_ERR_ENTITY_LOOP.rawValue), Int32(XML_ERR_UNPARSED_ENTITY.rawValue),
            Int32(XML_ERR_ENTITY_IS_EXTERNAL.rawValue), Int32(XML_ERR_ENTITY_IS_PARAMETER.rawValue),
            Int32(XML_ERR_ENTITY_PE_INTERNAL.rawValue):
            return error(
                .entityForbidden,
                "\(diagnostic.message); feeds may use only &amp; &lt; &gt; &quot; &apos; and character references",
                line: line)
        case Int32(XML_ERR_DOCUMENT_EMPTY.rawValue):
            return error(.malformed, "the feed has no root element; expected <feed>", line: line)
        // libxml2's push parser says "Extra content at the end of the document" for all three.
        case Int32(XML_ERR_DOCUMENT_END.rawValue) where diagnostic.openElements > 0:
            return error(
                .malformed, "the document ends inside an element; the feed is truncated, fetch it again", line: line)
        case Int32(XML_ERR_DOCUMENT_END.rawValue) where diagnostic.isAfterRoot:
            return error(
                .malformed, "not well-formed XML: content after the root element's end; fix the feed at the source",
                line: line)
        case Int32(XML_ERR_DOCUMENT_END.rawValue):
            return error(.malformed, "the feed has no root element; expected <feed>", line: line)
        case _ where input.isExhausted && diagnostic.isAtEndOfData && diagnostic.openElements > 0:
            return error(
                .malformed,
                "not well-formed XML: \(diagnostic.message) at the very end, inside an element; the feed is probably truncated, fetch it again",
                line: line)
        default:
            return error(
                .malformed,
                "not well-formed XML: \(diagnostic.message); fix the feed at the source (the whole file is rejected)",
                line: line)
        }
    }

    /// An error at `line` in this feed.
    func error(_ code: XMLFeedError.Code, _ message: String, line: Int? = nil) -> XMLFeedError {
        XMLFeedError(code, message, file: file, line: line)
    }

    // MARK: - The current node

    var kind: Kind {
        switch xmlTextReaderNodeType(reader) {
        case Self.elementType: .element
        case Self.endElementType: .endElement
        case Self.textType, Self.cdataType, Self.whitespaceType, Self.significantWhitespaceType: .text
        case Self.documentTypeType: .documentType
        case Self.entityReferenceType, Self.entityType: .entity
        default: .other
        }
    }

    /// The qualified name (`game`, `ext:game`).
    var name: String {
        nameBytes.map { String(cString: $0) } ?? ""
    }

    /// The qualified name as libxml2 holds it: interned, valid until the reader is freed.
    private var nameBytes: UnsafePointer<CChar>? {
        xmlTextReaderConstName(reader).map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
    }

    /// The element depth, the root being 0.
    var depth: Int { Int(xmlTextReaderDepth(reader)) }

    /// Whether the current element is written `<x/>` (no end tag follows).
    var isEmptyElement: Bool { xmlTextReaderIsEmptyElement(reader) == 1 }

    /// The current node's line: exact up to 65,534 (libxml2 stores 16 bits), past that the
    /// parser's position, which runs a little ahead.
    var line: Int {
        if let node = xmlTextReaderCurrentNode(reader) {
            let line = Int(node.pointee.line)
            if line > 0 && line < 65_535 { return line }
        }
        return parserLine
    }

    private var parserLine: Int { Int(xmlTextReaderGetParserLineNumber(reader)) }

    private var valueByteCount: Int {
        xmlTextReaderConstValue(reader).map { strlen(UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) } ?? 0
    }

    /// The current element's attributes by qualified name (namespace declarations included).
    ///
    /// - Throws: `.tooLarge` for a value over ``XMLFeedReader/Limits/maxTextBytes``.
    func attributes() throws(XMLFeedError) -> [String: String] {
        guard xmlTextReaderHasAttributes(reader) == 1 else { return [:] }
        let line = self.line
        defer { _ = xmlTextReaderMoveToElement(reader) }
        var result: [String: String] = [:]
        while xmlTextReaderMoveToNextAttribute(reader) == 1 {
            let name = self.name
            let count = valueByteCount
            guard count <= limits.maxTextBytes else {
                throw error(
                    .tooLarge,
                    "attribute \(name.prefix(60)) is \(count) bytes, over the limit of \(limits.maxTextBytes)",
                    line: line)
            }
            result[name] = xmlTextReaderConstValue(reader).map { String(cString: $0) } ?? ""
        }
        return result
    }

    // MARK: - Structure

    /// Calls `body` with the name of each child element of the current element, in order.
    ///
    /// `body` either consumes the child (leaves the cursor on its end) or leaves the cursor
    /// where it was, and then the child is skipped: unknown elements need no code.
    func forEachChild(_ body: (String) throws(XMLFeedError) -> Void) throws(XMLFeedError) {
        guard !isEmptyElement else { return }
        let depth = self.depth
        let parent = nameBytes  // interned by libxml2 for the reader's life; a String only for an error
        while try advance() {
            switch kind {
            case .element:
                let before = position
                try body(name)
                if position == before { try skipElement() }
            case .endElement where self.depth == depth:
                return
            default:
                continue
            }
        }
        throw unexpectedEnd(in: parent.map { String(cString: $0) } ?? "")
    }

    /// The current element's text (text and CDATA children, concatenated; child elements
    /// skipped), as written.
    ///
    /// - Throws: `.tooLarge` for more than ``XMLFeedReader/Limits/maxTextBytes`` bytes.
    func text() throws(XMLFeedError) -> String {
        guard !isEmptyElement else { return "" }
        let depth = self.depth
        let parentBytes = nameBytes
        let parent = { parentBytes.map { String(cString: $0) } ?? "" }  // for errors only
        let line = self.line
        var bytes: [UInt8] = []
        while try advance() {
            switch kind {
            case .text:
                guard let value = xmlTextReaderConstValue(reader) else { continue }
                let count = strlen(UnsafeRawPointer(value).assumingMemoryBound(to: CChar.self))
                guard bytes.count + count <= limits.maxTextBytes else {
                    throw error(
                        .tooLarge,
                        "the text of <\(parent().prefix(60))> is over the limit of \(limits.maxTextBytes) bytes",
                        line: line)
                }
                bytes.append(contentsOf: UnsafeBufferPointer(start: value, count: count))
            case .element:
                try skipElement()
            case .endElement where self.depth == depth:
                return String(decoding: bytes, as: UTF8.self)
            default:
                continue
            }
        }
        throw unexpectedEnd(in: parent())
    }

    /// Moves past the current element and everything in it.
    func skipElement() throws(XMLFeedError) {
        guard !isEmptyElement else { return }
        let depth = self.depth
        let parent = name
        while try advance() {
            if kind == .endElement && self.depth == depth { return }
        }
        throw unexpectedEnd(in: parent)
    }

    private func unexpectedEnd(in element: String) -> XMLFeedError {
        error(
            .malformed, "the document ends inside <\(element.prefix(60))>; the feed is truncated, fetch it again",
            line: parserLine)
    }

    static let doctypeMessage = "the feed has a <!DOCTYPE>; feeds must not carry a DTD, remove it at the source"

    // MARK: - libxml2 node types

    private static let elementType = Int32(XML_READER_TYPE_ELEMENT.rawValue)
    private static let endElementType = Int32(XML_READER_TYPE_END_ELEMENT.rawValue)
    private static let textType = Int32(XML_READER_TYPE_TEXT.rawValue)
    private static let cdataType = Int32(XML_READER_TYPE_CDATA.rawValue)
    private static let whitespaceType = Int32(XML_READER_TYPE_WHITESPACE.rawValue)
    private static let significantWhitespaceType = Int32(XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue)
    private static let documentTypeType = Int32(XML_READER_TYPE_DOCUMENT_TYPE.rawValue)
    private static let entityReferenceType = Int32(XML_READER_TYPE_ENTITY_REFERENCE.rawValue)
    private static let entityType = Int32(XML_READER_TYPE_ENTITY.rawValue)
}
