@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

@Suite struct SnapshotIndexTests {
    static let english = try! Edition(id: "en-iPhone")
    static let french = try! Edition(id: "fr-iPhone")
    static let digest = String(repeating: "ab", count: 32)

    static func entry(_ key: SnapshotKey, _ path: String) -> Manifest.Entry {
        Manifest.Entry(
            path: path, key: key, count: 3, total: 3, compressedBytes: 100, uncompressedBytes: 400, sha256: digest,
            contentHash: "sha256:" + digest)
    }

    /// Two editions, three files, one image, and a source path a Mac's file system spells in NFD.
    static func manifest() -> Manifest {
        let files = [
            entry(.categories(english), "en-iPhone/categories.json.gz"),
            entry(.gamesPage(english, categoryId: "SLOTS", offset: 0), "en-iPhone/games/slots-0123456789/0.json.gz"),
            entry(.categories(french), "fr-iPhone/categories.json.gz"),
        ]
        let images = [ManifestImagesContractTests.image()]
        return Manifest(
            generator: .init(name: "catalog", version: "test"), generatedAt: Date(timeIntervalSince1970: 1_795_000_000),
            source: "/Users/ana/Donne\u{301}es/feed.xml", contentHash: Manifest.contentHash(of: files, images: images),
            pageSize: 10, defaultEdition: english, editions: [english, french], files: files, images: images)
    }

