@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Testing

/// The catalogue streamed through the pipeline (normalizer → normalized file → snapshot writer) a
/// few categories at a time gives exactly what the whole catalogue gives, and a bad or truncated
/// normalized file is refused naming its line.
@Suite struct StreamingPipelineTests {
    let directory: TemporaryDirectory
    let configuration: PipelineConfiguration
    let source: RecordedProviderSource

    init() throws {
        directory = try TemporaryDirectory()
        configuration = try PipelineConfiguration.load(from: repositoryRoot.appendingPathComponent("data/catalog.json"))
        source = try RecordedProviderSource(
            directory: repositoryRoot.appendingPathComponent("data/provider"), limits: configuration.limits)
    }

    private var normalizer: Normalizer { Normalizer(configuration: configuration, logger: quietLogger) }
    private var writer: SnapshotWriter { SnapshotWriter(limits: configuration.snapshotLimits, logger: quietLogger) }

    @Test func aStreamedSnapshotIsByteForByteTheOneRenderedFromTheWholeCatalogue() throws {
        // Given the embedded data, rendered whole in memory
        let catalog = try normalizer.normalize(source).catalog
        let whole = try writer.render(catalog).files
        // When it is streamed from the source into a snapshot, and through a normalized file into another
        var direct = try writer.stream(to: directory.child("direct"))
        _ = try normalizer.normalize(source, into: &direct)
        try direct.publish()
        var file = try NormalizedCatalogFile.Writer(to: directory.child("normalized.jsonl"))
        _ = try normalizer.normalize(source, into: &file)
        var viaFile = try writer.stream(to: directory.child("via-file"))
        try NormalizedCatalogFile.read(from: directory.child("normalized.jsonl"), into: &viaFile)
        try viaFile.publish()
        // Then both hold exactly the rendered files
        let rendered = Dictionary(uniqueKeysWithValues: whole.map { ($0.path, $0.data) })
        #expect(rendered.count > 30)
        #expect(try fileTree(directory.child("direct")) == rendered)
        #expect(try fileTree(directory.child("via-file")) == rendered)
        // And the normalized file reads back as the catalogue, one line per page and categories list
        #expect(try NormalizedCatalogFile.read(from: directory.child("normalized.jsonl")) == catalog)
        let lines = try String(contentsOf: directory.child("normalized.jsonl"), encoding: .utf8)
            .split(separator: "\n")
        #expect(lines.count == 1 + catalog.editions.count + catalog.editions.reduce(0) { $0 + $1.pages.count })
    }

    @Test func theNormalizerHandsOverEachEditionsCategoriesThenItsPagesInLobbyOrder() throws {
        // Given a sink that records what it is handed
        struct Recorder: CatalogSink {
            var events: [String] = []
            mutating func begin(_ header: CatalogHeader) { events.append("begin \(header.editions.map(\.id))") }
            mutating func categories(_ list: CategoryList, of edition: Edition) {
                events.append("categories \(edition) \(list.items.map(\.id))")
            }
            mutating func pages(_ pages: [GamesPage], of edition: Edition) {
                events += pages.map { "page \(edition) \($0.categoryId) \($0.offset)" }
            }
            mutating func finish() { events.append("finish") }
        }
        var recorder = Recorder()
        // When the embedded data is normalized into it
        _ = try normalizer.normalize(source, into: &recorder)
        // Then it received exactly the whole catalogue's pieces, in the documented order
        let catalog = try normalizer.normalize(source).catalog
        var expected = ["begin \(catalog.editions.map(\.edition.id))"]
        for edition in catalog.editions {
            expected.append("categories \(edition.edition) \(edition.categories.items.map(\.id))")
            expected += edition.pages.map { "page \(edition.edition) \($0.categoryId) \($0.offset)" }
        }
        #expect(recorder.events == expected + ["finish"])
        let firstPages = catalog.editions[0].pages.map(\.categoryId)
        #expect(firstPages.first == catalog.editions[0].categories.items.first?.id)
    }

