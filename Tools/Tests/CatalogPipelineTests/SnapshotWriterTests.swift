@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
@_spi(CatalogTools) import Gzip
@_spi(CatalogTools) import ProviderAPI
import Testing

@Suite struct SnapshotWriterTests {
    let directory: TemporaryDirectory
    let recording: RecordingBuilder

    init() throws {
        directory = try TemporaryDirectory()
        recording = RecordingBuilder(root: directory.child("provider"))
        try recording.writeMetadata(editions: [enIPhone, frIPhone])
        for edition in [enIPhone, frIPhone] {
            try recording.writeCategories(
                [("SLOTS", "Slots", 25), ("LIVE", "Live", 4), ("NONE", "None", 0)], edition: edition)
            try recording.writeCategory("SLOTS", games: 25, edition: edition)
            try recording.writeCategory("LIVE", games: 4, firstID: 500, edition: edition)
        }
    }

    @Test func writesTheSameBytesOnEveryRun() throws {
        // When the same recording is built twice into different directories
        try buildSnapshot(from: recording.layout.root, to: directory.child("a"))
        try buildSnapshot(from: recording.layout.root, to: directory.child("b"))
        // Then every file, the manifest included, is byte-identical
        let first = try fileTree(directory.child("a"))
        let second = try fileTree(directory.child("b"))
        #expect(first.keys.sorted() == second.keys.sorted())
        #expect(first == second)
        #expect(first.keys.contains("manifest.json"))
        #expect(first.keys.contains("en-iPhone/games/\(FileNaming.component(for: "SLOTS"))/20.json.gz"))
    }

