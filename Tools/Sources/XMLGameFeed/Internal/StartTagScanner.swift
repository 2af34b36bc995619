#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Counts the attributes of every start tag in the raw bytes, so a tag with more than
/// ``XMLFeedReader/Limits/maxAttributes`` is refused before libxml2 parses it.
///
/// libxml2 (2.9) appends each attribute by walking the element's attribute list and checks
/// duplicates pairwise, so one start tag with n attributes costs n² steps: 80,000 attributes
/// (600 KB) keep `xmllint` busy for over a minute, and the byte limit allows millions. The parser
/// offers no hook before that work, hence this scan of the input.
///
/// It follows just enough of XML to find start tags: comments, CDATA sections, processing
/// instructions and quoted attribute values are skipped, and an attribute is an `=` inside a
/// start tag. It reads ASCII-compatible encodings exactly; for UTF-16 it is a best effort (the
/// feed format is UTF-8). It also counts lines, for the error.
struct StartTagScanner {
    private enum State {
        case text, open, startTag, doubleQuoted, singleQuoted, endTag, bang, bangDash, comment, commentDash
        case commentDashDash, cdata, cdataBracket, cdataBracketBracket, declaration, instruction
        case instructionQuestion
    }

    let maxAttributes: Int
    private var state = State.text
    private var attributes = 0
    private var line = 1
    /// The line of the first start tag over the limit, once found.
    private(set) var overLimitLine: Int?

    init(maxAttributes: Int) {
        self.maxAttributes = maxAttributes
    }

    /// Scans the next bytes of the document; stops at the first tag over the limit.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) {
        guard overLimitLine == nil, let base = bytes.baseAddress else { return }
        // Lines are counted once per chunk (or up to the tag over the limit), not while scanning.
        if let stop = scanTags(base, count: bytes.count) {
            overLimitLine = line + newlines(in: base, count: stop)
        } else {
            line += newlines(in: base, count: bytes.count)
        }
    }

    /// Runs the state machine over `count` bytes; returns the index just past the `=` of the
    /// attribute over the limit, if there is one.
    ///
    /// Text and quoted values, most of a feed, are skipped with `memchr`; only the bytes of
    /// tags go through the state machine one by one.
    private mutating func scanTags(_ base: UnsafeRawPointer, count: Int) -> Int? {
        var index = 0
        while index < count {
            switch state {
            case .text:
                index = skip(past: UInt8(ascii: "<"), then: .open, from: index, in: base, count: count)
            case .doubleQuoted:
                index = skip(past: UInt8(ascii: "\""), then: .startTag, from: index, in: base, count: count)
            case .singleQuoted:
                index = skip(past: UInt8(ascii: "'"), then: .startTag, from: index, in: base, count: count)
            case .open:
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                index += 1
                switch byte {
                case UInt8(ascii: "/"): state = .endTag
                case UInt8(ascii: "!"): state = .bang
                case UInt8(ascii: "?"): state = .instruction
                default:
                    attributes = 0
                    state = .startTag
                }
            case .endTag:
                index = skip(past: UInt8(ascii: ">"), then: .text, from: index, in: base, count: count)
            case .cdata:
                index = skip(past: UInt8(ascii: "]"), then: .cdataBracket, from: index, in: base, count: count)
            case .startTag:
                // The attribute names and the spaces between them, byte by byte.
                while index < count {
                    let byte = base.load(fromByteOffset: index, as: UInt8.self)
                    index += 1
                    if byte == UInt8(ascii: "=") {
                        attributes += 1
                        if attributes > maxAttributes { return index }
                    } else if byte == UInt8(ascii: "\"") {
                        state = .doubleQuoted
                        break
                    } else if byte == UInt8(ascii: "'") {
                        state = .singleQuoted
                        break
                    } else if byte == UInt8(ascii: ">") {
                        state = .text
                        break
                    }
                }
            default:
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                index += 1
                advance(over: byte)
            }
        }
        return nil
    }

    /// The index of the first `target` at or after `index`, or `count`.
    /// Skips to the next `target`; once past it, the scanner is in `next`. The end of the bytes
    /// when there is none (the state carries over to the next chunk).
    private mutating func skip(
        past target: UInt8, then next: State, from index: Int, in base: UnsafeRawPointer, count: Int
    ) -> Int {
        let found = skip(to: target, from: index, in: base, count: count)
        guard found < count else { return count }
        state = next
        return found + 1
    }

    private func skip(to target: UInt8, from index: Int, in base: UnsafeRawPointer, count: Int) -> Int {
        let start = base + index
        guard let found = memchr(start, Int32(target), count - index) else { return count }
        return index + start.distance(to: UnsafeRawPointer(found))
    }

    /// The newlines in the first `count` bytes at `base`; they are sparse in a feed.
    private func newlines(in base: UnsafeRawPointer, count: Int) -> Int {
        var lines = 0
        var cursor = base
        var remaining = count
        while remaining > 0, let newline = memchr(cursor, Int32(UInt8(ascii: "\n")), remaining) {
            lines += 1
            let next = UnsafeRawPointer(newline) + 1
            remaining -= cursor.distance(to: next)
            cursor = next
        }
        return lines
    }

    private mutating func advance(over byte: UInt8) {
        switch state {
        case .text:
            if byte == UInt8(ascii: "<") { state = .open }
        case .open:
            switch byte {
            case UInt8(ascii: "!"): state = .bang
            case UInt8(ascii: "?"): state = .instruction
            case UInt8(ascii: "/"): state = .endTag
            default:
                attributes = 0
                state = .startTag
            }
        case .startTag:
            switch byte {
            case UInt8(ascii: "="): attributes += 1
            case UInt8(ascii: "\""): state = .doubleQuoted
            case UInt8(ascii: "'"): state = .singleQuoted
            case UInt8(ascii: ">"): state = .text
            default: break
            }
        case .doubleQuoted:
            if byte == UInt8(ascii: "\"") { state = .startTag }
        case .singleQuoted:
            if byte == UInt8(ascii: "'") { state = .startTag }
        case .endTag, .declaration:
            if byte == UInt8(ascii: ">") { state = .text }
        case .bang:
            switch byte {
            case UInt8(ascii: "-"): state = .bangDash
            case UInt8(ascii: "["): state = .cdata  // `<![CDATA[`: its end is `]]>` all the same
            default: state = .declaration
            }
        case .bangDash:
            state = byte == UInt8(ascii: "-") ? .comment : .declaration
        case .comment:
            if byte == UInt8(ascii: "-") { state = .commentDash }
        case .commentDash:
            state = byte == UInt8(ascii: "-") ? .commentDashDash : .comment
        case .commentDashDash:
            switch byte {
            case UInt8(ascii: ">"): state = .text
            case UInt8(ascii: "-"): break
            default: state = .comment
            }
        case .cdata:
            if byte == UInt8(ascii: "]") { state = .cdataBracket }
        case .cdataBracket:
            state = byte == UInt8(ascii: "]") ? .cdataBracketBracket : .cdata
        case .cdataBracketBracket:
            switch byte {
            case UInt8(ascii: ">"): state = .text
            case UInt8(ascii: "]"): break
            default: state = .cdata
            }
        case .instruction:
            if byte == UInt8(ascii: "?") { state = .instructionQuestion }
        case .instructionQuestion:
            switch byte {
            case UInt8(ascii: ">"): state = .text
            case UInt8(ascii: "?"): break
            default: state = .instruction
            }
        }
    }
}
