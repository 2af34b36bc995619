@_spi(CatalogTools) public import CasinoCatalog
public import Foundation

/// The snapshot contract as a JSON Schema (draft 2020-12), for readers and writers not written in
/// Swift: the manifest, the two kinds of snapshot envelope, and everything they hold.
///
/// The schema is recorded from the Swift types themselves: each type's `init(from:)` is run against
/// a recording decoder, which gives the keys, their JSON types, which are required (`decode`) and
/// which optional (`decodeIfPresent`, where `null` is accepted too), and the nesting. Onto that go
/// the rules of ``CatalogRules``, ``Validatable`` and ``Manifest/violations(limits:)`` that a schema
/// can state, built from the same constants: id and text rules, https URLs, number ranges, digests,
/// the schema version and the size caps of `limits`. A rule written for a field the decoding does not
/// ask for (renamed, or removed) stops the build of the document, and the tests with it.
///
/// Every file the pipeline writes and ``SnapshotReader`` accepts validates against the document. The
/// reverse does not hold: rules across fields or files (a page's count equals its items, the
/// manifest's editions are sorted, an envelope names its manifest entry) are the Swift reader's.
/// Objects stay open to unknown keys, as Swift's decoding ignores them.
///
/// ```swift
/// let schema = SnapshotContractSchema.document()
/// try schema.write(to: URL(fileURLWithPath: "snapshot-contract.schema.json"))
/// ```
public enum SnapshotContractSchema {
    /// The JSON Schema dialect of the document: draft 2020-12.
    public static let dialect = "https://json-schema.org/draft/2020-12/schema"

    /// The document's `$id`, which names the schema version: `urn:casinocache:snapshot-contract:1`.
    public static var id: String { "urn:casinocache:snapshot-contract:\(CatalogSchema.version)" }

    /// The definitions a document may be: the manifest and the envelope of each kind of snapshot file.
    public static let rootDefinitions = ["Manifest", "CategoriesSnapshot", "GamesPageSnapshot"]

    /// The JSON Schema document of the snapshot contract, for a reader with `limits`.
    ///
    /// Pretty-printed UTF-8 JSON with sorted keys: the same build and limits always give the same
    /// bytes. The top level accepts any of ``rootDefinitions``; each is also under `$defs`, with
    /// `Game`, `Vendor`, `Category`, `CategoryList`, `GamesPage`, `ManifestEntry` and the shared
    /// string forms (`Edition`, `SnapshotKey`, `Timestamp`, `HTTPSURL`, …). The index's JSON files
    /// have definitions of their own, named by path rather than at the top level (an `index.json` is
    /// also a manifest without files): `SnapshotIndex` for `index.json`, `SnapshotImageList` for
    /// `index/images.json`.
    ///
    /// - Parameter limits: The caps the schema states: the manifest's `files` at most
    ///   ``SnapshotLimits/maxFileCount``, an entry's sizes within ``SnapshotLimits/maxFileBytes`` and
    ///   ``SnapshotLimits/maxInflatedBytes``. ``SnapshotLimits/default`` by default; give the limits
    ///   the app's readers use, and usable ones (``SnapshotLimits/problem`` is `nil`).
    /// - Returns: The document.
    public static func document(limits: SnapshotLimits = .default) -> Data {
        do {
            return Data(try documentValue(limits: limits).serialized())
        } catch {
            // Only a change to a type or a rule can cause this, never the limits, and every test run
            // builds the document: fail loudly there rather than publish a schema with a gap.
            preconditionFailure("the snapshot contract schema cannot be recorded: \(error)")
        }
    }

    /// The document as a value.
    static func documentValue(limits: SnapshotLimits) throws(SchemaRecorder.Failure) -> JSONValue {
        let recorder = SchemaRecorder(
            definitions: Dictionary(uniqueKeysWithValues: recordedTypes.map { (ObjectIdentifier($0.type), $0.name) }))
        let allRules = objectRules(limits: limits)
        var definitions = sharedDefinitions
        for (type, name) in recordedTypes where allRules[name] == nil {
            definitions[name] = try recorder.schema(of: type)
        }
        for (name, rules) in allRules {
            guard let type = recordedTypes.first(where: { $0.name == name })?.type else {
                throw SchemaRecorder.Failure("rules for '\(name)', which is not a recorded type", at: [])
            }
            var object = try recorder.objectSchema(of: type)
            for (property, refinement) in rules.properties {
                do {
                    try object.refine(property, refinement, definitions: definitions)
                } catch {
                    throw SchemaRecorder.Failure("\(name): \(error.message)", at: [])
                }
            }
            object.keywords = rules.keywords
            object.keywords["description"] = .string(rules.description)
            definitions[name] = object.json
        }
        for (name, definition) in try indexDefinitions(manifest: definitions["Manifest"], limits: limits) {
            definitions[name] = definition
        }
        return [
            "$schema": .string(dialect),
            "$id": .string(id),
            "title": "CasinoCache snapshot contract",
            "description": .string(
                "Schema version \(CatalogSchema.version). Recorded from the Swift types of CasinoCatalog "
                    + "by SnapshotContractSchema.document(limits:); regenerate it, do not edit it."),
            "oneOf": .array(rootDefinitions.map { ["$ref": .string(reference(to: $0))] }),
            "$defs": .object(definitions),
        ]
    }

    /// The `$ref` of the definition `name`.
    static func reference(to name: String) -> String {
        "#/$defs/\(name)"
    }

    /// The types recorded from their decoding, by definition name; any of them met inside another is a `$ref`.
    static var recordedTypes: [(type: any Decodable.Type, name: String)] {
        [
            (Manifest.self, "Manifest"),
            (Manifest.Entry.self, "ManifestEntry"),
            (Manifest.Image.self, "ManifestImage"),
            (ImageMediaType.self, "ImageMediaType"),
            (Snapshot<CategoryList>.self, "CategoriesSnapshot"),
            (Snapshot<GamesPage>.self, "GamesPageSnapshot"),
            (CategoryList.self, "CategoryList"),
            (Category.self, "Category"),
            (GamesPage.self, "GamesPage"),
            (Game.self, "Game"),
            (Vendor.self, "Vendor"),
            (Edition.self, "Edition"),
            (Platform.self, "Platform"),
            (SnapshotKey.self, "SnapshotKey"),
            (SnapshotKind.self, "SnapshotKind"),
            (Date.self, "Timestamp"),
        ]
    }
}