    @Test func aNewSnapshotKeepsTheBytesOfEveryFileWhoseContentDidNotChange() throws {
        // Given a snapshot in out/, one of whose files was damaged since
        let out = directory.child("out")
        let first = try buildSnapshot(from: recording.layout.root, to: out)
        let damaged = try #require(first.files.first { $0.path.contains(FileNaming.component(for: "SLOTS")) }).path
        var bytes = try Data(contentsOf: out.appendingPathComponent(damaged))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: out.appendingPathComponent(damaged))
        let before = try fileTree(out)
        // When the LIVE games change and the snapshot is built a day later into the same directory
        for edition in [enIPhone, frIPhone] {
            try recording.writeCategory("LIVE", games: 4, firstID: 900, edition: edition)
        }
        let source = try RecordedProviderSource(directory: recording.layout.root)
        let catalog = try Normalizer(configuration: .default, logger: quietLogger)
            .normalize(source, generatedAt: first.generatedAt.addingTimeInterval(86_400)).catalog
        let second = try SnapshotWriter(logger: quietLogger).write(catalog, to: out)
        // Then only the LIVE pages, the damaged file (written anew) and the manifest differ
        let after = try fileTree(out)
        let changed = Set(after.keys.filter { before[$0] != after[$0] })
        let live = second.files.filter { if case .gamesPage(_, "LIVE", _) = $0.key { true } else { false } }.map(\.path)
        #expect(live.count == 2)
        // (and the index of both editions, whose entries changed)
        let index = [SnapshotIndex.fileName, SnapshotIndex.path(of: enIPhone), SnapshotIndex.path(of: frIPhone)]
        #expect(changed == Set(live + [damaged, Manifest.fileName] + index))
        #expect(second.generatedAt == first.generatedAt.addingTimeInterval(86_400))
        // And the result is a valid snapshot whose kept files still carry their first date
        #expect(SnapshotValidator().validate(directory: out).isValid)
        let kept = try #require(second.files.first { $0.kind == .categories })
        let json = try Gzip.decompress(try #require(after[kept.path]), limit: 1 << 20)
        #expect(
            try CatalogCoding.decoder().decode(Snapshot<CategoryList>.self, from: json).generatedAt == first.generatedAt
        )
    }

    @Test func writesGzipThatTheGzipToolAcceptsAndJSONWithTheEnvelope() throws {
        let out = directory.child("out")
        let manifest = try buildSnapshot(from: recording.layout.root, to: out)
        #expect(manifest.files.count == 2 * (1 + 3 + 1))
        for entry in manifest.files {
            #expect(try run(["gzip", "-t", out.appendingPathComponent(entry.path).path]) == 0, "\(entry.path)")
        }
        let page = manifest.files.first { $0.kind == .gamesPage }!
        let json = try Gzip.decompress(Data(contentsOf: out.appendingPathComponent(page.path)), limit: 1 << 20)
        let snapshot = try CatalogCoding.decoder().decode(Snapshot<GamesPage>.self, from: json)
        #expect(snapshot.schemaVersion == CatalogSchema.version)
        #expect(snapshot.key == page.key)
        #expect(snapshot.generatedAt == recording.fetchedAt)
        #expect(manifest.generatedAt == recording.fetchedAt)
    }

    @Test func writesEachFileExactlyAsCanonicallyEncodingTheWholeEnvelopeWouldWithThePayloadsHash() throws {
        // Given a snapshot whose payloads were encoded once and spliced into their envelopes
        let out = directory.child("out")
        let manifest = try buildSnapshot(from: recording.layout.root, to: out)
        for entry in manifest.files {
            let json = try Gzip.decompress(Data(contentsOf: out.appendingPathComponent(entry.path)), limit: 1 << 20)
            // Then each file is what canonically encoding the decoded envelope whole gives, byte for byte
            let whole: Data
            let payload: Data
            if entry.kind == .gamesPage {
                let snapshot = try CatalogCoding.decoder().decode(Snapshot<GamesPage>.self, from: json)
                whole = try CanonicalJSON.encode(snapshot)
                payload = try CanonicalJSON.encode(snapshot.payload)
            } else {
                let snapshot = try CatalogCoding.decoder().decode(Snapshot<CategoryList>.self, from: json)
                whole = try CanonicalJSON.encode(snapshot)
                payload = try CanonicalJSON.encode(snapshot.payload)
            }
            #expect(json == whole, "\(entry.path)")
            // And its content hash is the SHA-256 of the payload's own canonical encoding
            #expect(entry.contentHash == "sha256:" + FileNaming.hexSHA256(payload), "\(entry.path)")
        }
    }

    @Test func replacesThePreviousOutputAsAWhole() throws {
        let out = directory.child("out")
        try buildSnapshot(from: recording.layout.root, to: out)
        try Data("stale".utf8).write(to: out.appendingPathComponent("stale.txt"))
        try buildSnapshot(from: recording.layout.root, to: out)
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("stale.txt").path))
        #expect(SnapshotValidator().validate(directory: out).isValid)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter {
            $0.hasPrefix(".out.")
        }
        #expect(leftovers.isEmpty)
    }

    @Test(arguments: ["maxFileCount", "maxManifestBytes", "maxFileBytes", "maxInflatedBytes"])
    func refusesBeforeStagingWhatAnAppWouldRefuse(cap: String) throws {
        // Given a catalogue, and snapshot limits one cap of which it exceeds
        let catalog = try Normalizer(configuration: .default, logger: quietLogger)
            .normalize(RecordedProviderSource(directory: directory.child("provider"))).catalog
        var limits = SnapshotLimits.default
        switch cap {
        case "maxFileCount": limits.maxFileCount = 3
        case "maxManifestBytes": limits.maxManifestBytes = 1024
        case "maxFileBytes": limits.maxFileBytes = 200
        default: limits.maxInflatedBytes = 500
        }
        // When it is written
        let error = #expect(throws: PipelineError.self) {
            try SnapshotWriter(limits: limits, logger: quietLogger).write(catalog, to: directory.child("out"))
        }
        // Then the error names the setting, and nothing was staged or published
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("snapshotLimits.\(cap)") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["provider"])
    }

    @Test func leavesThePreviousOutputByteForByteIntactWhenABuildFails() throws {
        // Given a good out/
        let out = directory.child("out")
        try buildSnapshot(from: recording.layout.root, to: out)
        let before = try fileTree(out)
        // When the next build meets a corrupt page
        try recording.writeRawPage("{ truncated", category: "SLOTS", offset: 10)
        #expect(throws: PipelineError.self) { try buildSnapshot(from: recording.layout.root, to: out) }
        try recording.writeCategory("SLOTS", games: 25)
        // And when a catalogue that breaks the schema reaches the writer
        var catalog = try Normalizer(configuration: .default, logger: quietLogger)
            .normalize(
                RecordedProviderSource(directory: directory.child("provider")),
                generatedAt: Date(timeIntervalSince1970: 0)
            )
            .catalog
        catalog.editions[0].pages[0].items[1].id = catalog.editions[0].pages[0].items[0].id
        let error = #expect(throws: PipelineError.self) {
            try SnapshotWriter(logger: quietLogger).write(catalog, to: out)
        }
        #expect(error?.code == .validationFailed)
        // Then out/ is exactly as it was, and no staging directory is left behind
        #expect(try fileTree(out) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter {
            $0.hasPrefix(".out.")
        }
        #expect(leftovers.isEmpty)
    }

    @Test(arguments: ["../../etc/passwd", "a/b", "🎰 Slots", "..", "C:\\Windows", "videoslots", "%2e%2e"])
    func keepsHostileCategoryIDsInsideTheOutput(categoryId: String) throws {
        // Given a category whose id tries to escape, or differs from another only in case
        try recording.writeCategories([(categoryId, "Hostile", 3), ("VIDEOSLOTS", "Slots", 2)])
        try recording.writeCategory(categoryId, games: 3)
        try recording.writeCategory("VIDEOSLOTS", games: 2, firstID: 50)
        try recording.writeMetadata(editions: [enIPhone])
        // When built
        let out = directory.child("out")
        let manifest = try buildSnapshot(from: recording.layout.root, to: out)
        // Then every file lies under out/ with a safe path, the hostile id survives in the content
        for entry in manifest.files {
            #expect(CatalogRules.isSafeRelativePath(entry.path))
            #expect(entry.path.hasPrefix("en-iPhone/"))
        }
        let keys = manifest.files.compactMap { entry -> String? in
            if case .gamesPage(_, let id, _) = entry.key { return id }
            return nil
        }
        #expect(Set(keys) == Set([categoryId, "VIDEOSLOTS"]))
        #expect(try fileTree(directory.url).keys.allSatisfy { !$0.contains("etc/passwd") || $0.hasPrefix("provider") })
        #expect(SnapshotValidator().validate(directory: out).isValid)
    }

    @Test func skipsACategoryWhoseIDHoldsANULWithANamedWarning() throws {
        try recording.writeMetadata(editions: [enIPhone])
        try recording.writeCategories([("nul\u{0}byte", "Hostile", 3), ("VIDEOSLOTS", "Slots", 2)])
        try recording.writeCategory("nul\u{0}byte", games: 3)
        try recording.writeCategory("VIDEOSLOTS", games: 2, firstID: 50)
        let result = try Normalizer(configuration: .default, logger: quietLogger)
            .normalize(RecordedProviderSource(directory: recording.layout.root))
        #expect(result.catalog.editions[0].categories.items.map(\.id) == ["VIDEOSLOTS"])
        let warning = try #require(result.warnings.first)
        #expect(warning.record == "items[0]")
        #expect(warning.message.contains("control characters"))
    }

    @Test func namesFilesCollisionFreeAcrossCase() {
        #expect(FileNaming.component(for: "VIDEOSLOTS") != FileNaming.component(for: "videoslots"))
        #expect(FileNaming.component(for: "a/b") != FileNaming.component(for: "a_b"))
        #expect(FileNaming.component(for: "../../etc/passwd").hasPrefix("etc_passwd-"))
        #expect(FileNaming.component(for: String(repeating: "x", count: 500)).count == 40 + 11)
    }
}
