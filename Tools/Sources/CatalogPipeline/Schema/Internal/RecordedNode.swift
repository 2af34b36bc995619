/// What one position of a type's decoding turned out to hold, as a ``SchemaRecorder`` saw it.
///
/// A node starts unknown and takes a shape from the first container its decoder hands out (an
/// object, an array) or the first value decoded into it (a primitive, a described type, a reference).
final class RecordedNode {
    enum Shape {
        /// Nothing was decoded: any JSON value.
        case unknown
        /// A finished schema: a primitive's type, a described type's fragment, or a `$ref`.
        case fragment(JSONValue)
        /// A keyed container.
        case object(RecordedObject)
        /// An unkeyed container and its element.
        case array(RecordedNode)
    }

    private(set) var shape: Shape = .unknown
    /// Whether `null` is accepted here (`decodeNil` was asked, as `decodeIfPresent` and `Optional` do).
    var isNullable = false

    /// The node's object, made one if it is still unknown.
    func object(at codingPath: [any CodingKey]) throws(SchemaRecorder.Failure) -> RecordedObject {
        switch shape {
        case .object(let object): return object
        case .unknown:
            let object = RecordedObject()
            shape = .object(object)
            return object
        default: throw SchemaRecorder.Failure("decoded both as an object and as something else", at: codingPath)
        }
    }

    /// The node's element, made an array if it is still unknown.
    func element(at codingPath: [any CodingKey]) throws(SchemaRecorder.Failure) -> RecordedNode {
        switch shape {
        case .array(let element): return element
        case .unknown:
            let element = RecordedNode()
            shape = .array(element)
            return element
        default: throw SchemaRecorder.Failure("decoded both as an array and as something else", at: codingPath)
        }
    }

    /// Gives the node a finished schema; the same one again is fine, another is a conflict.
    func setFragment(_ fragment: JSONValue, at codingPath: [any CodingKey]) throws(SchemaRecorder.Failure) {
        switch shape {
        case .unknown: shape = .fragment(fragment)
        case .fragment(let existing) where existing == fragment: break
        default: throw SchemaRecorder.Failure("decoded as two different values", at: codingPath)
        }
    }

    /// The node's JSON Schema, `null` included where it is accepted.
    var schema: JSONValue {
        isNullable ? ObjectSchema.nullable(valueSchema) : valueSchema
    }

    /// The node's JSON Schema for a value other than `null`.
    var valueSchema: JSONValue {
        switch shape {
        case .unknown: .object([:])
        case .fragment(let fragment): fragment
        case .object(let object): object.objectSchema.json
        case .array(let element): ["type": "array", "items": element.schema]
        }
    }
}

/// The keys a keyed container was asked for.
final class RecordedObject {
    /// One key: its value's node, and whether its presence was checked first (`contains`, as
    /// `decodeIfPresent` does), which makes it optional.
    struct Property {
        var node = RecordedNode()
        var isPresenceChecked = false
    }

    private(set) var properties: [String: Property] = [:]

    /// The node of `key`, recorded if new; `isPresenceCheck` when it is `contains` asking.
    func node(for key: String, isPresenceCheck: Bool = false) -> RecordedNode {
        var property = properties[key] ?? Property()
        property.isPresenceChecked = property.isPresenceChecked || isPresenceCheck
        properties[key] = property
        return property.node
    }

    /// The object's schema, open to unknown keys: Swift's synthesized decoding ignores them.
    var objectSchema: ObjectSchema {
        ObjectSchema(
            properties: properties.mapValues {
                ObjectSchema.Property(schema: $0.node.valueSchema, isNullable: $0.node.isNullable)
            },
            required: Set(properties.filter { !$0.value.isPresenceChecked }.keys))
    }
}
