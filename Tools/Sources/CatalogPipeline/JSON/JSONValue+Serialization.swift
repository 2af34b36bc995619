extension JSONValue {
    /// Pretty-printed UTF-8 JSON: two-space indentation, keys sorted by their UTF-8 bytes, a final
    /// newline. The same value gives the same bytes on every platform (the contract schema's file).
    func serialized() -> [UInt8] {
        var output: [UInt8] = []
        write(to: &output, indent: 0)
        output.append(UInt8(ascii: "\n"))
        return output
    }

    private func write(to output: inout [UInt8], indent: Int) {
        switch self {
        case .null:
            output += "null".utf8
        case .bool(let value):
            output += (value ? "true" : "false").utf8
        case .integer(let value):
            output += String(value).utf8
        case .number(let value):
            // JSON has no NaN or infinity.
            output += (value.isFinite ? text ?? "null" : "null").utf8
        case .string(let value):
            Self.writeString(value, to: &output)
        case .array(let elements):
            guard !elements.isEmpty else {
                output += "[]".utf8
                return
            }
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                output += (index == 0 ? "\n" : ",\n").utf8
                output += repeatElement(UInt8(ascii: " "), count: indent + 2)
                element.write(to: &output, indent: indent + 2)
            }
            output.append(UInt8(ascii: "\n"))
            output += repeatElement(UInt8(ascii: " "), count: indent)
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else {
                output += "{}".utf8
                return
            }
            output.append(UInt8(ascii: "{"))
            // Sorted by bytes, not by `String.<`, so the order cannot depend on Unicode tables.
            let keys = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (index, key) in keys.enumerated() {
                output += (index == 0 ? "\n" : ",\n").utf8
                output += repeatElement(UInt8(ascii: " "), count: indent + 2)
                Self.writeString(key, to: &output)
                output += ": ".utf8
                members[key]?.write(to: &output, indent: indent + 2)
            }
            output.append(UInt8(ascii: "\n"))
            output += repeatElement(UInt8(ascii: " "), count: indent)
            output.append(UInt8(ascii: "}"))
        }
    }

    /// A JSON string literal: `"` and `\` escaped, control characters as `\uXXXX`, the rest verbatim.
    private static func writeString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                output += [UInt8(ascii: "\\"), byte]
            case 0x0A:
                output += "\\n".utf8
            case ..<0x20:
                let hex = String(byte, radix: 16, uppercase: false)
                output += ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8
            default:
                output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
