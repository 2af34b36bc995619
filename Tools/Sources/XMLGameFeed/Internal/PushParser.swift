import CLibXML2
import Foundation

/// libxml2's push parser with SAX2 callbacks that record what ``XMLCursor`` walks: element
/// starts and ends, text, entity references and a document type, in document order.
///
/// Not `xmlTextReader`: the reader builds a node for every element, attribute and text and frees it
/// again, which cost more than the parsing itself; here nothing is built but the events of the
/// chunk being read, and they are dropped when the next chunk is pushed.
///
/// A reference type because libxml2 holds it as the callbacks' opaque context; it lives on one
/// thread for one read (not `Sendable`).
final class PushParser {
    /// What a recorded event is.
    enum Kind {
        case element, endElement, text, documentType, entity
    }

    /// One event. Names are libxml2's interned pointers, valid for the parser's life; text and
    /// attribute values are ranges of ``bytes``, valid until the next chunk is pushed.
    struct Event {
        var kind: Kind
        var name: UnsafePointer<xmlChar>?
        var prefix: UnsafePointer<xmlChar>?
        /// The element's depth, the root being 0 (elements and end tags).
        var depth: Int
        /// The line where the start tag, end tag or text ends.
        var line: Int
        /// Whether the element is written `<x/>`; no end event follows it.
        var isEmpty: Bool
        /// The element's attributes in ``attributes``, or the text (or entity name) in ``bytes``.
        var range: Range<Int>
        /// The text's length in bytes; past the limit its bytes are not kept (`range` is empty).
        var length = 0
    }

    /// An attribute or namespace declaration of an element event.
    struct Attribute {
        var name: UnsafePointer<xmlChar>?
        var prefix: UnsafePointer<xmlChar>?
        /// `xmlns` or `xmlns:prefix` (``name`` is then the declared prefix, if any).
        var isNamespace: Bool
        /// The value's length in bytes; only values within the limit are copied.
        var count: Int
        /// The value in ``bytes`` (empty when it was over the limit).
        var value: Range<Int>
    }