    /// A directory holding only `manifest`'s index files.
    static func indexedDirectory(_ manifest: Manifest) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("index-\(UUID().uuidString)")
        try TestBundle.writeIndex(of: manifest, into: directory)
        return directory
    }

    @Test func theIndexGivesEachEditionExactlyItsEntriesAndTheManifestsHead() throws {
        // Given the index files of a manifest of two editions with an image
        let manifest = Self.manifest()
        let directory = try Self.indexedDirectory(manifest)
        defer { try? FileManager.default.removeItem(at: directory) }
        let reader = SnapshotReader(directory: directory)
        // When they are read back
        let index = try #require(try reader.index())
        let english = try reader.manifest(of: Self.english, in: index)
        let french = try reader.manifest(of: Self.french, in: index)
        // Then each edition's manifest is the head with that edition's entries, in order
        var head = manifest
        head.files = []
        head.images = nil
        #expect(index.head == head)
        #expect(try reader.head() == head)
        #expect(english.files == Array(manifest.files.prefix(2)))
        #expect(french.files == [manifest.files[2]])
        #expect(english.generatedAt == manifest.generatedAt && english.pageSize == manifest.pageSize)
        #expect(try reader.images(in: index) == manifest.images)
    }

    @Test func theIndexIsCanonicalAndTheSameEveryTime() throws {
        // Given a manifest indexed twice
        let first = try SnapshotIndex.files(for: Self.manifest())
        let second = try SnapshotIndex.files(for: Self.manifest())
        // Then the bytes agree, every JSON file is canonical (text kept as given), and index.json
        // comes last, after the parts it names
        #expect(first.map(\.path) == ["index/en-iPhone.tsv", "index/fr-iPhone.tsv", "index/images.json", "index.json"])
        #expect(first.map(\.data) == second.map(\.data))
        for file in first where file.path.hasSuffix(".json") {
            #expect(try CanonicalJSON.canonicalized(file.data, requiringNFC: false) == file.data, "\(file.path)")
        }
        // And an edition's table is its header row, one row per entry, and the count of rows
        let header: String = "path\tkey\tcount\ttotal\tcompressedBytes\tuncompressedBytes\tsha256\tcontentHash\n"
        let row: String =
            "fr-iPhone/categories.json.gz\tfr-iPhone/categories\t3\t3\t100\t400\t\(Self.digest)\tsha256:\(Self.digest)\n"
        #expect(String(decoding: first[1].data, as: UTF8.self) == header + row + "rows\t1\n")
    }

    @Test func aDirectoryWithoutAnIndexHasNoneAndItsHeadComesFromTheManifest() throws {
        // Given a directory with a manifest and no index
        let manifest = Self.manifest()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try CatalogCoding.prettyEncoder().encode(manifest).write(
            to: directory.appendingPathComponent(Manifest.fileName))
        let reader = SnapshotReader(directory: directory)
        // Then there is no index, and the head is the manifest's without entries and images
        #expect(try reader.index() == nil)
        #expect(try reader.head().files.isEmpty)
        #expect(try reader.head().contentHash == manifest.contentHash)
    }

    static let hostile: [(edit: @Sendable (inout SnapshotIndex) -> Void, record: String)] = [
        ({ $0.head.editions.swapAt(0, 1) }, "editions"),
        ({ $0.head.editions = [] }, "editions"),
        ({ $0.head.editions.append(SnapshotIndexTests.french) }, "editions"),
        ({ $0.head.defaultEdition = try! Edition(id: "de-iPhone") }, "defaultEdition"),
        ({ $0.imageCount = -1 }, "imageCount"),
        ({ $0.imageCount = Int.max }, "imageCount"),
        ({ $0.head.pageSize = 0 }, "pageSize"),
        ({ $0.head.pageSize = Int.min }, "pageSize"),
        ({ $0.head.contentHash = "sha256:" }, "contentHash"),
        ({ $0.head.schemaVersion = 2 }, "schemaVersion"),
        ({ $0.head.files = SnapshotIndexTests.manifest().files }, "files"),
    ]

    @Test(arguments: 0..<hostile.count)
    func refusesAnIndexThatBreaksARuleNamingTheRecord(_ position: Int) throws {
        // Given a valid index changed in one hostile way
        let files = try SnapshotIndex.files(for: Self.manifest())
        var index = try CatalogCoding.decoder().decode(SnapshotIndex.self, from: files.last!.data)
        #expect(index.violations(limits: .default).isEmpty)
        Self.hostile[position].edit(&index)
        // Then the rule broken is named by its record
        let records = index.violations(limits: .default).map(\.path)
        #expect(records.contains(Self.hostile[position].record), "\(records)")
    }

    @Test func refusesAPartWhoseEntriesAreOfAnotherEdition() throws {
        // Given an index whose English table holds the French entries
        let manifest = Self.manifest()
        let directory = try Self.indexedDirectory(manifest)
        defer { try? FileManager.default.removeItem(at: directory) }
        let french = try Data(contentsOf: directory.appendingPathComponent("index/fr-iPhone.tsv"))
        try french.write(to: directory.appendingPathComponent("index/en-iPhone.tsv"))
        let reader = SnapshotReader(directory: directory)
        let index = try #require(try reader.index())
        // When the English entries are read
        // Then they are refused as breaking the contract
        #expect {
            _ = try reader.manifest(of: Self.english, in: index)
        } throws: { error in
            (error as? SnapshotReadError)?.code == .invalidManifest
        }
    }

    static let row = "en-iPhone/categories.json.gz\ten-iPhone/categories\t3\t3\t100\t400\t\(digest)\tsha256:\(digest)"
    static let header = "path\tkey\tcount\ttotal\tcompressedBytes\tuncompressedBytes\tsha256\tcontentHash"

    static let badTables: [(text: String, line: Int)] = [
        ("", 1),
        (header, 1),  // no line break: cut short
        ("path\tkey\n", 1),
        (header + "\n" + row.replacingOccurrences(of: "\t3\t3", with: "\t-3\t3") + "\nrows\t1\n", 2),
        (header + "\n" + row.replacingOccurrences(of: "\t3\t3", with: "\t+3\t3") + "\nrows\t1\n", 2),
        (header + "\n" + row.replacingOccurrences(of: "\t100\t", with: "\t0100\t") + "\nrows\t1\n", 2),
        (header + "\n" + row.replacingOccurrences(of: "\t100\t", with: "\t9223372036854775807\t") + "\nrows\t1\n", 2),
        (header + "\n" + row.replacingOccurrences(of: "\t100\t", with: "\t\t") + "\nrows\t1\n", 2),
        (header + "\n" + row + "\textra\nrows\t1\n", 2),
        (
            header + "\n" + row + "\n" + row.replacingOccurrences(of: "categories.json", with: "caté.json")
                + "\nrows\t2\n", 3
        ),
        (
            header + "\n" + row.replacingOccurrences(of: "en-iPhone/categories\t", with: "en-iPhone/nothing\t")
                + "\nrows\t1\n", 2
        ),
        (header + "\n" + row + "\r\nrows\t1\n", 2),
        (header + "\n" + row + "\n", 3),  // every row whole, the count line missing
        (header + "\n" + row + "\nrows\t2\n", 3),
        (header + "\n" + row + "\nrows\t01\n", 3),
        (header + "\n" + row + "\nrows\t1\n" + row + "\n", 4),
    ]

    @Test(arguments: 0..<badTables.count)
    func refusesAnEditionTableThatIsNotOneNamingItsLine(_ position: Int) throws {
        // Given a directory whose English table is broken in one way
        let manifest = Self.manifest()
        let directory = try Self.indexedDirectory(manifest)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(Self.badTables[position].text.utf8).write(to: directory.appendingPathComponent("index/en-iPhone.tsv"))
        let reader = SnapshotReader(directory: directory)
        let index = try #require(try reader.index())
        // When the English entries are read
        // Then the part is refused as undecodable, its line named
        #expect {
            _ = try reader.manifest(of: Self.english, in: index)
        } throws: { error in
            let error = error as? SnapshotReadError
            return error?.code == .undecodable
                && error?.message.contains("line \(Self.badTables[position].line):") == true
        }
    }
}
