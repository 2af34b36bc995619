@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Testing

@Suite struct SnapshotContractSchemaTests {
    @Test func isDeterministicDraft202012JSONWithTheContractsDefinitions() throws {
        // Given the document built twice
        let first = SnapshotContractSchema.document()
        let second = SnapshotContractSchema.document()

        // Then it is the same bytes, JSON, of draft 2020-12, accepting a manifest or either envelope
        #expect(first == second)
        let document = try #require(try JSONSerialization.jsonObject(with: first) as? [String: Any])
        #expect(document["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
        #expect(document["$id"] as? String == SnapshotContractSchema.id)
        let roots = try #require(document["oneOf"] as? [[String: String]]).map { $0["$ref"] }
        #expect(roots == ["#/$defs/Manifest", "#/$defs/CategoriesSnapshot", "#/$defs/GamesPageSnapshot"])
        let definitions = try #require(document["$defs"] as? [String: Any])
        #expect(
            Set(definitions.keys).isSuperset(of: [
                "Manifest", "ManifestEntry", "CategoriesSnapshot", "GamesPageSnapshot", "CategoryList", "Category",
                "GamesPage", "Game", "Vendor", "Edition", "Platform", "SnapshotKey", "SnapshotKind", "Timestamp",
            ]))
    }

    @Test func recordsTheKeysEachTypeDecodesRequiredOrOptional() throws {
        // Given the document
        let definitions = try Self.definitions()

        // Then a game requires what Game decodes with `decode`, and takes null where it uses `decodeIfPresent`
        let game = try #require(definitions["Game"] as? [String: Any])
        #expect(
            game["required"] as? [String] == [
                "hasAnonymousFunMode", "hasFunMode", "id", "isNew", "launchUrl", "name", "platforms", "popularity",
                "restrictedTerritories", "slug", "tags", "thumbnail",
            ])
        let properties = try #require(game["properties"] as? [String: [String: Any]])
        #expect(Set(properties.keys).count == 16)
        #expect(properties["rtp"]?["type"] as? [String] == ["number", "null"])
        #expect(properties["popularity"]?["type"] as? String == "number")
        #expect(properties["isNew"]?["type"] as? String == "boolean")
        #expect(
            properties["vendor"]?["anyOf"] as? [[String: String]] == [["$ref": "#/$defs/Vendor"], ["type": "null"]])
        // And closed vocabularies come from their cases, unknown keys stay allowed as Swift ignores them
        let platform = try #require(definitions["Platform"] as? [String: Any])
        #expect(platform["enum"] as? [String] == Platform.allCases.map(\.rawValue))
        #expect(definitions.values.allSatisfy { ($0 as? [String: Any])?["additionalProperties"] == nil })
    }

    @Test func statesTheLimitsAndConstantsOfTheSwiftRules() throws {
        // Given limits other than the defaults
        var limits = SnapshotLimits.default
        limits.maxFileCount = 7
        limits.maxFileBytes = 1000
        limits.maxInflatedBytes = 5000

        // When the document is built for them
        let definitions = try Self.definitions(limits: limits)

        // Then the manifest's caps are theirs, and the other bounds are CatalogRules' and CatalogSchema's
        let manifest = try Self.properties(of: "Manifest", in: definitions)
        #expect(manifest["files"]?["maxItems"] as? Int == 7)
        #expect(manifest["schemaVersion"]?["const"] as? Int == CatalogSchema.version)
        #expect(manifest["pageSize"]?["maximum"] as? Int == CatalogRules.maxPageSize)
        let entry = try Self.properties(of: "ManifestEntry", in: definitions)
        #expect(entry["compressedBytes"]?["maximum"] as? Int == 1000)
        #expect(entry["uncompressedBytes"]?["maximum"] as? Int == 5000)
        #expect(entry["uncompressedBytes"]?["minimum"] as? Int == 0)
        let page = try Self.properties(of: "GamesPage", in: definitions)
        #expect(page["offset"]?["minimum"] as? Int == 0)
        #expect(page["limit"]?["maximum"] as? Int == CatalogRules.maxPageSize)
        #expect(page["total"]?["maximum"] as? Int == CatalogRules.maxGamesTotal)
        let envelope = try Self.properties(of: "GamesPageSnapshot", in: definitions)
        #expect(envelope["kind"]?["const"] as? String == SnapshotKind.gamesPage.rawValue)
    }

    @Test func aDirectoryWrittenWithCatalogCodingValidates() throws {
        // Given a snapshot directory as the pipeline writes it, which the Swift reader accepts
        let scratch = try TemporaryDirectory()
        let directory = scratch.url.appendingPathComponent("out")
        let files = try SnapshotDirectoryFixture.write(to: directory)
        #expect(SnapshotDirectoryFixture.readerError(in: directory) == nil)

        // When jsonschema validates its manifest and its gzip-compressed envelopes against the document
        let outcomes = try PythonJSONSchema.validate(
            [files[.manifest]!, files[.categories]!, files[.page]!], against: try scratch.schema())

        // Then every file is valid
        for outcome in outcomes {
            #expect(outcome.isDocumentValid && outcome.errors.isEmpty, "\(outcome)")
        }
        #expect(outcomes.count == 3)
    }

    @Test func theIndexFilesMatchTheirDefinitionsAndAnIndexWithEntriesDoesNot() throws {
        // Given the index of a manifest with images, and two broken copies of its index.json
        let scratch = try TemporaryDirectory()
        let directory = scratch.url.appendingPathComponent("out")
        let files = try SnapshotDirectoryFixture.write(to: directory)
        var manifest = try CatalogCoding.decoder().decode(Manifest.self, from: Data(contentsOf: files[.manifest]!))
        manifest.images = [
            Manifest.Image(
                url: "https://cdn.example.com/a.png", path: "images/\(String(repeating: "ab", count: 32)).png",
                bytes: 10, sha256: String(repeating: "ab", count: 32), mediaType: .png)
        ]
        var written: [String: URL] = [:]
        for (path, data) in try SnapshotIndex.files(for: manifest) {
            let file = scratch.url.appendingPathComponent(path.replacingOccurrences(of: "/", with: "-"))
            try data.write(to: file)
            written[path] = file
        }
        let index = try #require(written[SnapshotIndex.fileName])
        let images = try #require(written[SnapshotIndex.imagesPath])
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: index)) as? [String: Any])
        let withEntries = scratch.url.appendingPathComponent("with-entries.json")
        let full = try JSONSerialization.jsonObject(with: Data(contentsOf: files[.manifest]!)) as? [String: Any]
        object["files"] = full?["files"]
        try JSONSerialization.data(withJSONObject: object).write(to: withEntries)
        let negativeCount = scratch.url.appendingPathComponent("negative-count.json")
        object["files"] = [Any]()
        object["imageCount"] = -1
        try JSONSerialization.data(withJSONObject: object).write(to: negativeCount)

        // When jsonschema validates them against their definitions
        let schema = try scratch.schema()
        let heads = try PythonJSONSchema.validate(
            [index, withEntries, negativeCount], against: schema, definition: "SnapshotIndex")
        let list = try PythonJSONSchema.validate([images], against: schema, definition: "SnapshotImageList")

        // Then the written ones are valid, and the broken ones are not
        try #require(heads.count == 3 && list.count == 1)
        #expect(heads[0].errors.isEmpty, "\(heads[0])")
        #expect(list[0].errors.isEmpty, "\(list[0])")
        #expect(heads[1].errors.contains { $0.path.hasPrefix("files") }, "\(heads[1])")
        #expect(heads[2].errors.contains { $0.path == "imageCount" }, "\(heads[2])")
    }

    @Test(arguments: Tampering.all)
    func refusesWhatTheSwiftReaderRefuses(_ tampering: Tampering) throws {
        // Given the valid directory with one change
        let scratch = try TemporaryDirectory()
        let directory = scratch.url.appendingPathComponent("out")
        let files = try SnapshotDirectoryFixture.write(to: directory, edit: tampering.edit)

        // When the Swift reader reads it, and jsonschema validates the changed file
        let readerError = SnapshotDirectoryFixture.readerError(in: directory, limits: tampering.limits)
        let outcome = try #require(
            try PythonJSONSchema.validate(
                [files[tampering.file]!], against: try scratch.schema(limits: tampering.limits),
                definition: tampering.definition
            ).first)

        // Then both refuse it, naming the changed field
        let error = try #require(readerError, "the Swift reader accepted it")
        #expect(!tampering.isFieldNamedBySwift || "\(error)".contains(tampering.field), "\(error)")
        #expect(!outcome.isDocumentValid, "\(outcome)")
        #expect(outcome.errors.contains { $0.path == tampering.errorPath }, "\(outcome)")
    }

    private static func definitions(limits: SnapshotLimits = .default) throws -> [String: Any] {
        let document = try JSONSerialization.jsonObject(with: SnapshotContractSchema.document(limits: limits))
        return try #require((document as? [String: Any])?["$defs"] as? [String: Any])
    }

    private static func properties(of name: String, in definitions: [String: Any]) throws -> [String: [String: Any]] {
        try #require((definitions[name] as? [String: Any])?["properties"] as? [String: [String: Any]])
    }
}

