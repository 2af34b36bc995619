import Foundation

/// One pass over JSON text that writes its canonical form (`CanonicalJSON`).
///
/// Values are written to `output` as they are read; an object's members are reordered in place
/// only when they were not already in order, so sorted input (the usual case) is copied once.
struct CanonicalJSONTranscoder {
    let requiresNFC: Bool
    private(set) var output: [UInt8] = []
    private var input = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    private var position = 0

    init(requiresNFC: Bool) {
        self.requiresNFC = requiresNFC
    }

    mutating func transcode(_ bytes: UnsafeBufferPointer<UInt8>) throws(CanonicalJSONError) {
        input = bytes
        position = 0
        output = []
        output.reserveCapacity(bytes.count)
        skipWhitespace()
        try value(depth: 0)
        skipWhitespace()
        guard position == input.count else { throw failure(.syntax, "text after the JSON value") }
    }

    // MARK: - Values

    private mutating func value(depth: Int) throws(CanonicalJSONError) {
        guard depth < CanonicalJSON.maxDepth else {
            throw failure(.tooDeep, "nested deeper than \(CanonicalJSON.maxDepth)")
        }
        guard position < input.count else { throw failure(.syntax, "a value was expected, the text ends") }
        switch input[position] {
        case UInt8(ascii: "{"): try object(depth: depth)
        case UInt8(ascii: "["): try array(depth: depth)
        case UInt8(ascii: "\""): _ = try string(decodingKey: false)
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: try number()
        }
    }

