/// Any JSON value, for the tools that handle JSON as a tree: the simulator serves the provider's
/// recorded objects verbatim with it, and the contract schema is built and written with it.
///
/// Decoding keeps every number as ``number(_:)``; ``integer(_:)`` holds an exact integer built in
/// code (a schema's bounds). ``serialized()`` writes objects with their keys sorted, so equal values
/// give equal bytes on every platform.
///
/// ```swift
/// let schema: JSONValue = ["type": "integer", "minimum": 0]
/// let page = try JSONDecoder().decode(JSONValue.self, from: data)
/// let items = page["items"]
/// ```
public enum JSONValue: Codable, Sendable, Hashable {
    case null
    case bool(Bool)
    /// An exact integer, as code builds it (never decoded).
    case integer(Int)
    /// A number as decoded: whole ones below 10¹⁵ are encoded back as integers.
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value):
            if let whole = Self.wholeNumber(value) { try container.encode(whole) } else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The member `key` of an object; `nil` for anything else.
    public subscript(key: String) -> JSONValue? {
        get {
            if case .object(let members) = self { return members[key] }
            return nil
        }
        set {
            if case .object(var members) = self {
                members[key] = newValue
                self = .object(members)
            }
        }
    }

    /// The members when this is an object.
    public var members: [String: JSONValue]? {
        guard case .object(let members) = self else { return nil }
        return members
    }

    /// The value as text: strings as they are, numbers in decimal.
    public var text: String? {
        switch self {
        case .string(let value): value
        case .integer(let value): String(value)
        case .number(let value): Self.wholeNumber(value).map { String($0) } ?? String(value)
        default: nil
        }
    }

    /// The value as an integer, when it is a whole number.
    public var int: Int? {
        switch self {
        case .integer(let value): value
        case .number(let value) where value == value.rounded(): Int(exactly: value)
        default: nil
        }
    }

    /// `value` as an integer when it is whole and below 10¹⁵, where a `Double` is exact.
    private static func wholeNumber(_ value: Double) -> Int64? {
        value == value.rounded() && abs(value) < 1e15 ? Int64(value) : nil
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(uniqueKeysWithValues: elements))
    }
}
