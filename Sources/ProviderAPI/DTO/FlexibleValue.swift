@_spi(CatalogTools) import CasinoCatalog
import Foundation

/// A scalar the provider spells in more than one way: `true`, `"1"`, `1`, `"96.21"`, `96.21`.
///
/// Decoding never fails on the representation; the ``bool``, ``double`` and ``text``
/// accessors interpret it, and encoding writes the representation back as it came.
@_spi(CatalogTools) public enum FlexibleValue: Codable, Sendable, Hashable {
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else {
            throw DecodingError.typeMismatch(
                FlexibleValue.self,
                .init(codingPath: decoder.codingPath, debugDescription: "expected a string, number or boolean"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        }
    }

    /// The value as text: ids given as numbers become their decimal spelling.
    public var text: String {
        switch self {
        case .bool(let value): String(value)
        case .int(let value): String(value)
        case .double(let value): value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
        case .string(let value): value
        }
    }

    /// The value as a boolean: `true`/`false`, `1`/`0`, `"1"`/`"0"`, `"true"`/`"false"`,
    /// `"yes"`/`"no"`; `nil` for anything else.
    public var bool: Bool? {
        switch self {
        case .bool(let value): return value
        case .int(let value): return value == 0 ? false : value == 1 ? true : nil
        case .double(let value): return value == 0 ? false : value == 1 ? true : nil
        case .string(let value):
            switch value.trimmingWhitespace().lowercased() {
            case "1", "true", "yes": return true
            case "0", "false", "no": return false
            default: return nil
            }
        }
    }

    /// The value as a number: numbers as they are, numeric strings parsed (`"96.21"`, `" 0.95 "`,
    /// `"96,21"`); `nil` for anything else.
    public var double: Double? {
        switch self {
        case .bool: return nil
        case .int(let value): return Double(value)
        case .double(let value): return value
        case .string(let value):
            let trimmed = value.trimmingWhitespace().replacingOccurrences(of: ",", with: ".")
            return Double(trimmed.hasSuffix("%") ? String(trimmed.dropLast()) : trimmed)
        }
    }
}
