import Foundation

/// A JSON value with insertion-ordered objects, written exactly as Python's
/// `json.dumps(value, indent=2, ensure_ascii=False)` writes it, so `CuratedRecording` reproduces
/// the files the Python script wrote byte for byte.
///
/// Foundation's encoders cannot: they order keys their own way, put a space before nothing and
/// after everything differently, and format numbers their own way.
///
/// ```swift
/// let value: PythonJSON = .object([("id", .string("34795")), ("popularity", .double(98.71))])
/// value.dumps()  // "{\n  \"id\": \"34795\",\n  \"popularity\": 98.71\n}"
/// ```
enum PythonJSON: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([PythonJSON])
    /// Keys in insertion order, as a Python `dict` keeps them.
    case object([(String, PythonJSON)])

    /// The value of `key` in an object, like `dict.get(key)`; `nil` for a missing key or a non-object.
    subscript(key: String) -> PythonJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// The keys of an object in order; empty for anything else.
    var keys: [String] {
        guard case .object(let members) = self else { return [] }
        return members.map(\.0)
    }

    /// `json.dumps(self, indent=2, ensure_ascii=False, sort_keys=sortKeys)`.
    func dumps(sortKeys: Bool = false) -> String {
        var output = ""
        write(to: &output, depth: 0, sortKeys: sortKeys)
        return output
    }

    /// The file the script wrote: ``dumps(sortKeys:)`` plus a newline, as UTF-8.
    func fileData(sortKeys: Bool = false) -> Data {
        Data((dumps(sortKeys: sortKeys) + "\n").utf8)
    }

    private func write(to output: inout String, depth: Int, sortKeys: Bool) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .double(let value): output += Self.repr(value)
        case .string(let value): output += Self.quoted(value, asciiOnly: false)
        case .array(let elements):
            guard !elements.isEmpty else {
                output += "[]"
                return
            }
            output += "["
            for (offset, element) in elements.enumerated() {
                output += offset == 0 ? "\n" : ",\n"
                output += String(repeating: "  ", count: depth + 1)
                element.write(to: &output, depth: depth + 1, sortKeys: sortKeys)
            }
            output += "\n" + String(repeating: "  ", count: depth) + "]"
        case .object(let members):
            guard !members.isEmpty else {
                output += "{}"
                return
            }
            // Python sorts str keys by code point, as Swift's String.UnicodeScalarView compares.
            let ordered =
                sortKeys
                ? members.sorted { $0.0.unicodeScalars.lexicographicallyPrecedes($1.0.unicodeScalars) } : members
            output += "{"
            for (offset, (key, value)) in ordered.enumerated() {
                output += offset == 0 ? "\n" : ",\n"
                output += String(repeating: "  ", count: depth + 1)
                output += Self.quoted(key, asciiOnly: false) + ": "
                value.write(to: &output, depth: depth + 1, sortKeys: sortKeys)
            }
            output += "\n" + String(repeating: "  ", count: depth) + "}"
        }
    }

    /// `repr(float)`: the shortest text that reads back as `value`; `Infinity`/`NaN` as `json` writes them.
    ///
    /// Swift's description is the same shortest round-trip digits with the same switch to
    /// exponents (below 1e-4 and from 1e16: `1e-05`, `1e+16`) and the same `.0` on whole numbers.
    static func repr(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return value.description
    }

    /// A JSON string literal as `json.dumps` writes it: `"` and `\` escaped, `\n \r \t \b \f`
    /// by name, other control characters as `\u00XX`; with `asciiOnly` (`ensure_ascii=True`)
    /// everything beyond ASCII as lowercase `\uXXXX`, in UTF-16 surrogate pairs beyond the BMP.
    static func quoted(_ text: String, asciiOnly: Bool) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            default:
                if scalar.value < 0x20 || (asciiOnly && scalar.value > 0x7E) {
                    for unit in String(scalar).utf16 { output += "\\u" + hex4(unit) }
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        return output + "\""
    }

    private static func hex4(_ unit: UInt16) -> String {
        let digits = String(unit, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
