@_spi(CatalogTools) import CasinoCatalog

/// A type whose wire form its decoding does not show, and which therefore gives its own JSON Schema.
///
/// The contract schema is recorded from each type's `init(from:)` (``SnapshotContractSchema``). That
/// shows objects, keys, arrays and primitives, but not what a single-value type makes of its string:
/// `Edition` decodes a `String` and then parses it. Such a type describes itself instead, with
/// constraints built from the same constants its parsing uses, and an example the recorder decodes
/// (with ``CatalogCoding``) to stand in for a value while it walks the types that contain it.
protocol JSONSchemaDescribable: Decodable {
    /// The type's schema fragment (`{"type": "string", "pattern": …}`), without `examples`.
    static var jsonSchema: JSONValue { get }
    /// One valid value in its JSON form; the recorder checks that ``CatalogCoding`` decodes it.
    static var jsonSchemaExample: JSONValue { get }
}

extension JSONSchemaDescribable where Self: CaseIterable & RawRepresentable, RawValue == String {
    /// A string enumeration of the raw values of every case.
    static var jsonSchema: JSONValue {
        ["type": "string", "enum": .array(allCases.map { .string($0.rawValue) })]
    }

    static var jsonSchemaExample: JSONValue {
        allCases.first.map { .string($0.rawValue) } ?? .null
    }
}

extension Platform: JSONSchemaDescribable {}

extension SnapshotKind: JSONSchemaDescribable {}
extension ImageMediaType: JSONSchemaDescribable {}
