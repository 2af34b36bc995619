import CLibXML2
import Foundation

/// libxml2's push parser with SAX2 callbacks that record what ``XMLCursor`` walks: element
/// starts and ends, text, entity references and a document type, in document order.
///
/// Not `xmlTextReader`: the reader builds a node for every element, attribute and text and frees it
/// again, which cost more than the parsing itself; here nothing is built but the events of the
/// chunk being read, and they are dropped when the next chunk is pushed.
///
/// It lives on one thread for one read (not `Sendable`).
final class PushParser {
    /// What a recorded event is.
    enum Kind {
        case element, endElement, text, documentType, entity
    }

    /// One event. Names are libxml2's interned pointers, valid for the parser's life; text and
    /// attribute values are ranges of ``Record/bytes``, valid until the next chunk is pushed.
    struct Event {
        var kind: Kind
        var name: UnsafePointer<xmlChar>?
        var prefix: UnsafePointer<xmlChar>?
        /// The element's name among those the feed's structure uses (never a prefixed one).
        var known: XMLCursor.Name?
        /// The element's depth, the root being 0 (elements and end tags).
        var depth: Int
        /// The line where the start tag, end tag or text ends.
        var line: Int
        /// Whether the element is written `<x/>`; no end event follows it.
        var isEmpty: Bool
        /// The element's attributes in ``Record/attributes``, or the text (or entity name) in
        /// ``Record/bytes``.
        var range: Range<Int>
        /// The text's length in bytes; past the limit its bytes are not kept (`range` is empty).
        var length = 0
    }

    /// An attribute or namespace declaration of an element event.
    struct Attribute {
        var name: UnsafePointer<xmlChar>?
        var prefix: UnsafePointer<xmlChar>?
        /// The attribute's name among those the feed's structure uses (never a prefixed one).
        var known: XMLCursor.Name?
        /// `xmlns` or `xmlns:prefix` (``name`` is then the declared prefix, if any).
        var isNamespace: Bool
        /// The value's length in bytes; only values within the limit are copied.
        var count: Int
        /// The value in ``Record/bytes`` (empty when it was over the limit).
        var value: Range<Int>
    }

    /// What the callbacks record, and all they need to. libxml2 hands the callbacks a pointer
    /// to it: no reference counting and no run-time exclusivity check per node, which as stored
    /// properties of a class cost more than recording the node.
    struct Record {
        var events: [Event] = []
        var attributes: [Attribute] = []
        /// Text and attribute values of the events, back to back.
        var bytes = ByteArena()
        var depth = 0
        /// The bytes of text since the last tag: libxml2 hands long text over in pieces.
        var textRun = 0
        /// The line of a document type declaration, once libxml2 reported one.
        var documentTypeLine: Int?
        /// Whether each open element is a known one: only their text is ever read, so only their
        /// text is copied (a feed's unknown elements may hold megabytes).
        var openElementsAreKnown: [Bool] = []
        /// Each ``XMLCursor/Name`` with its spelling interned in the parser's dictionary: libxml2
        /// hands out names from that dictionary, so a known name is found by comparing pointers.
        var internedNames: [(bytes: UnsafePointer<xmlChar>?, name: XMLCursor.Name)] = []
        /// Values and texts longer than this are counted, not copied.
        let maxValueBytes: Int
        let diagnostics: LibXMLDiagnostics
        /// The parser, once created.
        var context: xmlParserCtxtPtr?
    }

    let record: UnsafeMutablePointer<Record>

    init(diagnostics: LibXMLDiagnostics, maxValueBytes: Int) {
        record = .allocate(capacity: 1)
        record.initialize(to: Record(maxValueBytes: maxValueBytes, diagnostics: diagnostics))
    }

    deinit {
        if let context = record.pointee.context { xmlFreeParserCtxt(context) }
        record.pointee.bytes.deallocate()
        record.deinitialize(count: 1)
        record.deallocate()
    }

    /// The parser, once ``start(with:file:)`` created it.
    var context: xmlParserCtxtPtr? { record.pointee.context }