    /// What the callbacks record. Behind a pointer: it is written for every node, and as stored
    /// properties of a class each write paid a run-time exclusivity check.
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
    }

    let record: UnsafeMutablePointer<Record> = {
        let record = UnsafeMutablePointer<Record>.allocate(capacity: 1)
        record.initialize(to: Record())
        return record
    }()
    private let maxValueBytes: Int
    private let diagnostics: LibXMLDiagnostics
    /// The parser; set once created, freed with `self`.
    private(set) var context: xmlParserCtxtPtr?

    init(diagnostics: LibXMLDiagnostics, maxValueBytes: Int) {
        self.diagnostics = diagnostics
        self.maxValueBytes = maxValueBytes
    }

    deinit {
        if let context { xmlFreeParserCtxt(context) }
        record.pointee.bytes.deallocate()
        record.deinitialize(count: 1)
        record.deallocate()
    }

    /// Creates the parser on the document's first bytes (up to four, for the encoding). Returns
    /// `false` when libxml2 could not.
    func start(with first: UnsafeRawBufferPointer, file: String) -> Bool {
        var handler = xmlSAXHandler()
        handler.initialized = XML_SAX2_MAGIC
        handler.startElementNs = { context, name, prefix, _, namespaceCount, namespaces, count, _, attributes in
            guard let context else { return }
            Unmanaged<PushParser>.fromOpaque(context).takeUnretainedValue().startElement(
                name: name, prefix: prefix, namespaceCount: Int(namespaceCount), namespaces: namespaces,
                attributeCount: Int(count), attributes: attributes)
        }
        handler.endElementNs = { context, name, prefix, _ in
            guard let context else { return }
            Unmanaged<PushParser>.fromOpaque(context).takeUnretainedValue().endElement(name: name, prefix: prefix)
        }
        let text: charactersSAXFunc = { context, bytes, count in
            guard let context, let bytes, count > 0 else { return }
            Unmanaged<PushParser>.fromOpaque(context).takeUnretainedValue().text(bytes, count: Int(count))
        }
        handler.characters = text
        handler.ignorableWhitespace = text
        handler.cdataBlock = text
        handler.reference = { context, name in
            guard let context else { return }
            Unmanaged<PushParser>.fromOpaque(context).takeUnretainedValue().record(.entity, name: name)
        }
        handler.internalSubset = { context, name, _, _ in
            guard let context else { return }
            Unmanaged<PushParser>.fromOpaque(context).takeUnretainedValue().record(.documentType, name: name)
        }
        handler.serror = { context, error in
            guard let context, let error else { return }
            Unmanaged<PushParser>.fromOpaque(context).takeUnretainedValue().diagnostics.record(error.pointee)
        }
        let count = Int32(min(first.count, 4))
        context = file.withCString { name in
            xmlCreatePushParserCtxt(
                &handler, Unmanaged.passUnretained(self).toOpaque(),
                first.baseAddress?.assumingMemoryBound(to: CChar.self), count, name)
        }
        guard let context else { return false }
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
    var line: Int {
        guard let context else { return 0 }
        return Int(xmlSAX2GetLineNumber(context))
    }

    // MARK: - Callbacks

    private func startElement(
        name: UnsafePointer<xmlChar>?, prefix: UnsafePointer<xmlChar>?, namespaceCount: Int,
        namespaces: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, attributeCount: Int,
        attributes values: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        let first = record.pointee.attributes.count
        if let namespaces {
            for index in 0..<namespaceCount {
                // (prefix, URI) pairs: the declaration's value is the URI.
                let uri = namespaces[2 * index + 1]
                let count = uri.map { strlen(UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) } ?? 0
                record.pointee.attributes.append(
                    Attribute(
                        name: namespaces[2 * index], prefix: nil, isNamespace: true, count: count,
                        value: value(uri, count: count)))
            }
        }
        if let values {
            for index in 0..<attributeCount {
                // (localname, prefix, URI, value, end) for each attribute.
                let base = 5 * index
                let start = values[base + 3]
                let count = start.flatMap { start in values[base + 4].map { start.distance(to: $0) } } ?? 0
                record.pointee.attributes.append(
                    Attribute(
                        name: values[base], prefix: values[base + 1], isNamespace: false, count: count,
                        value: value(start, count: count)))
            }
        }
        // libxml2's reader tells `<x/>` the same way: the parser stands on its `/>`.
        var isEmpty = false
        if let input = context?.pointee.input?.pointee, let cursor = input.cur, let end = input.end,
            cursor.distance(to: end) >= 2
        {
            isEmpty = cursor[0] == UInt8(ascii: "/") && cursor[1] == UInt8(ascii: ">")
        }
        record.pointee.events.append(
            Event(
                kind: .element, name: name, prefix: prefix, depth: record.pointee.depth, line: line, isEmpty: isEmpty,
                range: first..<record.pointee.attributes.count))
        record.pointee.depth += 1
        record.pointee.textRun = 0
    }

    /// Copies an attribute value within the limit. Without entity substitution (deliberately off)
    /// libxml2 leaves each `&` of a value, `&amp;` or `&#38;` as written, as `&#38;` for a tree
    /// builder to decode: every `&#38;` here is one `&`.
    private func value(_ start: UnsafePointer<xmlChar>?, count: Int) -> Range<Int> {
        guard let start, count <= maxValueBytes else { return 0..<0 }
        let raw = UnsafeRawBufferPointer(start: start, count: count)
        guard memchr(start, Int32(UInt8(ascii: "&")), count) != nil else { return record.pointee.bytes.append(raw) }
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
        return decoded.withUnsafeBytes { record.pointee.bytes.append($0) }
    }

    private func endElement(name: UnsafePointer<xmlChar>?, prefix: UnsafePointer<xmlChar>?) {
        record.pointee.depth -= 1
        record.pointee.textRun = 0
        // An empty element is one event, as with the reader.
        if let last = record.pointee.events.last, last.kind == .element, last.isEmpty,
            last.depth == record.pointee.depth
        {
            return
        }
        record.pointee.events.append(
            Event(
                kind: .endElement, name: name, prefix: prefix, depth: record.pointee.depth, line: line, isEmpty: false,
                range: 0..<0))
    }

    private func text(_ start: UnsafePointer<xmlChar>, count: Int) {
        // Text past the limit is counted, not kept: the cursor refuses it by its length.
        record.pointee.textRun += count
        let range =
            record.pointee.textRun <= maxValueBytes
            ? record.pointee.bytes.append(UnsafeRawBufferPointer(start: start, count: count)) : 0..<0
        record.pointee.events.append(
            Event(
                kind: .text, name: nil, prefix: nil, depth: record.pointee.depth, line: line, isEmpty: false,
                range: range,
                length: count))
    }

    private func record(_ kind: Kind, name: UnsafePointer<xmlChar>?) {
        if kind == .documentType, record.pointee.documentTypeLine == nil { record.pointee.documentTypeLine = line }
        let count = name.map { min(strlen(UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)), 200) } ?? 0
        let range = name.map { record.pointee.bytes.append(UnsafeRawBufferPointer(start: $0, count: count)) } ?? 0..<0
        record.pointee.events.append(
            Event(
                kind: kind, name: nil, prefix: nil, depth: record.pointee.depth, line: line, isEmpty: false,
                range: range))
    }
}

/// Bytes appended back to back in one growing allocation, whose base stays put between appends
/// made while no one reads (a parse of one chunk).
struct ByteArena {
    private(set) var base: UnsafeMutableRawPointer?
    private var capacity = 0
    private var count = 0

    mutating func append(_ source: UnsafeRawBufferPointer) -> Range<Int> {
        let start = count
        if count + source.count > capacity {
            let grown = max(capacity * 2, count + source.count, 4096)
            let new = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 1)
            if let base {
                new.copyMemory(from: base, byteCount: count)
                base.deallocate()
            }
            base = new
            capacity = grown
        }
        if let sourceBase = source.baseAddress, let base {
            (base + count).copyMemory(from: sourceBase, byteCount: source.count)
        }
        count += source.count
        return start..<count
    }

    mutating func removeAll() { count = 0 }

    func deallocate() { base?.deallocate() }

    /// The bytes of `range`.
    func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        guard let base else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(
            start: (base + range.lowerBound).assumingMemoryBound(to: UInt8.self), count: range.count)
    }
}