    /// Hand-made normalized files: what each must say.
    static let badFiles: [(name: String, transform: @Sendable ([String]) -> [String], record: String?, words: String)] =
        [
            ("empty", { _ in [] }, nil, "no \"catalog\" line"),
            (
                "truncated before the last edition",
                { lines in Array(lines[..<lines.lastIndex { $0.hasPrefix(#"{"categories":"#) }!]) }, nil, "truncated"
            ),
            ("garbage line", { lines in [lines[0], "{ not json"] + lines.dropFirst() }, "line 2", "JSON"),
            (
                "page before categories", { lines in [lines[0], lines[2]] + lines.dropFirst() }, "line 2",
                "not the order"
            ),
            ("second header", { lines in lines + [lines[0]] }, "line", "a second \"catalog\" line"),
            (
                "unknown shape", { lines in [lines[0], #"{"edition":"en-iPhone"}"#] + lines.dropFirst() }, "line 2",
                "expected exactly"
            ),
            ("empty line", { lines in [lines[0], ""] + lines.dropFirst() }, "line 2", "empty"),
        ]

    @Test(arguments: badFiles.indices)
    func aBadNormalizedFileIsRefusedNamingTheLineAndTheSnapshotIsLeftAlone(_ index: Int) throws {
        let bad = Self.badFiles[index]
        // Given a good snapshot and a normalized file spoilt in one way
        let out = directory.child("out")
        try writer.write(try normalizer.normalize(source).catalog, to: out)
        let before = try fileTree(out)
        let good = directory.child("good.jsonl")
        try NormalizedCatalogFile.write(try normalizer.normalize(source).catalog, to: good)
        let lines = try String(contentsOf: good, encoding: .utf8).split(separator: "\n").map(String.init)
        let spoilt = try directory.write(bad.transform(lines).joined(separator: "\n"), to: "bad.jsonl")
        // When a snapshot is streamed from it
        var stream = try writer.stream(to: out)
        let error = #expect(throws: PipelineError.self, "\(bad.name)") {
            try NormalizedCatalogFile.read(from: spoilt, into: &stream)
        }
        stream.discard()
        // Then the error is malformed input naming the file, the line and what is wrong
        #expect(error?.code == .malformedInput, "\(bad.name)")
        #expect(error?.file == spoilt.relativePath, "\(bad.name)")
        if let record = bad.record {
            #expect(error?.record?.hasPrefix(record) == true, "\(bad.name): \(error?.record ?? "")")
        }
        #expect(error?.message.contains(bad.words) == true, "\(bad.name): \(error?.message ?? "")")
        // And out/ is byte for byte as it was, with no staging directory beside it
        #expect(try fileTree(out) == before)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasPrefix(".out.") }
                .isEmpty)
    }

    @Test func aMissingNormalizedFileIsMissingInputAndADirectoryOrFIFOIsRefusedUnread() throws {
        // Given no file, a directory and a FIFO (which a read would block on)
        try FileManager.default.createDirectory(at: directory.child("folder.jsonl"), withIntermediateDirectories: true)
        #expect(mkfifo(directory.child("fifo.jsonl").path, 0o600) == 0)
        for (name, code) in [
            ("absent.jsonl", PipelineError.Code.missingInput), ("folder.jsonl", .malformedInput),
            ("fifo.jsonl", .malformedInput),
        ] {
            // When each is read as a normalized catalogue
            var collector = CatalogCollector()
            let error = #expect(throws: PipelineError.self) {
                try NormalizedCatalogFile.read(from: directory.child(name), into: &collector)
            }
            // Then it fails at once, naming the file and what to run
            #expect(error?.code == code, "\(name)")
            #expect(error?.file == directory.child(name).relativePath)
            #expect(error?.message.contains("catalog normalize") == true)
        }
    }

    @Test func aStreamOverTheFileCapFailsMidwayAndLeavesTheTargetUntouched() throws {
        // Given a good snapshot, and limits that allow fewer files than the catalogue needs
        let out = directory.child("out")
        try writer.write(try normalizer.normalize(source).catalog, to: out)
        let before = try fileTree(out)
        var limits = configuration.snapshotLimits
        limits.maxFileCount = 5
        // When the catalogue streams into a snapshot with those limits
        var stream = try SnapshotWriter(limits: limits, logger: quietLogger).stream(to: out)
        let error = #expect(throws: PipelineError.self) {
            _ = try normalizer.normalize(source, into: &stream)
            try stream.publish()
        }
        stream.discard()
        // Then it names the cap, and out/ is as it was with no staging left
        #expect(error?.message.contains("snapshotLimits.maxFileCount 5") == true)
        #expect(try fileTree(out) == before)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasPrefix(".out.") }
                .isEmpty)
    }

    @Test func aFailedNormalizeLeavesThePreviousNormalizedFile() throws {
        // Given a normalized file
        let url = directory.child("normalized.jsonl")
        try NormalizedCatalogFile.write(try normalizer.normalize(source).catalog, to: url)
        let before = try Data(contentsOf: url)
        // When a new one is begun and given up
        var file = try NormalizedCatalogFile.Writer(to: url)
        try file.begin(
            CatalogHeader(
                generatedAt: Date(), source: "x", pageSize: 10, defaultEdition: enIPhone, editions: [enIPhone]))
        file.discard()
        // Then the file is unchanged and no temporary file is left
        #expect(try Data(contentsOf: url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["normalized.jsonl"])
    }
}