extension Tampering {
    /// Changes the Swift reader refuses, each at a field the schema constrains.
    static let all: [Tampering] = [
        Tampering(.page, "payload/offset", "-10", "a negative page offset"),
        Tampering(.page, "payload/offset", "9223372036854775807", "the Int.max offset of the fuzzing reproducer"),
        Tampering(.page, "payload/limit", "0", "a page size of zero"),
        Tampering(.page, "payload/count", "-1", "a negative count"),
        Tampering(.page, "payload/items/0/id", #""""#, "an empty game id"),
        Tampering(.page, "payload/items/1/name", #""   ""#, "a blank game name"),
        Tampering(.page, "payload/items/2/slug", #""a\u0007b""#, "a control character in a slug"),
        Tampering(.page, "payload/items/0/thumbnail", #""http://static.example.com/c/34795.jpg""#, "an http thumbnail"),
        Tampering(.page, "payload/items/0/vendor/logo", #""javascript:alert(1)""#, "a javascript: vendor logo"),
        Tampering(.page, "payload/items/0/rtp", "1.5", "an RTP of 1.5"),
        Tampering(.page, "payload/items/0/platforms", #"["iPhone", "iPhone"]"#, "a platform listed twice"),
        Tampering(.page, "payload/items/0/platforms/0", #""Windows""#, "a platform outside the vocabulary"),
        Tampering(.page, "payload/items/0/restrictedTerritories/1", #""france""#, "a territory that is not ISO 3166"),
        Tampering(.page, "payload/items/2/thumbnail", nil, "a game without its thumbnail"),
        Tampering(.page, "payload/total", #""3""#, "a total written as a string"),
        Tampering(.page, "schemaVersion", "2", "another schema version"),
        Tampering(.page, "kind", #""categories""#, "a page that says it holds categories"),
        // Foundation's error for a malformed date carries no coding path (on Linux): Swift says "malformed JSON".
        Tampering(.page, "generatedAt", #""yesterday""#, "a date that is not ISO 8601", isFieldNamedBySwift: false),
        Tampering(.page, "contentHash", #""sha256:XYZ""#, "a malformed content hash in an envelope"),
        Tampering(.categories, "payload/items/1/gamesTotal", "0", "an empty category"),
        Tampering(.categories, "payload/items", "[]", "an edition without categories"),
        Tampering(.manifest, "files/1/sha256", #""ABC""#, "a malformed SHA-256"),
        Tampering(.manifest, "files/0/uncompressedBytes", "-2", "the negative size that trapped in gzip"),
        Tampering(.manifest, "files/1/compressedBytes", "-1", "a negative file size"),
        Tampering(.manifest, "files/0/path", #""../outside.json.gz""#, "a path that leaves the directory"),
        Tampering(.manifest, "files/1/key", #""en-iPhone/games/SLOTS/010""#, "a key with a non-canonical offset"),
        Tampering(.manifest, "files/1/count", "1001", "a page entry counting more than a page"),
        Tampering(.manifest, "contentHash", #""sha256:ABC""#, "a malformed content hash"),
        Tampering(.manifest, "pageSize", "0", "a page size of zero in the manifest"),
        Tampering(.manifest, "editions", "[]", "no editions"),
        Tampering(.manifest, "defaultEdition", #""en-iphone""#, "an edition with an unknown platform"),
        Tampering(.manifest, "generator", nil, "a manifest without its generator"),
        Tampering(limits: with(\.maxFileCount, 1), errorAt: "files", "more files than maxFileCount"),
        Tampering(limits: with(\.maxFileBytes, 64), errorAt: "files/0/compressedBytes", "a file over maxFileBytes"),
        Tampering(
            limits: with(\.maxInflatedBytes, 64), errorAt: "files/0/uncompressedBytes", "JSON over maxInflatedBytes"),
    ]

    private static func with(_ cap: WritableKeyPath<SnapshotLimits, Int>, _ value: Int) -> SnapshotLimits {
        var limits = SnapshotLimits.default
        limits[keyPath: cap] = value
        return limits
    }
}
