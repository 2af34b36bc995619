@_spi(CatalogTools) import CasinoCatalog

/// An object's schema between recording and writing: its properties as a type's decoding asked for
/// them, and the place where the contract's rules are added to them.
struct ObjectSchema {
    /// One property: its schema for a value other than `null`, and whether `null` is accepted.
    struct Property {
        var schema: JSONValue
        var isNullable: Bool
    }

    /// Every key the decoding asked for.
    var properties: [String: Property]
    /// The keys decoded without a presence check (`decode`, not `decodeIfPresent`).
    var required: Set<String>
    /// Keywords on the object as a whole (`if`/`then` across properties, `description`).
    var keywords: [String: JSONValue] = [:]

    /// The schema. Unknown keys stay allowed: Swift's synthesized decoding ignores them.
    var json: JSONValue {
        var members = keywords
        members["type"] = "object"
        members["properties"] = .object(properties.mapValues { $0.isNullable ? Self.nullable($0.schema) : $0.schema })
        if !required.isEmpty {
            members["required"] = .array(required.sorted().map { .string($0) })
        }
        return .object(members)
    }

    /// Applies `refinement` to the property `name`, which the decoding must have asked for.
    ///
    /// - Throws: ``SchemaRecorder/Failure`` naming the property when it was not recorded, or when the
    ///   refinement disagrees with what was recorded: a rule written for a renamed or retyped field.
    mutating func refine(
        _ name: String, _ refinement: Refinement, definitions: [String: JSONValue]
    ) throws(SchemaRecorder.Failure) {
        guard var property = properties[name] else {
            throw SchemaRecorder.Failure("a rule names '\(name)', which the type does not decode", at: [])
        }
        do {
            property.schema = try refinement.applied(to: property.schema, definitions: definitions)
        } catch {
            throw SchemaRecorder.Failure("'\(name)': \(error.message)", at: [])
        }
        properties[name] = property
    }

    /// `schema` or `null`: `"type": [t, "null"]` where every keyword ignores `null`, else `anyOf`.
    static func nullable(_ schema: JSONValue) -> JSONValue {
        guard var members = schema.members, case .string(let type)? = members["type"],
            members.keys.allSatisfy(nullIgnoringKeywords.contains)
        else { return ["anyOf": [schema, ["type": "null"]]] }
        members["type"] = [.string(type), "null"]
        return .object(members)
    }

    /// Keywords that constrain only values of their type, so `null` passes them.
    private static let nullIgnoringKeywords: Set<String> = [
        "type", "format", "description", "examples", "pattern", "minLength", "maxLength", "minimum", "maximum",
        "exclusiveMinimum", "exclusiveMaximum", "items", "minItems", "maxItems", "uniqueItems", "properties",
        "required",
    ]

    /// A rule of the contract, added to a property's recorded schema.
    indirect enum Refinement {
        /// Keywords added to the schema; one already there must have the same value.
        case keywords([String: JSONValue])
        /// The schema replaced by a reference to a shared definition of the same JSON type.
        case definition(String)
        /// A refinement of an array's elements.
        case items(Refinement)

        func applied(to schema: JSONValue, definitions: [String: JSONValue]) throws(SchemaRecorder.Failure) -> JSONValue
        {
            guard var members = schema.members else {
                throw SchemaRecorder.Failure("recorded as \(schema), not a schema object", at: [])
            }
            switch self {
            case .keywords(let keywords):
                for (keyword, value) in keywords {
                    if let existing = members[keyword], existing != value {
                        throw SchemaRecorder.Failure(
                            "recorded with \(keyword) \(existing), the rule says \(value)", at: [])
                    }
                    members[keyword] = value
                }
                return .object(members)
            case .definition(let name):
                guard let definition = definitions[name] else {
                    throw SchemaRecorder.Failure("no definition '\(name)'", at: [])
                }
                guard definition["type"] == members["type"] else {
                    throw SchemaRecorder.Failure(
                        "recorded as type \(members["type"] ?? .null), definition '\(name)' is \(definition["type"] ?? .null)",
                        at: [])
                }
                return ["$ref": .string(SnapshotContractSchema.reference(to: name))]
            case .items(let refinement):
                guard members["type"] == "array", let items = members["items"] else {
                    throw SchemaRecorder.Failure("a rule for elements, but it is not an array", at: [])
                }
                members["items"] = try refinement.applied(to: items, definitions: definitions)
                return .object(members)
            }
        }
    }
}