    /// Creates the parser on the document's first bytes (up to four, for the encoding). Returns
    /// `false` when libxml2 could not.
    func start(with first: UnsafeRawBufferPointer, file: String) -> Bool {
        var handler = xmlSAXHandler()
        handler.initialized = XML_SAX2_MAGIC
        handler.startElementNs = { record, name, prefix, _, namespaceCount, namespaces, count, _, attributes in
            record?.assumingMemoryBound(to: Record.self).pointee.startElement(
                name: name, prefix: prefix, namespaceCount: Int(namespaceCount), namespaces: namespaces,
                attributeCount: Int(count), attributes: attributes)
        }
        handler.endElementNs = { record, name, prefix, _ in
            record?.assumingMemoryBound(to: Record.self).pointee.endElement(name: name, prefix: prefix)
        }
        let text: charactersSAXFunc = { record, bytes, count in
            guard let bytes, count > 0 else { return }
            record?.assumingMemoryBound(to: Record.self).pointee.text(bytes, count: Int(count))
        }
        handler.characters = text
        handler.ignorableWhitespace = text
        handler.cdataBlock = text
        handler.reference = { record, name in
            record?.assumingMemoryBound(to: Record.self).pointee.append(.entity, name: name)
        }
        handler.internalSubset = { record, name, _, _ in
            record?.assumingMemoryBound(to: Record.self).pointee.append(.documentType, name: name)
        }
        handler.serror = { record, error in
            guard let error else { return }
            record?.assumingMemoryBound(to: Record.self).pointee.diagnostics.record(error.pointee)
        }
        let count = Int32(min(first.count, 4))
        let context = file.withCString { name in
            xmlCreatePushParserCtxt(
                &handler, UnsafeMutableRawPointer(record), first.baseAddress?.assumingMemoryBound(to: CChar.self),
                count, name)
        }
        guard let context else { return false }
        record.pointee.context = context
        record.pointee.internedNames = XMLCursor.Name.allCases.map { name in
            (xmlDictLookup(context.pointee.dict, name.rawValue, -1), name)
        }
        xmlCtxtUseOptions(context, LibXML2.parserOptions)
        if first.count > 4, let base = first.baseAddress {
            push(UnsafeRawBufferPointer(start: base + 4, count: first.count - 4), isLast: false)
        }
        return true
    }

    /// Drops the events read so far; their ranges are then invalid.
    func removeEvents() {
        record.pointee.events.removeAll(keepingCapacity: true)
        record.pointee.attributes.removeAll(keepingCapacity: true)
        record.pointee.bytes.removeAll()
    }

    /// Parses `chunk`, recording its events; `isLast` ends the document.
    func push(_ chunk: UnsafeRawBufferPointer, isLast: Bool) {
        guard let context else { return }
        _ = xmlParseChunk(
            context, chunk.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(chunk.count), isLast ? 1 : 0)
    }

    /// The line the parser has reached.
    var line: Int { record.pointee.line }
}

// MARK: - Callbacks

extension PushParser.Record {
    typealias Event = PushParser.Event

    /// The line the parser has reached.
    var line: Int {
        guard let context else { return 0 }
        return Int(xmlSAX2GetLineNumber(context))
    }

    /// `name` among the known names, unless it has a prefix (`ext:game` is not `game`).
    private func known(_ name: UnsafePointer<xmlChar>?, prefix: UnsafePointer<xmlChar>?) -> XMLCursor.Name? {
        guard prefix == nil, let name else { return nil }
        for entry in internedNames where entry.bytes == name {
            return entry.name
        }
        return nil
    }

    mutating func startElement(
        name: UnsafePointer<xmlChar>?, prefix: UnsafePointer<xmlChar>?, namespaceCount: Int,
        namespaces: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, attributeCount: Int,
        attributes values: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        let first = attributes.count
        if let namespaces {
            for index in 0..<namespaceCount {
                // (prefix, URI) pairs: the declaration's value is the URI.
                let uri = namespaces[2 * index + 1]
                let count = uri.map { strlen(UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) } ?? 0
                let value = value(uri, count: count)
                attributes.append(
                    PushParser.Attribute(
                        name: namespaces[2 * index], prefix: nil, known: nil, isNamespace: true, count: count,
                        value: value))
            }
        }
        if let values {
            for index in 0..<attributeCount {
                // (localname, prefix, URI, value, end) for each attribute.
                let base = 5 * index
                let start = values[base + 3]
                let count = start.flatMap { start in values[base + 4].map { start.distance(to: $0) } } ?? 0
                let value = value(start, count: count)
                let name = values[base]
                let prefix = values[base + 1]
                attributes.append(
                    PushParser.Attribute(
                        name: name, prefix: prefix, known: known(name, prefix: prefix), isNamespace: false,
                        count: count, value: value))
            }
        }
        // As libxml2's reader tells `<x/>`: the parser stands on its `/>`.
        var isEmpty = false
        if let input = context?.pointee.input?.pointee, let cursor = input.cur, let end = input.end,
            cursor.distance(to: end) >= 2
        {
            isEmpty = cursor[0] == UInt8(ascii: "/") && cursor[1] == UInt8(ascii: ">")
        }
        let known = known(name, prefix: prefix)
        events.append(
            Event(
                kind: .element, name: name, prefix: prefix, known: known, depth: depth, line: line,
                isEmpty: isEmpty, range: first..<attributes.count))
        openElementsAreKnown.append(known != nil)
        depth += 1
        textRun = 0
    }

