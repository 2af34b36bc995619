@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
@_spi(CatalogTools) import ProviderAPI
import Testing

@Suite struct NormalizerTests {
    let directory: TemporaryDirectory
    let recording: RecordingBuilder

    init() throws {
        directory = try TemporaryDirectory()
        recording = RecordingBuilder(root: directory.child("provider"))
        try recording.writeMetadata(editions: [enIPhone])
    }

    func normalize(_ configuration: PipelineConfiguration = .default) throws -> Normalizer.Result {
        let source = try RecordedProviderSource(directory: recording.layout.root)
        return try Normalizer(configuration: configuration, logger: quietLogger).normalize(source)
    }

    @Test func dropsEmptyCategoriesAndKeepsProviderOrder() throws {
        // Given three categories, the middle one empty
        try recording.writeCategories([("SLOTS", "Slots", 12), ("EMPTY", "Empty", 0), ("LIVE", "Live", 3)])
        try recording.writeCategory("SLOTS", games: 12)
        try recording.writeCategory("LIVE", games: 3, firstID: 100)
        // When normalized
        let edition = try normalize().catalog.editions[0]
        // Then the empty one is gone and the order and pages are the provider's
        #expect(edition.categories.items.map(\.id) == ["SLOTS", "LIVE"])
        #expect(
            edition.pages.map { "\($0.categoryId)@\($0.offset)#\($0.count)" } == [
                "SLOTS@0#10", "SLOTS@10#2", "LIVE@0#3",
            ])
        #expect(edition.pages[0].items.map(\.id) == (1...10).map(String.init))
        #expect(edition.pages[0].items[0].thumbnail == "https://static.example.com/1.jpg")
        #expect(edition.pages[0].items[0].rtp == 0.965)
    }

    @Test func skipsAnInvalidRecordWithAWarningNamingFileAndRecord() throws {
        // Given 30 records, one with an http launch URL (3 %, under the 5 % default)
        try recording.writeCategories([("SLOTS", "Slots", 30)])
        try recording.writeCategory("SLOTS", games: 30)
        var bad = RecordingBuilder.game(15)
        bad.launchUrl = "http://insecure.example.com/15"
        var page = (11...20).map { RecordingBuilder.game($0) }
        page[4] = bad
        try recording.writePage(page, category: "SLOTS", offset: 10, total: 30)
        // When normalized
        let result = try normalize()
        // Then the record is skipped, named by file, index and field, leaving a hole in its page
        // (later pages keep the provider's offsets and the total stays the provider's)
        let warning = try #require(result.warnings.first { $0.message.contains("launchUrl") })
        #expect(warning.file.hasSuffix("games/\(FileNaming.component(for: "SLOTS"))/10.json"))
        #expect(warning.record == "items[4]")
        #expect(warning.message.contains("game 15"))
        let pages = result.catalog.editions[0].pages
        #expect(pages.map(\.count) == [10, 9, 10])
        #expect(pages.map(\.offset) == [0, 10, 20])
        #expect(!pages[1].items.contains { $0.id == "15" })
        #expect(pages.allSatisfy { $0.total == 30 })
        #expect(result.catalog.editions[0].categories.items[0].gamesTotal == 30)
    }

    @Test func failsWhenMoreThanTheAllowedShareOfACategoryIsInvalid() throws {
        // Given 10 records of which 1 has no name (10 %)
        try recording.writeCategories([("SLOTS", "Slots", 10)])
        var games = (1...10).map { RecordingBuilder.game($0) }
        games[3].name = ""
        try recording.writePage(games, category: "SLOTS", offset: 0, total: 10)
        // Then the build fails, naming the category and the share
        let error = #expect(throws: PipelineError.self) { try normalize() }
        #expect(error?.code == .invalidContent)
        #expect(error?.message.contains("1 of 10 records are invalid") == true)
        // And a higher allowance lets it through
        var lenient = PipelineConfiguration.default
        lenient.maxInvalidShare = 0.2
        #expect(try normalize(lenient).catalog.editions[0].pages[0].count == 9)
    }

    @Test(arguments: [
        ("{\"count\": 1, \"items\": [", "malformed JSON"), ("", "empty (0 bytes)"),
        ("{\"count\": \"many\", \"items\": []}", "count"), ("{\"items\": \"nope\"}", "items"), ("[1, 2]", "expected"),
    ])
    func failsOnAMalformedPageNamingTheFile(text: String, expected: String) throws {
        try recording.writeCategories([("SLOTS", "Slots", 10)])
        try recording.writeRawPage(text, category: "SLOTS", offset: 0)
        let error = #expect(throws: PipelineError.self) { try normalize() }
        #expect(error?.code == .malformedInput)
        #expect(error?.file?.hasSuffix("/0.json") == true)
        #expect(error?.description.contains(expected) == true)
    }

    @Test func skipsARecordWithWrongTypesAndSaysWhichField() throws {
        try recording.writeCategories([("SLOTS", "Slots", 30)])
        try recording.writeCategory("SLOTS", games: 30)
        let games = try String(data: JSONEncoder().encode((1...9).map { RecordingBuilder.game($0) }), encoding: .utf8)!
        let page =
            #"{"count": 10, "total": 30, "items": [{"id": "99", "name": {"en": "Object"}}, "# + games.dropFirst() + "}"
        try recording.writeRawPage(page, category: "SLOTS", offset: 0)
        let result = try normalize()
        let warning = try #require(result.warnings.first { $0.record == "items[0]" })
        #expect(warning.message.contains("name"))
    }

    @Test func keepsTheFirstOfDuplicatesAcrossPages() throws {
        // Given game 5 on page 0 and again on page 10
        try recording.writeCategories([("SLOTS", "Slots", 20)])
        try recording.writeCategory("SLOTS", games: 20)
        var second = (11...20).map { RecordingBuilder.game($0) }
        second[2] = RecordingBuilder.game(5, name: "Game 5 again")
        try recording.writePage(second, category: "SLOTS", offset: 10, total: 20)
        // When normalized
        let result = try normalize()
        // Then the later copy is dropped with a warning and the first copy kept
        let items = result.catalog.editions[0].pages.flatMap(\.items)
        #expect(items.filter { $0.id == "5" }.map(\.name) == ["Game 5"])
        #expect(items.count == 19)
        #expect(result.catalog.editions[0].pages.map(\.count) == [10, 9])
        #expect(result.warnings.contains { $0.message.contains("duplicate") && $0.record.contains("game 5") })
    }

    @Test func keepsOnlyTheConfiguredNumberOfPages() throws {
        try recording.writeCategories([("SLOTS", "Slots", 95)])
        try recording.writeCategory("SLOTS", games: 95)
        var configuration = PipelineConfiguration.default
        configuration.pageSize = 20
        configuration.maxPagesPerCategory = 2
        let pages = try normalize(configuration).catalog.editions[0].pages
        #expect(pages.map(\.offset) == [0, 20])
        #expect(pages.allSatisfy { $0.limit == 20 && $0.total == 95 && $0.hasMore })
    }

    @Test func bundlesOnlyFullyRecordedPages() throws {
        // Given a provider total of 40 but only 15 records recorded
        try recording.writeCategories([("SLOTS", "Slots", 40)])
        try recording.writePage((1...10).map { RecordingBuilder.game($0) }, category: "SLOTS", offset: 0, total: 40)
        try recording.writePage((11...15).map { RecordingBuilder.game($0) }, category: "SLOTS", offset: 10, total: 40)
        // When normalized
        let result = try normalize()
        // Then only the complete first page is bundled, with a warning
        #expect(result.catalog.editions[0].pages.map(\.offset) == [0])
        #expect(result.warnings.contains { $0.message.contains("ends mid-page") })
    }

    @Test func failsWhenACategoryWithGamesHasNoPages() throws {
        try recording.writeCategories([("SLOTS", "Slots", 10), ("LIVE", "Live", 5)])
        try recording.writeCategory("SLOTS", games: 10)
        let error = #expect(throws: PipelineError.self) { try normalize() }
        #expect(error?.code == .invalidContent)
        #expect(error?.message.contains("category LIVE") == true)
    }

    @Test func failsWhenAnEditionHasNoCategoryWithGames() throws {
        try recording.writeCategories([("EMPTY", "Empty", 0)])
        let error = #expect(throws: PipelineError.self) { try normalize() }
        #expect(error?.message.contains("no category with games") == true)
    }

    @Test func failsOnAPageMissingFromTheMiddle() throws {
        try recording.writeCategories([("SLOTS", "Slots", 30)])
        try recording.writeCategory("SLOTS", games: 30)
        try FileManager.default.removeItem(
            at: recording.layout.gamesPageFile(for: enIPhone, categoryId: "SLOTS", offset: 10))
        let error = #expect(throws: PipelineError.self) { try normalize() }
        #expect(error?.message.contains("offset 20 does not continue") == true)
    }

    @Test func requiresAFetchTimeOrSourceDateEpoch() throws {
        try FileManager.default.removeItem(at: recording.layout.metadataFile)
        try recording.writeCategories([("SLOTS", "Slots", 3)])
        try recording.writeCategory("SLOTS", games: 3)
        let source = try RecordedProviderSource(directory: recording.layout.root)
        let normalizer = Normalizer(configuration: .default, logger: quietLogger)
        #expect(throws: PipelineError.self) { try normalizer.normalize(source) }
        let stamp = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(try normalizer.normalize(source, generatedAt: stamp).catalog.generatedAt == stamp)
    }

    @Test func refusesAFileOverTheSizeCap() throws {
        try recording.writeCategories([("SLOTS", "Slots", 10)])
        try recording.writeCategory("SLOTS", games: 10)
        var configuration = PipelineConfiguration.default
        configuration.limits.maxJSONFileBytes = 1000
        let source = try RecordedProviderSource(directory: recording.layout.root, limits: configuration.limits)
        let error = #expect(throws: PipelineError.self) {
            try Normalizer(configuration: configuration, logger: quietLogger).normalize(source)
        }
        #expect(error?.code == .inputTooLarge)
    }
}
