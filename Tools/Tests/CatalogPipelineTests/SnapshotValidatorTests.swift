@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
@_spi(CatalogTools) import Gzip
import Testing

@Suite struct SnapshotValidatorTests {
    let directory: TemporaryDirectory
    let out: URL
    let manifest: Manifest

    init() throws {
        directory = try TemporaryDirectory()
        let recording = RecordingBuilder(root: directory.child("provider"))
        try recording.writeMetadata(editions: [enIPhone])
        try recording.writeCategories([("SLOTS", "Slots", 25), ("LIVE", "Live", 4)])
        try recording.writeCategory("SLOTS", games: 25)
        try recording.writeCategory("LIVE", games: 4, firstID: 500)
        out = directory.child("out")
        manifest = try buildSnapshot(from: recording.layout.root, to: out)
    }

    var firstPage: Manifest.Entry { manifest.files.first { $0.kind == .gamesPage }! }

    func validate() -> ValidationReport { SnapshotValidator().validate(directory: out) }

    /// Rewrites a snapshot's JSON and fixes the manifest's sizes and hashes, so only the
    /// content change remains to be found.
    func rewrite(_ entry: Manifest.Entry, isCanonical: Bool = true, _ change: (inout [String: Any]) -> Void) throws {
        let url = out.appendingPathComponent(entry.path)
        let json = try Gzip.decompress(Data(contentsOf: url), limit: 1 << 20)
        var object = try JSONSerialization.jsonObject(with: json) as! [String: Any]
        change(&object)
        let sorted = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        let newJSON = isCanonical ? (try? CanonicalJSON.canonicalized(sorted)) ?? sorted : sorted
        let packed = try Gzip.compress(newJSON)
        try packed.write(to: url)
        var newManifest = manifest
        let index = newManifest.files.firstIndex { $0.path == entry.path }!
        newManifest.files[index].compressedBytes = packed.count
        newManifest.files[index].uncompressedBytes = newJSON.count
        newManifest.files[index].sha256 = FileNaming.hexSHA256(packed)
        try CatalogCoding.prettyEncoder().encode(newManifest).write(to: out.appendingPathComponent(Manifest.fileName))
        try TestBundle.writeIndex(of: newManifest, into: out)
    }

    @Test func acceptsWhatTheWriterWrote() {
        let report = validate()
        #expect(report.problems.isEmpty)
        #expect(report.filesChecked == manifest.files.count)
        #expect(report.gamesChecked == 29)
    }

    @Test func catchesAFlippedByte() throws {
        let url = out.appendingPathComponent(firstPage.path)
        var data = try Data(contentsOf: url)
        data[data.count / 2] ^= 0x20
        try data.write(to: url)
        let problems = validate().problems
        #expect(problems.contains { $0.file == firstPage.path && $0.message.contains("SHA-256") })
    }

