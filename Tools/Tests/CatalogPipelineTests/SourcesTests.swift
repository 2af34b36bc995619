@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
@_spi(CatalogTools) import ProviderAPI
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

    @Test func listsEachCategorysGamesPerEditionByPositionThenDocumentOrder() throws {
        // Given a feed whose categories are out of position order, with a game naming no platform,
        // one listing a category twice, one with a lenient spelling and one naming only an unknown platform
        // and a category the feed does not declare
        let directory = try TemporaryDirectory()
        let file = directory.child("feed.xml")
        let xml = """
            <feed provider="test"><categories>
            <category id="B" position="2"><name lang="en">Bee</name></category>
            <category id="A" position="1"><name lang="en">Ay</name><name lang="fr">Ah</name></category>
            <category id="C"><name lang="en">See</name></category>
            </categories><games>
            <game id="g1"><platforms><platform>iPhone</platform></platforms>
              <categories><category ref="A" position="2"/></categories></game>
            <game id="g2"><categories><category ref="A" position="1"/><category ref="A" position="9"/><category ref="B"/></categories></game>
            <game id="g3"><platforms><platform> android </platform></platforms>
              <categories><category ref="A" position="2"/><category ref="C"/></categories></game>
            <game id="g4"><platforms><platform>Toaster</platform></platforms>
              <categories><category ref="C" position="5"/><category ref="Z"/></categories></game>
            </games></feed>
            """
        try Data(xml.utf8).write(to: file)
        let source = try XMLFeedSource(file: file)

        // When every page of every edition is read
        var listed: [String: [String]] = [:]
        var totals: [String: Int] = [:]
        var order: [String: [String]] = [:]
        var locations: [String: [String]] = [:]
        for edition in try source.editions() {
            for category in edition.categories {
                let categoryId = category.record.value?.id?.text ?? "?"
                order[edition.edition.id, default: []].append(categoryId)
                totals["\(edition.edition.id)/\(categoryId)"] = category.record.value?.games?.total
                for reference in category.pages {
                    let records = try source.page(reference).records
                    listed["\(edition.edition.id)/\(categoryId)", default: []] += records.map {
                        $0.game.value?.id?.text ?? "?"
                    }
                    locations["\(edition.edition.id)/\(categoryId)", default: []] += records.map(\.location)
                }
            }
        }

        // Then the editions are the languages × the platforms named, categories come by position then
        // document order, and games by position then document order, a game naming no known platform everywhere
        #expect(Set(order.keys) == ["en-iPhone", "en-Android", "fr-iPhone", "fr-Android"])
        #expect(order.values.allSatisfy { $0 == ["A", "B", "C"] })
        #expect(listed["en-iPhone/A"] == ["g2", "g1"])
        #expect(listed["en-Android/A"] == ["g2", "g3"])
        #expect(listed["fr-iPhone/B"] == ["g2"])
        #expect(listed["en-iPhone/C"] == ["g4"])
        #expect(listed["en-Android/C"] == ["g4", "g3"])
        #expect(locations["en-iPhone/A"] == ["line 8 (game g2)", "line 6 (game g1)"])
        #expect(totals["en-Android/C"] == 2 && totals["en-iPhone/C"] == 1 && totals["fr-Android/A"] == 2)
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

    @Test(arguments: [
        ("catalogue.json", "{\"categories\": []}", "'{'"), ("list.json", "\u{FEFF}  [1]", "'['"),
        ("notes.txt", "games", "'g'"),
    ])
    func aFileThatCannotBeAFeedSaysWhatWasAssumedAndWhatASourceCanBe(name: String, text: String, shown: String) throws {
        // Given a file source that is not XML
        let directory = try TemporaryDirectory()
        let file = directory.child(name)
        try Data(text.utf8).write(to: file)
        // When it is opened as detected
        let error = #expect(throws: PipelineError.self) {
            try SourceKind.detect(file.path).open(file.path, configuration: .default)
        }
        // Then the error names the file, the assumption, its first character and the kinds of source
        #expect(error?.code == .malformedInput)
        #expect(error?.file == file.path)
        for part in ["read as an XML feed", shown, "a directory of recorded responses", "http(s) base URL", "--kind"] {
            #expect(error?.message.contains(part) == true, "\(part) in \(error?.message ?? "")")
        }
        #expect(error?.message.contains("(JSON?)") == name.hasSuffix(".json"))
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
