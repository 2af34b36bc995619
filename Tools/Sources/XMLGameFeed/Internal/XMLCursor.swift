import CLibXML2
import Foundation

/// A forward-only walk over the events of libxml2's push parser (``PushParser``) that applies
/// the feed's rules to every node: no DTD, no entity references, bounded depth and text, and
/// libxml2's or the input's first error turned into an ``XMLFeedError``.
///
/// The structural helpers (``forEachChild(_:)``, ``text()``, ``skipElement()``) start on an
/// element's start tag and leave the cursor on its end (or on the start tag of an empty
/// element).
final class XMLCursor {
    typealias Kind = PushParser.Kind

    private let parser: PushParser
    private let input: FeedInput
    private let diagnostics: LibXMLDiagnostics
    /// The feed's name, for errors.
    let file: String
    let limits: XMLFeedReader.Limits
    /// Counts ``advance()`` calls, so a helper can tell whether a closure consumed a node.
    private(set) var position = 0
    /// The node the cursor is on.
    private var current = PushParser.Event(
        kind: .documentType, name: nil, prefix: nil, known: nil, depth: 0, line: 0, isEmpty: false, range: 0..<0)
    /// The index of the next event in the parser's record.
    private var next = 0
    /// The bytes of text since the last tag, against ``XMLFeedReader/Limits/maxTextBytes``.
    private var textRun = 0
    /// Input read but not yet pushed. libxml2 2.9's push parser looks back
    /// from the end of what it holds for the last `<` at every push, one byte at a time: a push
    /// ends just after a `<` when one came, and input without one is held until one does, up to
    /// ``holdLimit`` (past it, it is pushed as it is: text that long fails the read anyway, and a
    /// comment that long only costs libxml2's scan).
    private var held = ByteArena()
    private let holdLimit: Int
    private static let chunkSize = 64 << 10
    private var isStarted = false
    private var isFinished = false

    init(input: FeedInput, file: String, limits: XMLFeedReader.Limits) {
        LibXML2.initialized
        let diagnostics = LibXMLDiagnostics()
        self.diagnostics = diagnostics
        parser = PushParser(diagnostics: diagnostics, maxValueBytes: limits.maxTextBytes)
        self.input = input
        self.file = file
        self.limits = limits
        holdLimit = min(max(limits.maxTextBytes, Self.chunkSize), 16 << 20) + Self.chunkSize
    }

    deinit {
        held.deallocate()
    }

    // MARK: - Moving

    /// Moves to the next node.
    ///
    /// - Returns: `false` at the end of the document.
    /// - Throws: The input's or libxml2's first error; `.doctypeForbidden`,
    ///   `.entityForbidden`, or `.tooLarge` for too deep an element or too long a text.
    func advance() throws(XMLFeedError) -> Bool {
        position += 1
        while next == parser.record.pointee.events.count {
            guard !isFinished else { return false }
            try read()
        }
        current = parser.record.pointee.events[next]
        next += 1
        switch current.kind {
        case .documentType:
            throw error(.doctypeForbidden, Self.doctypeMessage, line: line)
        case .entity:
            throw error(
                .entityForbidden,
                "entity reference &\(text(of: current).prefix(60)); is not allowed; feeds may use only &amp; &lt; &gt; &quot; &apos; and character references",
                line: line)
        case .element:
            textRun = 0
            if depth + 1 > limits.maxDepth {
                throw error(
                    .tooLarge,
                    "<\(name.prefix(60))> is nested \(depth + 1) levels deep, over the limit of \(limits.maxDepth)",
                    line: line)
            }
        case .text:
            textRun += current.length
            if textRun > limits.maxTextBytes {
                throw error(
                    .tooLarge, "a text of over \(limits.maxTextBytes) bytes is over the limit per element", line: line)
            }
        case .endElement:
            textRun = 0
        }
        return true
    }

    /// Reads the next chunk of the input into the parser, replacing the events.
    private func read() throws(XMLFeedError) {
        parser.removeEvents()
        next = 0
        let count = Int(input.fill(held.reserve(Self.chunkSize), capacity: Self.chunkSize))
        if count < 0 {
            throw input.stopError(file: file) ?? error(.io, "reading the feed failed")
        }
        let first = held.count
        held.grow(by: count)
        let all = UnsafeRawBufferPointer(held.bytes(0..<held.count))
        if !isStarted {
            isStarted = true
            guard parser.start(with: all, file: file) else {
                throw XMLFeedError(.io, "libxml2 could not create a parser for the feed (out of memory?)", file: file)
            }
            held.removeAll()
            if count == 0 { parser.push(UnsafeRawBufferPointer(start: nil, count: 0), isLast: true) }
        } else if count == 0 {
            parser.push(all, isLast: true)
            held.removeAll()
        } else if let base = all.baseAddress, let open = Self.lastOpen(in: base, from: first, to: all.count) {
            parser.push(UnsafeRawBufferPointer(rebasing: all[...open]), isLast: false)
            held.removeFirst(open + 1)  // keeps the start of a tag for the next push
        } else if held.count >= holdLimit {
            parser.push(all, isLast: false)
            held.removeAll()
        }
        if count == 0 { isFinished = true }
        try checkHealth()
    }