    @Test func catchesATruncatedFile() throws {
        let url = out.appendingPathComponent(firstPage.path)
        try Data(contentsOf: url).prefix(20).write(to: url)
        // Then its size is reported: a file is checked up to its first failure, as the app reads it
        let problems = validate().problems.filter { $0.file == firstPage.path }
        #expect(
            problems.map(\.message) == [
                "is 20 bytes, the manifest says \(firstPage.compressedBytes) (truncated or replaced) (size-mismatch)"
            ])
    }

    @Test func catchesAMissingFile() throws {
        try FileManager.default.removeItem(at: out.appendingPathComponent(firstPage.path))
        #expect(validate().problems.contains { $0.file == firstPage.path && $0.message.hasPrefix("missing") })
    }

    @Test func catchesAnExtraUnlistedFile() throws {
        try Data("{}".utf8).write(to: out.appendingPathComponent("en-iPhone/extra.json.gz"))
        #expect(
            validate().problems.contains { $0.file == "en-iPhone/extra.json.gz" && $0.message.contains("not listed") })
    }

    @Test func acceptsASnapshotWithoutAnIndex() throws {
        // Given a snapshot as a pipeline before the index wrote it
        try FileManager.default.removeItem(at: out.appendingPathComponent(SnapshotIndex.fileName))
        try FileManager.default.removeItem(at: out.appendingPathComponent(SnapshotIndex.partsDirectory))
        // Then it validates: an app reads it through manifest.json
        #expect(validate().problems.isEmpty)
    }

    @Test func catchesAnIndexPartThatIsNotTheManifests() throws {
        // Given the edition's table rewritten to list no file: a table an app would accept,
        // hiding every bundled file
        let tableURL = out.appendingPathComponent(SnapshotIndex.path(of: enIPhone))
        let table = try String(contentsOf: tableURL, encoding: .utf8)
        try Data((table.prefix { $0 != "\n" } + "\nrows\t0\n").utf8).write(to: tableURL)
        // When the snapshot is validated
        let problems = validate().problems
        // Then the table is named as other than what the manifest gives, and nothing else
        #expect(problems.map(\.file) == [SnapshotIndex.path(of: enIPhone)], "\(problems)")
        #expect(problems.allSatisfy { $0.message.hasPrefix("differs from what manifest.json gives") })
    }

    @Test func catchesAnIndexPartLeftWithoutItsIndex() throws {
        // Given a snapshot whose index.json was removed, its parts left behind
        try FileManager.default.removeItem(at: out.appendingPathComponent(SnapshotIndex.fileName))
        // Then the parts are files the manifest does not list
        let problems = validate().problems
        #expect(problems.contains { $0.file == "index/en-iPhone.tsv" && $0.message.contains("not listed") })
    }

    @Test func catchesAWrongSchemaVersionInTheManifest() throws {
        let url = out.appendingPathComponent(Manifest.fileName)
        let text = try String(contentsOf: url, encoding: .utf8).replacingOccurrences(
            of: "\"schemaVersion\" : 1", with: "\"schemaVersion\" : 99")
        try text.write(to: url, atomically: true, encoding: .utf8)
        #expect(validate().problems.contains { $0.file == Manifest.fileName && $0.message.contains("99") })
    }

    @Test func catchesAWrongSchemaVersionInASnapshot() throws {
        try rewrite(firstPage) { $0["schemaVersion"] = 2 }
        #expect(validate().problems.contains { $0.file == firstPage.path && $0.record == "schemaVersion" })
    }

    @Test func catchesAFileWhoseBytesAreNotCanonical() throws {
        // Given a page with the same content, rewritten with Foundation's escaped slashes
        try rewrite(firstPage, isCanonical: false) { _ in }
        // When the snapshot is validated
        let problems = validate().problems
        // Then that file is named as not canonical (and its category as without a readable page)
        #expect(
            problems.contains { $0.file == firstPage.path && $0.message.contains("(not-canonical)") }, "\(problems)")
        #expect(problems.allSatisfy { $0.file == firstPage.path || $0.message.contains("has no bundled page") })
    }

    @Test func acceptsAFileDatedBeforeItsManifestButNotAfter() throws {
        // A file kept from an earlier snapshot carries that snapshot's date: valid
        try rewrite(firstPage) { $0["generatedAt"] = "2020-01-01T00:00:00Z" }
        #expect(validate().problems.isEmpty)
        // A file dated after its manifest is not
        try rewrite(firstPage) { $0["generatedAt"] = "2100-01-01T00:00:00Z" }
        #expect(validate().problems.contains { $0.file == firstPage.path && $0.record == "generatedAt" })
    }

    @Test func catchesADuplicateGameIDWithinAPage() throws {
        try rewrite(firstPage) { object in
            var payload = object["payload"] as! [String: Any]
            var items = payload["items"] as! [[String: Any]]
            items[1]["id"] = items[0]["id"]
            payload["items"] = items
            object["payload"] = payload
        }
        #expect(validate().problems.contains { $0.file == firstPage.path && $0.message.contains("duplicate-id") })
    }

    @Test func catchesADuplicateGameIDAcrossPages() throws {
        let second = manifest.files.first { $0.key.description.hasSuffix("SLOTS/10") }!
        try rewrite(second) { object in
            var payload = object["payload"] as! [String: Any]
            var items = payload["items"] as! [[String: Any]]
            items[0]["id"] = "1"
            payload["items"] = items
            object["payload"] = payload
        }
        #expect(validate().problems.contains { $0.file == second.path && $0.message.contains("duplicate game id 1") })
    }

    @Test func catchesAPageWhoseCountDisagreesWithItsItems() throws {
        try rewrite(firstPage) { object in
            var payload = object["payload"] as! [String: Any]
            payload["count"] = 7
            object["payload"] = payload
        }
        #expect(validate().problems.contains { $0.file == firstPage.path && $0.record == "payload.count" })
    }

    @Test func reportsEveryProblemInOnePass() throws {
        // Given three different corruptions
        try FileManager.default.removeItem(at: out.appendingPathComponent(firstPage.path))
        try Data("x".utf8).write(to: out.appendingPathComponent("stray.txt"))
        let categories = manifest.files.first { $0.kind == .categories }!
        try Data(contentsOf: out.appendingPathComponent(categories.path)).dropLast(3).write(
            to: out.appendingPathComponent(categories.path))
        // When validated
        let files = Set(validate().problems.map(\.file))
        // Then each is reported
        #expect(files.isSuperset(of: [firstPage.path, "stray.txt", categories.path]))
    }

    // MARK: - Reproducers (../shared/repro): each trapped the validator once

    @Test func reportsAPageOffsetOfIntMax() throws {
        // Given page-offset-max: a page whose payload offset is Int.max, sizes and SHA-256 consistent
        try rewrite(firstPage) { object in
            var payload = object["payload"] as! [String: Any]
            payload["offset"] = Int.max
            object["payload"] = payload
        }
        // Then it is a named problem of that page
        let problems = validate().problems
        #expect(problems.contains { $0.file == firstPage.path && $0.record == "payload.offset" })
    }

    @Test func reportsAnOffsetAndLimitWhoseSumOverflows() throws {
        // Given page-offset-limit: offset 2^62, limit 2^62, total 2^62 + 1 and a manifest pageSize of 2^62
        try rewrite(firstPage) { object in
            var payload = object["payload"] as! [String: Any]
            payload["offset"] = 1 << 62
            payload["limit"] = 1 << 62
            payload["total"] = (1 << 62) + 1
            object["payload"] = payload
        }
        let url = out.appendingPathComponent(Manifest.fileName)
        var manifest = try CatalogCoding.decoder().decode(Manifest.self, from: Data(contentsOf: url))
        manifest.pageSize = 1 << 62
        try CatalogCoding.prettyEncoder().encode(manifest).write(to: url)
        // Then both the manifest and the page are named problems
        let problems = validate().problems
        #expect(problems.contains { $0.file == Manifest.fileName && $0.record == "pageSize" })
        #expect(problems.contains { $0.file == firstPage.path && $0.record == "payload.limit" })
    }

    @Test(arguments: [-2, Int.max])
    func reportsAnUncompressedSizeOutOfRange(size: Int) throws {
        // Given neg-uncompressed: a manifest entry with uncompressedBytes -2 (or Int.max)
        let url = out.appendingPathComponent(Manifest.fileName)
        var manifest = try CatalogCoding.decoder().decode(Manifest.self, from: Data(contentsOf: url))
        manifest.files[0].uncompressedBytes = size
        try CatalogCoding.prettyEncoder().encode(manifest).write(to: url)
        // Then the manifest's field and the file are named problems
        let problems = validate().problems
        #expect(problems.contains { $0.file == Manifest.fileName && $0.record == "files[0].uncompressedBytes" })
        #expect(problems.contains { $0.file == manifest.files[0].path && $0.message.contains("maxInflatedBytes") })
    }

    @Test func catchesAMissingManifest() throws {
        try FileManager.default.removeItem(at: out.appendingPathComponent(Manifest.fileName))
        #expect(validate().problems.first?.file == Manifest.fileName)
    }
}
