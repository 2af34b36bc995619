/// Any JSON value, kept as the provider sent it so the simulator serves recorded quirks verbatim.
public enum JSONValue: Codable, Sendable, Hashable {
    case null
    case bool(Bool)
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
        case .number(let value):
            if value == value.rounded(), abs(value) < 1e15 { try container.encode(Int64(value)) } else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The member `key` of an object.
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

    /// The value as text: strings as they are, numbers in decimal.
    public var text: String? {
        switch self {
        case .string(let value): value
        case .number(let value): value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        default: nil
        }
    }

    /// The value as an integer, when it is a whole number.
    public var int: Int? {
        if case .number(let value) = self, value == value.rounded() { return Int(value) }
        return nil
    }
}