    private mutating func object(depth: Int) throws(CanonicalJSONError) {
        position += 1
        output.append(UInt8(ascii: "{"))
        let start = output.count
        var members: [(key: Key, bytes: Range<Int>)] = []
        var isSorted = true
        skipWhitespace()
        if consume(UInt8(ascii: "}")) {
            output.append(UInt8(ascii: "}"))
            return
        }
        repeat {
            if !members.isEmpty { output.append(UInt8(ascii: ",")) }
            skipWhitespace()
            let memberStart = output.count
            let keyOffset = position
            guard position < input.count, input[position] == UInt8(ascii: "\"") else {
                throw failure(.syntax, "an object key was expected")
            }
            let key = try key()
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw failure(.syntax, "`:` was expected after a key") }
            output.append(UInt8(ascii: ":"))
            skipWhitespace()
            try value(depth: depth + 1)
            if let previous = members.last?.key, isSorted, !precedes(previous, key) {
                if !precedes(key, previous) { throw duplicate(key, at: keyOffset) }
                isSorted = false
            }
            members.append((key, memberStart..<output.count))
            skipWhitespace()
        } while consume(UInt8(ascii: ","))
        guard consume(UInt8(ascii: "}")) else { throw failure(.syntax, "`,` or `}` was expected in an object") }
        if !isSorted {
            members.sort { precedes($0.key, $1.key) }
            var sorted: [UInt8] = []
            sorted.reserveCapacity(output.count - start)
            for (index, member) in members.enumerated() {
                if index > 0 {
                    if !precedes(members[index - 1].key, member.key) { throw duplicate(member.key, at: position) }
                    sorted.append(UInt8(ascii: ","))
                }
                sorted.append(contentsOf: output[member.bytes])
            }
            output.replaceSubrange(start..., with: sorted)
        }
        output.append(UInt8(ascii: "}"))
    }

    private mutating func array(depth: Int) throws(CanonicalJSONError) {
        position += 1
        output.append(UInt8(ascii: "["))
        skipWhitespace()
        if consume(UInt8(ascii: "]")) {
            output.append(UInt8(ascii: "]"))
            return
        }
        var isFirst = true
        repeat {
            if !isFirst { output.append(UInt8(ascii: ",")) }
            isFirst = false
            skipWhitespace()
            try value(depth: depth + 1)
            skipWhitespace()
        } while consume(UInt8(ascii: ","))
        guard consume(UInt8(ascii: "]")) else { throw failure(.syntax, "`,` or `]` was expected in an array") }
        output.append(UInt8(ascii: "]"))
    }

    private mutating func literal(_ word: StaticString) throws(CanonicalJSONError) {
        let bytes = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard input.count - position >= bytes.count, input[position..<position + bytes.count].elementsEqual(bytes)
        else {
            throw failure(.syntax, "a value was expected")
        }
        output.append(contentsOf: bytes)
        position += bytes.count
    }

    // MARK: - Numbers

    private mutating func number() throws(CanonicalJSONError) {
        let start = position
        _ = consume(UInt8(ascii: "-"))
        guard position < input.count, isDigit(input[position]) else { throw failure(.syntax, "a value was expected") }
        if input[position] == UInt8(ascii: "0") { position += 1 } else { skipDigits() }
        var isInteger = true
        if consume(UInt8(ascii: ".")) {
            isInteger = false
            guard position < input.count, isDigit(input[position]) else {
                throw failure(.syntax, "a digit was expected after `.`")
            }
            skipDigits()
        }
        if position < input.count, input[position] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            position += 1
            if position < input.count, input[position] == UInt8(ascii: "+") || input[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < input.count, isDigit(input[position]) else {
                throw failure(.syntax, "a digit was expected in an exponent")
            }
            skipDigits()
        }
        let literal = UnsafeBufferPointer(rebasing: input[start..<position])
        // The common case, a small integer, is its own canonical form (but `-0` is `0`).
        if isInteger && literal.count <= 15 {
            if literal.count == 2 && literal[0] == UInt8(ascii: "-") && literal[1] == UInt8(ascii: "0") {
                output.append(UInt8(ascii: "0"))
            } else {
                output.append(contentsOf: literal)
            }
            return
        }
        guard let value = Double(String(decoding: literal, as: UTF8.self)), let text = CanonicalJSON.numberText(value)
        else {
            throw failure(
                .numberOutOfRange, "\(String(decoding: literal.prefix(40), as: UTF8.self)) is beyond a double",
                at: start)
        }
        // An integer whose double is written with other digits would decode as another integer.
        if isInteger && !text.utf8.elementsEqual(literal) {
            throw failure(
                .numberOutOfRange,
                "integer \(String(decoding: literal.prefix(40), as: UTF8.self)) has no exact canonical form (as a double: \(text))",
                at: start)
        }
        output.append(contentsOf: text.utf8)
    }

    // MARK: - Strings

    /// An object key: its bytes in `output` when they are ASCII without escapes (byte
    /// order is then UTF-16 order), else its text.
    private enum Key {
        case plain(Range<Int>)
        case text(String)
    }

    private mutating func key() throws(CanonicalJSONError) -> Key {
        let start = output.count + 1
        let text = try string(decodingKey: true)
        return text.map(Key.text) ?? .plain(start..<output.count - 1)
    }

    /// UTF-16 code unit order (RFC 8785 §3.2.3), which differs from scalar order above U+FFFF.
    private func precedes(_ a: Key, _ b: Key) -> Bool {
        switch (a, b) {
        case (.plain(let a), .plain(let b)): output[a].lexicographicallyPrecedes(output[b])
        default: text(of: a).utf16.lexicographicallyPrecedes(text(of: b).utf16)
        }
    }

    private func text(of key: Key) -> String {
        switch key {
        case .plain(let range): String(decoding: output[range], as: UTF8.self)
        case .text(let text): text
        }
    }

    /// Copies the string at `position` canonically. With `decodingKey`, returns its text unless
    /// it is ASCII without escapes (then its bytes in `output` are its text).
    @discardableResult
    private mutating func string(decodingKey: Bool) throws(CanonicalJSONError) -> String? {
        let start = position
        position += 1
        output.append(UInt8(ascii: "\""))
        let contentStart = output.count
        var key = String.UnicodeScalarView()
        var isPlain = true
        var mayBeDenormalized = false
        while true {
            guard position < input.count else { throw failure(.syntax, "a string is not closed", at: start) }
            let byte = input[position]
            let scalar: Unicode.Scalar
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                if mayBeDenormalized && requiresNFC { try requireNFC(from: contentStart, stringAt: start) }
                output.append(UInt8(ascii: "\""))
                return decodingKey && !isPlain ? String(key) : nil
            case UInt8(ascii: "\\"):
                if isPlain && decodingKey {
                    key = String(decoding: output[contentStart...], as: UTF8.self).unicodeScalars
                }
                isPlain = false
                scalar = try escape()
                append(scalar)
            case 0..<0x20:
                throw failure(.syntax, "a control character must be escaped in a string")
            case 0..<0x80:
                // A run of printable ASCII is copied at once: most of the catalogue's text.
                var end = position + 1
                while end < input.count, (0x20..<0x80).contains(input[end]), input[end] != UInt8(ascii: "\""),
                    input[end] != UInt8(ascii: "\\")
                {
                    end += 1
                }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: input[position..<end]))
                if !isPlain && decodingKey {
                    key.append(
                        contentsOf: String(
                            decoding: UnsafeBufferPointer(rebasing: input[position..<end]), as: UTF8.self
                        ).unicodeScalars)
                }
                position = end
                continue
            default:
                if isPlain && decodingKey {
                    key = String(decoding: output[contentStart...], as: UTF8.self).unicodeScalars
                }
                isPlain = false
                let length: Int
                (scalar, length) = try utf8Scalar()
                output.append(contentsOf: input[position..<position + length])
                position += length
            }
            if scalar.value >= 0x300 { mayBeDenormalized = true }  // everything below is NFC, whatever follows
            if decodingKey { key.append(scalar) }
        }
    }

    /// The scalar of the escape at `position` (a backslash), past it.
    private mutating func escape() throws(CanonicalJSONError) -> Unicode.Scalar {
        let start = position
        guard position + 1 < input.count else { throw failure(.syntax, "a string is not closed") }
        let letter = input[position + 1]
        position += 2
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(letter)
        case UInt8(ascii: "b"): return "\u{8}"
        case UInt8(ascii: "f"): return "\u{C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"): break
        default: throw failure(.syntax, "an unknown escape", at: start)
        }
        let unit = try hex4()
        switch unit {
        case 0xD800..<0xDC00:
            guard input.count - position >= 6, input[position] == UInt8(ascii: "\\"),
                input[position + 1] == UInt8(ascii: "u")
            else { throw failure(.loneSurrogate, "a high surrogate without its low half", at: start) }
            position += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else {
                throw failure(.loneSurrogate, "a high surrogate without its low half", at: start)
            }
            return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
        case 0xDC00..<0xE000:
            throw failure(.loneSurrogate, "a low surrogate without its high half", at: start)
        default:
            return Unicode.Scalar(unit)!
        }
    }

    private mutating func hex4() throws(CanonicalJSONError) -> UInt32 {
        guard input.count - position >= 4 else { throw failure(.syntax, "`\\u` needs 4 hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = input[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure(.syntax, "`\\u` needs 4 hex digits")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// Writes `scalar` as canonical JSON does inside a string.
    private mutating func append(_ scalar: Unicode.Scalar) {
        if scalar.isASCII {
            CanonicalJSON.appendInString(UInt8(scalar.value), to: &output)
        } else {
            output.append(contentsOf: UTF8.encode(scalar)!)
        }
    }

    /// The well-formed UTF-8 scalar at `position` and its length (RFC 3629: no overlong forms, no
    /// surrogates, nothing past U+10FFFF).
    private func utf8Scalar() throws(CanonicalJSONError) -> (Unicode.Scalar, Int) {
        let lead = input[position]
        let length: Int
        var value: UInt32
        var second: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: (length, value) = (2, UInt32(lead & 0x1F))
        case 0xE0...0xEF:
            (length, value) = (3, UInt32(lead & 0x0F))
            if lead == 0xE0 { second = 0xA0...0xBF } else if lead == 0xED { second = 0x80...0x9F }
        case 0xF0...0xF4:
            (length, value) = (4, UInt32(lead & 0x07))
            if lead == 0xF0 { second = 0x90...0xBF } else if lead == 0xF4 { second = 0x80...0x8F }
        default: throw failure(.syntax, "not UTF-8")
        }
        guard input.count - position >= length else { throw failure(.syntax, "not UTF-8 (truncated)") }
        for index in 1..<length {
            let byte = input[position + index]
            guard index == 1 ? second.contains(byte) : (0x80...0xBF).contains(byte) else {
                throw failure(.syntax, "not UTF-8")
            }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        return (Unicode.Scalar(value)!, length)
    }

    /// Refuses the string just copied from `from` when it is not NFC. Escapes stand for quotes,
    /// backslashes and controls, which never combine, so the copy normalizes as the text does.
    private func requireNFC(from start: Int, stringAt offset: Int) throws(CanonicalJSONError) {
        let text = String(decoding: output[start...], as: UTF8.self)
        guard text.unicodeScalars.elementsEqual(text.precomposedStringWithCanonicalMapping.unicodeScalars) else {
            throw failure(.notNFC, "a string is not in Unicode Normalization Form C", at: offset)
        }
    }

    // MARK: - Helpers

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard position < input.count, input[position] == byte else { return false }
        position += 1
        return true
    }

    private mutating func skipWhitespace() {
        while position < input.count {
            switch input[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private mutating func skipDigits() {
        while position < input.count, isDigit(input[position]) { position += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private func duplicate(_ key: Key, at offset: Int) -> CanonicalJSONError {
        CanonicalJSONError(.duplicateKey, at: offset, "key \"\(text(of: key).prefix(64))\" occurs twice in an object")
    }

    private func failure(
        _ code: CanonicalJSONError.Code, _ message: String, at offset: Int? = nil
    ) -> CanonicalJSONError {
        CanonicalJSONError(code, at: offset ?? position, message)
    }
}
