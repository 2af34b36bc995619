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
    /// The libxml2 node type of the current node, read once per ``advance()``.
    private var nodeType: Int32 = 0
    /// The current element's (or end tag's) depth, read once per ``advance()``.
    private var elementDepth = 0
    /// The current text node's length in bytes, measured once per ``advance()``.
    private var textByteCount = 0
    /// Each ``Name`` with its spelling interned in the reader's dictionary: libxml2 hands out
    /// element and attribute names from that dictionary, so a known name is found by comparing
    /// pointers, without making a `String` for every node.
    private let internedNames: [(bytes: UnsafePointer<xmlChar>?, name: Name)]

    init(
        reader: xmlTextReaderPtr, input: FeedInput, diagnostics: LibXMLDiagnostics, file: String,
        limits: XMLFeedReader.Limits
    ) {
        self.reader = reader
        self.input = input
        self.diagnostics = diagnostics
        self.file = file
        self.limits = limits
        internedNames = Name.allCases.map { name in (xmlTextReaderConstString(reader, name.rawValue), name) }
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
        nodeType = status == 1 ? xmlTextReaderNodeType(reader) : 0
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
            elementDepth = Int(xmlTextReaderDepth(reader))
            if depth + 1 > limits.maxDepth {
                throw error(
                    .tooLarge,
                    "<\(name.prefix(60))> is nested \(depth + 1) levels deep, over the limit of \(limits.maxDepth)",
                    line: line)
            }
        case .text:
            let count = valueByteCount
            textByteCount = count
            if count > limits.maxTextBytes {
                throw error(
                    .tooLarge, "a text of \(count) bytes is over the limit of \(limits.maxTextBytes) per element",
                    line: line)
            }
        case .endElement:
            elementDepth = Int(xmlTextReaderDepth(reader))
        case .other:
            break
        }
        return true
    }

    /// Throws what stopped the input or libxml2, input first: libxml2's error is then only a
    /// consequence (the input refused to go on).
    private func checkHealth() throws(XMLFeedError) {
        if input.stop != nil, let error = input.stopError(file: file) {
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
        switch nodeType {
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

    /// The current element's or attribute's name among those the feed's structure uses; `nil`
    /// for any other name (prefixed names included: `ext:game` is not `game`).
    var knownName: Name? {
        guard let bytes = xmlTextReaderConstName(reader) else { return nil }
        if let name = lookUp(bytes) { return name }
        // A name libxml2 did not take from its dictionary (never seen with the reader, which
        // always interns them): intern it to compare.
        guard let interned = xmlTextReaderConstString(reader, bytes), interned != bytes else { return nil }
        return lookUp(interned)
    }

    private func lookUp(_ bytes: UnsafePointer<xmlChar>) -> Name? {
        for entry in internedNames where entry.bytes == bytes {
            return entry.name
        }
        return nil
    }

    /// The qualified name as libxml2 holds it: interned, valid until the reader is freed.
    private var nameBytes: UnsafePointer<CChar>? {
        xmlTextReaderConstName(reader).map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
    }

    /// The current element's (or end tag's) depth, the root being 0.
    var depth: Int { elementDepth }

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

    /// Calls `body` with each of the current element's attributes whose name is a ``Name``,
    /// and its value; checks every attribute's length (namespace declarations included).
    ///
    /// The value's bytes belong to libxml2 and are valid only inside `body`. The cursor stays
    /// on the element.
    ///
    /// - Throws: `.tooLarge` for a value over ``XMLFeedReader/Limits/maxTextBytes``, and what
    ///   `body` throws.
    func forEachAttribute(_ body: (Name, Value) throws(XMLFeedError) -> Void) throws(XMLFeedError) {
        guard xmlTextReaderHasAttributes(reader) == 1 else { return }
        defer { _ = xmlTextReaderMoveToElement(reader) }
        while xmlTextReaderMoveToNextAttribute(reader) == 1 {
            let bytes = xmlTextReaderConstValue(reader)
            let count = bytes.map { strlen(UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) } ?? 0
            guard count <= limits.maxTextBytes else {
                let name = self.name
                _ = xmlTextReaderMoveToElement(reader)
                throw error(
                    .tooLarge,
                    "attribute \(name.prefix(60)) is \(count) bytes, over the limit of \(limits.maxTextBytes)",
                    line: line)
            }
            guard let name = knownName else { continue }
            try body(name, Value(bytes: bytes, count: count))
        }
    }

    /// An attribute value or text as libxml2 holds it, valid until the cursor moves.
    struct Value {
        fileprivate let bytes: UnsafePointer<xmlChar>?
        fileprivate let count: Int

        /// The value as a string.
        var string: String {
            guard let bytes else { return "" }
            return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
        }
    }

    // MARK: - Structure

    /// Calls `body` with the name of each child element of the current element whose name is a
    /// ``Name``, in order; other children are skipped.
    ///
    /// `body` either consumes the child (leaves the cursor on its end) or leaves the cursor
    /// where it was, and then the child is skipped: unknown elements need no code.
    func forEachChild(_ body: (Name) throws(XMLFeedError) -> Void) throws(XMLFeedError) {
        guard !isEmptyElement else { return }
        let depth = self.depth
        let parent = nameBytes  // interned by libxml2 for the reader's life; a String only for an error
        while try advance() {
            switch kind {
            case .element:
                let before = position
                if let name = knownName { try body(name) }
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
        var text = ""
        var total = 0
        while try advance() {
            switch kind {
            case .text:
                guard let value = xmlTextReaderConstValue(reader) else { continue }
                let count = textByteCount
                guard total + count <= limits.maxTextBytes else {
                    throw error(
                        .tooLarge,
                        "the text of <\(parent().prefix(60))> is over the limit of \(limits.maxTextBytes) bytes",
                        line: line)
                }
                total += count
                // Text nodes hold whole characters (libxml2 checked the UTF-8), so decoding
                // each one and appending equals decoding their concatenation.
                let piece = String(decoding: UnsafeBufferPointer(start: value, count: count), as: UTF8.self)
                if text.isEmpty { text = piece } else { text += piece }
            case .element:
                try skipElement()
            case .endElement where self.depth == depth:
                return text
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
        let parent = nameBytes  // interned by libxml2 for the reader's life; a String only for an error
        while try advance() {
            if kind == .endElement && self.depth == depth { return }
        }
        throw unexpectedEnd(in: parent.map { String(cString: $0) } ?? "")
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