    /// The index of the last `<` in `base[from..<to]`, eight bytes at a time.
    private static func lastOpen(in base: UnsafeRawPointer, from: Int, to: Int) -> Int? {
        var end = to
        while end - 8 >= from {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self))
            let other = word ^ 0x3C3C_3C3C_3C3C_3C3C  // a zero byte where `word` has a `<`
            // Exact per byte, no borrow between bytes: the high bit is set where the byte is zero.
            let low = 0x7F7F_7F7F_7F7F_7F7F as UInt64
            let zeros = ~(((other & low) &+ low) | other | low)
            if zeros != 0 { return end - 8 + (63 - zeros.leadingZeroBitCount) / 8 }
            end -= 8
        }
        while end > from {
            end -= 1
            if base.load(fromByteOffset: end, as: UInt8.self) == UInt8(ascii: "<") { return end }
        }
        return nil
    }

    /// Throws what stopped the input, a document type or libxml2's first error, in that order:
    /// libxml2's error is then only a consequence.
    private func checkHealth() throws(XMLFeedError) {
        if input.stop != nil, let error = input.stopError(file: file) {
            throw error
        }
        // A DTD is refused as such, before what libxml2 then says of the entities it declared.
        if let line = parser.record.pointee.documentTypeLine {
            throw error(.doctypeForbidden, Self.doctypeMessage, line: line)
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

    var kind: Kind { current.kind }

    /// The qualified name (`game`, `ext:game`).
    var name: String {
        guard let bytes = current.name else { return "" }
        return Self.qualifiedName(bytes, prefix: current.prefix)
    }

    private static func qualifiedName(_ name: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>?) -> String {
        let local = String(cString: UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self))
        guard let prefix else { return local }
        return String(cString: UnsafeRawPointer(prefix).assumingMemoryBound(to: CChar.self)) + ":" + local
    }

    /// The current element's or attribute's name among those the feed's structure uses; `nil`
    /// for any other name (prefixed names included: `ext:game` is not `game`).
    var knownName: Name? { current.known }

    /// The current element's (or end tag's) depth, the root being 0.
    var depth: Int { current.depth }

    /// Whether the current element is written `<x/>` (no end tag follows).
    var isEmptyElement: Bool { current.kind == .element && current.isEmpty }

    /// The line where the current node's tag or text ends.
    var line: Int { current.line }

    /// The text (or entity name) of `event`, decoded.
    private func text(of event: PushParser.Event) -> String {
        String(decoding: parser.record.pointee.bytes.bytes(event.range), as: UTF8.self)
    }

    /// Calls `body` with each of the current element's attributes whose name is a ``Name``,
    /// and its value; checks every attribute's length (namespace declarations included).
    ///
    /// The value's bytes are valid only inside `body`. The cursor stays on the element.
    ///
    /// - Throws: `.tooLarge` for a value over ``XMLFeedReader/Limits/maxTextBytes``, and what
    ///   `body` throws.
    func forEachAttribute(_ body: (Name, Value) throws(XMLFeedError) -> Void) throws(XMLFeedError) {
        guard current.kind == .element else { return }
        for index in current.range {
            let attribute = parser.record.pointee.attributes[index]
            guard attribute.count <= limits.maxTextBytes else {
                let name =
                    attribute.isNamespace
                    ? "xmlns" + (attribute.name.map { ":" + Self.qualifiedName($0, prefix: nil) } ?? "")
                    : attribute.name.map { Self.qualifiedName($0, prefix: attribute.prefix) } ?? ""
                throw error(
                    .tooLarge,
                    "attribute \(name.prefix(60)) is \(attribute.count) bytes, over the limit of \(limits.maxTextBytes)",
                    line: line)
            }
            guard !attribute.isNamespace, let name = attribute.known else { continue }
            try body(name, Value(bytes: parser.record.pointee.bytes.bytes(attribute.value)))
        }
    }

    /// An attribute value or text as the parser holds it, valid until the cursor moves.
    struct Value {
        fileprivate let bytes: UnsafeBufferPointer<UInt8>

        /// The value as a string.
        var string: String { String(decoding: bytes, as: UTF8.self) }
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
        let parent = current  // its name is interned for the parser's life; a String only for an error
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
        throw unexpectedEnd(in: parent)
    }

    /// The current element's text (text and CDATA children, concatenated; child elements
    /// skipped), as written.
    ///
    /// - Throws: `.tooLarge` for more than ``XMLFeedReader/Limits/maxTextBytes`` bytes.
    func text() throws(XMLFeedError) -> String {
        guard !isEmptyElement else { return "" }
        let depth = self.depth
        let parent = current
        let line = self.line
        var text = ""
        var total = 0
        while try advance() {
            switch kind {
            case .text:
                total += current.length
                guard total <= limits.maxTextBytes else {
                    throw error(
                        .tooLarge,
                        "the text of <\(name(of: parent).prefix(60))> is over the limit of \(limits.maxTextBytes) bytes",
                        line: line)
                }
                // libxml2 hands text over in pieces of whole characters (it checked the UTF-8), so
                // decoding each one and appending equals decoding their concatenation.
                let piece = self.text(of: current)
                if text.isEmpty { text = piece } else { text += piece }
            case .element:
                try skipElement()
            case .endElement where self.depth == depth:
                return text
            default:
                continue
            }
        }
        throw unexpectedEnd(in: parent)
    }

    /// Moves past the current element and everything in it.
    func skipElement() throws(XMLFeedError) {
        guard !isEmptyElement else { return }
        let depth = self.depth
        let parent = current
        while try advance() {
            if kind == .endElement && self.depth == depth { return }
        }
        throw unexpectedEnd(in: parent)
    }

    private func name(of event: PushParser.Event) -> String {
        event.name.map { Self.qualifiedName($0, prefix: event.prefix) } ?? ""
    }

    private func unexpectedEnd(in element: PushParser.Event) -> XMLFeedError {
        error(
            .malformed,
            "the document ends inside <\(name(of: element).prefix(60))>; the feed is truncated, fetch it again",
            line: parser.line)
    }

    static let doctypeMessage = "the feed has a <!DOCTYPE>; feeds must not carry a DTD, remove it at the source"
}