    /// Copies an attribute value within the limit. Without entity substitution (deliberately off)
    /// libxml2 leaves each `&` of a value, `&amp;` or `&#38;` as written, as `&#38;` for a tree
    /// builder to decode: every `&#38;` here is one `&`.
    private mutating func value(_ start: UnsafePointer<xmlChar>?, count: Int) -> Range<Int> {
        guard let start, count <= maxValueBytes else { return 0..<0 }
        let raw = UnsafeRawBufferPointer(start: start, count: count)
        guard memchr(start, Int32(UInt8(ascii: "&")), count) != nil else { return bytes.append(raw) }
        let escape = Array("&#38;".utf8)
        var decoded: [UInt8] = []
        decoded.reserveCapacity(count)
        var index = 0
        while index < count {
            if raw[index] == UInt8(ascii: "&"), index + escape.count <= count,
                raw[index..<index + escape.count].elementsEqual(escape)
            {
                decoded.append(UInt8(ascii: "&"))
                index += escape.count
            } else {
                decoded.append(raw[index])
                index += 1
            }
        }
        return decoded.withUnsafeBytes { bytes.append($0) }
    }

    mutating func endElement(name: UnsafePointer<xmlChar>?, prefix: UnsafePointer<xmlChar>?) {
        depth -= 1
        textRun = 0
        _ = openElementsAreKnown.popLast()
        // An empty element is one event, as with the reader.
        if let last = events.last, last.kind == .element, last.isEmpty, last.depth == depth { return }
        events.append(
            Event(
                kind: .endElement, name: name, prefix: prefix, known: known(name, prefix: prefix), depth: depth,
                line: line, isEmpty: false, range: 0..<0)
        )
    }

    mutating func text(_ start: UnsafePointer<xmlChar>, count: Int) {
        // Text past the limit is counted, not kept: the cursor refuses it by its length. Text outside
        // the known elements is never read, so it is only counted.
        textRun += count
        let isRead = textRun <= maxValueBytes && openElementsAreKnown.last == true
        // libxml2 hands text over in pieces of 300-odd bytes: a piece that continues the last
        // event's text extends it (its bytes follow in the arena) rather than adding an event.
        if let last = events.last, last.kind == .text,
            isRead ? last.range.upperBound == bytes.count && !last.range.isEmpty : last.range.isEmpty
        {
            let range = isRead ? bytes.append(UnsafeRawBufferPointer(start: start, count: count)) : 0..<0
            events[events.count - 1].range = isRead ? last.range.lowerBound..<range.upperBound : 0..<0
            events[events.count - 1].length += count
            return
        }
        let range = isRead ? bytes.append(UnsafeRawBufferPointer(start: start, count: count)) : 0..<0
        events.append(
            Event(
                kind: .text, name: nil, prefix: nil, known: nil, depth: depth, line: line, isEmpty: false, range: range,
                length: count))
    }

    /// An entity reference or a document type, with (up to 200 bytes of) its name.
    mutating func append(_ kind: PushParser.Kind, name: UnsafePointer<xmlChar>?) {
        if kind == .documentType, documentTypeLine == nil { documentTypeLine = line }
        let count = name.map { min(strlen(UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)), 200) } ?? 0
        let range = name.map { bytes.append(UnsafeRawBufferPointer(start: $0, count: count)) } ?? 0..<0
        events.append(
            Event(
                kind: kind, name: nil, prefix: nil, known: nil, depth: depth, line: line, isEmpty: false, range: range))
    }
}
