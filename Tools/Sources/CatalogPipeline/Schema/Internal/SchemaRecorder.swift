@_spi(CatalogTools) import CasinoCatalog
import Foundation

/// Records the JSON Schema of a `Decodable` type by running its own `init(from:)` against a decoder
/// that answers every request with a stand-in value and writes down what was asked: which keys, with
/// `decode` (required) or `decodeIfPresent` (optional, `null` accepted), of which types, in which
/// nested objects and arrays.
///
/// The schema is the type's wire form as ``CatalogCoding`` reads it: a `Date` is the encoder's
/// ISO 8601 string, and a type whose decoding parses a string (``Edition``) describes itself through
/// ``JSONSchemaDescribable``. A type with a definition of its own in the document becomes a `$ref`
/// wherever another type contains it.
///
/// ```swift
/// let recorder = SchemaRecorder(definitions: [ObjectIdentifier(Vendor.self): "Vendor"])
/// let game = try recorder.objectSchema(of: Game.self)   // vendor: {"$ref": "#/$defs/Vendor"}
/// ```
final class SchemaRecorder {
    /// Why a type's schema cannot be recorded: a programming error in the type or in a rule.
    struct Failure: Error, CustomStringConvertible {
        var message: String
        var codingPath: String

        init(_ message: String, at codingPath: [any CodingKey]) {
            self.message = message
            self.codingPath = codingPath.isEmpty ? "" : DecodingFailure.path(codingPath)
        }

        var description: String { codingPath.isEmpty ? message : "\(codingPath): \(message)" }
    }

    /// The types with a definition of their own, by the definition's name.
    let definitions: [ObjectIdentifier: String]
    /// Nesting of types being walked, to refuse a recursive type instead of recursing forever.
    private var depth = 0
    private static let maxDepth = 32

    init(definitions: [ObjectIdentifier: String] = [:]) {
        self.definitions = definitions
    }

    /// The schema of `type` itself (never a `$ref` to its own definition).
    func schema<T: Decodable>(of type: T.Type) throws(Failure) -> JSONValue {
        let node = RecordedNode()
        _ = try value(of: type, into: node, codingPath: [], isReferable: false)
        return node.schema
    }

    /// The schema of `type`, which must decode a keyed container, for the rules to refine.
    func objectSchema<T: Decodable>(of type: T.Type) throws(Failure) -> ObjectSchema {
        let node = RecordedNode()
        _ = try value(of: type, into: node, codingPath: [], isReferable: false)
        guard case .object(let object) = node.shape else {
            throw Failure("\(T.self) is not decoded as an object", at: [])
        }
        return object.objectSchema
    }

    /// Records `type` into `node` and returns a stand-in value of it, for the decoder that asked.
    func value<T: Decodable>(
        of type: T.Type, into node: RecordedNode, codingPath: [any CodingKey], isReferable: Bool = true
    ) throws(Failure) -> T {
        if let (schema, placeholder) = Self.primitives[ObjectIdentifier(type)], let value = placeholder as? T {
            try node.setFragment(schema, at: codingPath)
            return value
        }
        if Self.unsupported.contains(ObjectIdentifier(type)) {
            throw Failure(
                "\(T.self) has a wire form of JSONDecoder's own, which the recorder does not model", at: codingPath)
        }
        let leaf = Self.leaf(of: type)
        if isReferable, let name = definitions[ObjectIdentifier(type)] {
            try node.setFragment(["$ref": .string(SnapshotContractSchema.reference(to: name))], at: codingPath)
            if let leaf { return try Self.decode(leaf.example, as: type, at: codingPath) }
            // Walked for a stand-in value only: its schema is the definition's.
            return try walk(type, into: RecordedNode(), codingPath: codingPath)
        }
        if let leaf {
            var fragment = leaf.schema.members ?? [:]
            fragment["examples"] = [leaf.example]
            try node.setFragment(.object(fragment), at: codingPath)
            return try Self.decode(leaf.example, as: type, at: codingPath)
        }
        return try walk(type, into: node, codingPath: codingPath)
    }

    /// Runs `type`'s `init(from:)` against a recording decoder on `node`.
    private func walk<T: Decodable>(
        _ type: T.Type, into node: RecordedNode, codingPath: [any CodingKey]
    ) throws(Failure) -> T {
        guard depth < Self.maxDepth else {
            throw Failure("\(T.self) nests too deep: a recursive type?", at: codingPath)
        }
        depth += 1
        defer { depth -= 1 }
        do {
            return try T(from: SchemaRecordingDecoder(recorder: self, node: node, codingPath: codingPath))
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(
                "\(T.self).init(from:) refused a stand-in value (\(DecodingFailure.describe(error))); "
                    + "a type that parses its value should conform to JSONSchemaDescribable",
                at: codingPath)
        }
    }

    /// The schema and example of a type that gives its own: a ``JSONSchemaDescribable`` or a `Date`.
    private static func leaf<T>(of type: T.Type) -> (schema: JSONValue, example: JSONValue)? {
        if let described = type as? any JSONSchemaDescribable.Type {
            return (described.jsonSchema, described.jsonSchemaExample)
        }
        if type == Date.self {
            return (CatalogCoding.dateSchema, CatalogCoding.dateExample)
        }
        return nil
    }

    /// `example` decoded by ``CatalogCoding``, which also proves that the example is valid.
    private static func decode<T: Decodable>(
        _ example: JSONValue, as type: T.Type, at codingPath: [any CodingKey]
    )
        throws(Failure) -> T
    {
        do {
            return try CatalogCoding.decoder().decode([T].self, from: Data(JSONValue.array([example]).serialized()))[0]
        } catch {
            throw Failure(
                "the example of \(T.self) does not decode: \(DecodingFailure.describe(error))", at: codingPath)
        }
    }

    /// The JSON types of Swift's primitives, each with a stand-in value of exactly that type.
    private static let primitives: [ObjectIdentifier: (JSONValue, any Sendable)] = {
        let integer: JSONValue = ["type": "integer"]
        let natural: JSONValue = ["type": "integer", "minimum": 0]
        let number: JSONValue = ["type": "number"]
        return [
            ObjectIdentifier(String.self): (["type": "string"], ""),
            ObjectIdentifier(Bool.self): (["type": "boolean"], false),
            ObjectIdentifier(Double.self): (number, Double(0)),
            ObjectIdentifier(Float.self): (number, Float(0)),
            ObjectIdentifier(Int.self): (integer, Int(0)),
            ObjectIdentifier(Int8.self): (integer, Int8(0)),
            ObjectIdentifier(Int16.self): (integer, Int16(0)),
            ObjectIdentifier(Int32.self): (integer, Int32(0)),
            ObjectIdentifier(Int64.self): (integer, Int64(0)),
            ObjectIdentifier(UInt.self): (natural, UInt(0)),
            ObjectIdentifier(UInt8.self): (natural, UInt8(0)),
            ObjectIdentifier(UInt16.self): (natural, UInt16(0)),
            ObjectIdentifier(UInt32.self): (natural, UInt32(0)),
            ObjectIdentifier(UInt64.self): (natural, UInt64(0)),
        ]
    }()

    /// Types `JSONDecoder` decodes its own way, unlike their `init(from:)`.
    private static let unsupported: Set<ObjectIdentifier> = [
        ObjectIdentifier(URL.self), ObjectIdentifier(Data.self), ObjectIdentifier(Decimal.self),
    ]
}
