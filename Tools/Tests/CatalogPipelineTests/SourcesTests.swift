import CasinoCacheTesting
import CasinoCatalog
import CatalogPipeline
import Foundation
import Testing

@Suite struct XMLFeedSourceTests {
    @Test func buildsAValidSnapshotFromTheEmbeddedFeed() throws {
        // Given the embedded XML feed
        let directory = try TemporaryDirectory()
        let feed = repositoryRoot.appendingPathComponent("data/feed/acme-feed.xml")
        let source = try XMLFeedSource(file: feed)
        // When it is normalized and written
        let catalog = try Normalizer(configuration: .default, logger: quietLogger).normalize(source).catalog
        let manifest = try SnapshotWriter(logger: quietLogger).write(catalog, to: directory.child("out"))
        // Then it has editions per language and validates
        #expect(Set(catalog.editions.map(\.edition.language)).isSuperset(of: ["en", "fr"]))
        #expect(manifest.generatedAt == source.fetchedAt)
        #expect(SnapshotValidator().validate(directory: directory.child("out")).isValid)
    }

    @Test(arguments: [
        (#"<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY x "y">]><feed provider="p"/>"#, "DOCTYPE"),
        (
            #"<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><feed provider="p">&xxe;</feed>"#,
            "DOCTYPE"
        ),
        (#"<feed provider="p"><games><game id="1"></games></feed>"#, "line"),
        ("", "empty"),
    ])
    func refusesHostileOrBrokenFeeds(xml: String, mention: String) throws {
        let directory = try TemporaryDirectory()
        let file = directory.child("feed.xml")
        try Data(xml.utf8).write(to: file)
        let error = #expect(throws: PipelineError.self) { try XMLFeedSource(file: file) }
        #expect(error?.file == file.relativePath)
        #expect(error?.description.contains(mention) == true)
        #expect(error?.description.contains("root:") == false)
    }

    @Test func refusesAFeedOverTheSizeCap() throws {
        let directory = try TemporaryDirectory()
        let file = directory.child("feed.xml")
        try Data(contentsOf: repositoryRoot.appendingPathComponent("data/feed/acme-feed.xml")).write(to: file)
        var limits = PipelineConfiguration.Limits.default
        limits.maxFeedBytes = 1024
        let error = #expect(throws: PipelineError.self) { try XMLFeedSource(file: file, limits: limits) }
        #expect(error?.code == .inputTooLarge)
    }
}

@Suite struct SourceKindTests {
    @Test func detectsTheKindOfSource() throws {
        let directory = try TemporaryDirectory()
        #expect(SourceKind.detect(directory.url.path) == .recorded)
        #expect(SourceKind.detect(directory.child("feed.xml").path) == .xml)
        #expect(SourceKind.detect("https://api.example.com") == .http)
        #expect(SourceKind.detect("HTTP://127.0.0.1:8080") == .http)
    }

    @Test func saysHTTPIsNotSupportedYet() {
        let error = #expect(throws: PipelineError.self) {
            try SourceKind.http.open("http://127.0.0.1:1", configuration: .default)
        }
        #expect(error?.code == .unsupportedSource)
        #expect(error?.message.contains("HTTPFetcher") == true)
        #expect(error?.message.contains("catalog fetch") == true)
    }

    @Test func namesAMissingSourceDirectory() {
        let error = #expect(throws: PipelineError.self) {
            try RecordedProviderSource(directory: URL(fileURLWithPath: "/nonexistent/provider"))
        }
        #expect(error?.code == .missingInput)
        #expect(error?.file == "/nonexistent/provider")
    }
}

@Suite struct SampleRecordingTests {
    @Test func writesTheSameRecordingEveryTimeAndItBuildsAValidSnapshot() throws {
        let directory = try TemporaryDirectory()
        var sample = SampleRecording(games: 300, categories: 6)
        sample.seed = 7
        try sample.write(to: directory.child("a"))
        try sample.write(to: directory.child("b"))
        #expect(try fileTree(directory.child("a")) == fileTree(directory.child("b")))

        let manifest = try buildSnapshot(from: directory.child("a"), to: directory.child("out"))
        #expect(manifest.editions == [enIPhone, frIPhone])
        #expect(SnapshotValidator().validate(directory: directory.child("out")).isValid)
    }
}

@Suite struct EmbeddedDataTests {
    @Test func buildsAValidDeterministicSnapshotFromTheDefaultData() throws {
        // Given the embedded recording and configuration
        let directory = try TemporaryDirectory()
        let configuration = try PipelineConfiguration.load(
            from: repositoryRoot.appendingPathComponent("data/catalog.json"))
        // When it is built twice
        let provider = repositoryRoot.appendingPathComponent("data/provider")
        let manifest = try buildSnapshot(from: provider, to: directory.child("a"), configuration: configuration)
        try buildSnapshot(from: provider, to: directory.child("b"), configuration: configuration)
        // Then both validate, are identical, and hold both editions with several categories
        #expect(SnapshotValidator().validate(directory: directory.child("a")).isValid)
        #expect(try fileTree(directory.child("a")) == fileTree(directory.child("b")))
        #expect(manifest.editions == [enIPhone, frIPhone])
        #expect(manifest.defaultEdition == enIPhone)
        #expect(manifest.files.filter { $0.kind == .categories }.count == 2)
        #expect(manifest.files.filter { $0.kind == .gamesPage }.count > 10)
    }
}
