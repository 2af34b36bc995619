/// Finds a `<!DOCTYPE` in the bytes before the root element, so a DTD is refused before
/// libxml2 parses a single declaration of it.
///
/// Defence in depth: the parser also refuses a document type declaration, which catches encodings
/// this byte scanner cannot see through (UTF-16). It skips comments and processing
/// instructions and stops at the first other `<`, the root element's start.
struct PrologScanner {
    private enum State {
        case text, open, bang, bangDash, comment, commentDash, commentDashDash, instruction, instructionQuestion
        case finished
    }

    private var state = State.text
    private var line = 1
    /// The line of the `<!DOCTYPE`, once found.
    private(set) var doctypeLine: Int?

    /// Whether the prolog is over (root element or `<!DOCTYPE` seen).
    var isFinished: Bool { state == .finished }

    mutating func scan(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes {
            if byte == UInt8(ascii: "\n") { line += 1 }
            state = next(after: byte)
            if state == .finished { return }
        }
    }

    private mutating func next(after byte: UInt8) -> State {
        switch state {
        case .text:
            return byte == UInt8(ascii: "<") ? .open : .text
        case .open:
            switch byte {
            case UInt8(ascii: "!"): return .bang
            case UInt8(ascii: "?"): return .instruction
            default: return .finished
            }
        case .bang:
            switch byte {
            case UInt8(ascii: "-"): return .bangDash
            case UInt8(ascii: "D"), UInt8(ascii: "d"):
                doctypeLine = line
                return .finished
            default: return .finished
            }
        case .bangDash:
            return byte == UInt8(ascii: "-") ? .comment : .finished
        case .comment:
            return byte == UInt8(ascii: "-") ? .commentDash : .comment
        case .commentDash:
            return byte == UInt8(ascii: "-") ? .commentDashDash : .comment
        case .commentDashDash:
            switch byte {
            case UInt8(ascii: ">"): return .text
            case UInt8(ascii: "-"): return .commentDashDash
            default: return .comment
            }
        case .instruction:
            return byte == UInt8(ascii: "?") ? .instructionQuestion : .instruction
        case .instructionQuestion:
            switch byte {
            case UInt8(ascii: ">"): return .text
            case UInt8(ascii: "?"): return .instructionQuestion
            default: return .instruction
            }
        case .finished:
            return .finished
        }
    }
}
