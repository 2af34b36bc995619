@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

/// `catalog inspect-cache --report`: a report an app wrote from `CatalogCache.inspection()`, shown as
/// text, JSON and a static page looked at in headless Chromium.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct CatalogInspectCacheCommandTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// Where the screenshot of the report's page is kept: `.catalog/` (git-ignored).
    static let screenshot = repositoryRoot.appendingPathComponent(".catalog/cache-report-screenshot.png")

    /// The report of a cache in Ontario that read a page from its bundle, with list 3 withdrawing
    /// g3 there, written as the documentation of `inspection()` writes it.
    func writeReport() async throws -> URL {
        let edition = try Edition(id: "en-iPhone")
        let bundle = makeBundle(edition)
        let cache = CatalogCache(
            upstream: ScriptedUpstream(), cacheDirectory: directory.child("cache"),
            bundleDirectory: try bundle.write(to: directory.child("bundle")))
        cache.setTerritory(Territory("CA-ON"))
        try cache.applyWithdrawals(
            WithdrawalList(sequence: 3, games: [Withdrawal(id: "g3", territories: ["CA-ON"])]))
        _ = cache.cachedCategories(edition: edition)
        _ = cache.cachedGamesPage(edition: edition, categoryId: "SLOTS")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let file = directory.child("cache-report.json")
        try encoder.encode(await cache.inspection()).write(to: file)
        return file
    }

    @Test func aReportIsPrintedWithEachWithheldGamesReasonAndReadBackAsTheSameJSON() async throws {
        let file = try await writeReport()

        let text = try await CatalogBinary.run(["inspect-cache", "--report", file.path])
        let json = try await CatalogBinary.run(["inspect-cache", "--report", file.path, "--json"])

        #expect(text.status == 0, "\(text.standardError)")
        #expect(text.standardOutput.contains("global/en-iPhone/games/SLOTS/0  bundled from memory (bundle)"))
        #expect(text.standardOutput.contains("withheld g1: restricted in CA-ON"))
        #expect(text.standardOutput.contains("withheld g3: withdrawn by list 3 in CA-ON"))
        #expect(text.standardOutput.contains("Territory: CA-ON") && text.standardOutput.contains("Withdrawals: list 3"))
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(json.status == 0, "\(json.standardError)")
        #expect(
            try decoder.decode(CacheInspection.self, from: Data(json.standardOutput.utf8))
                == decoder.decode(CacheInspection.self, from: Data(contentsOf: file)))
    }

    @Test func thePageShowsEveryKeyAndReasonEscapedAndReplacesOnlyItsOwnDirectory() async throws {
        let file = try await writeReport()
        let page = directory.child("report")

        // When the page is written twice (the second run replaces the first)
        for _ in 0..<2 {
            let result = try await CatalogBinary.run(["inspect-cache", "--report", file.path, "--html", page.path])
            try #require(result.status == 0, "\(result.standardError)")
        }

        // Then the browser shows the key and the reasons, and the names from the catalogue stay text
        let dom = try await HeadlessChromium.dumpDOM(
            of: page.appendingPathComponent("index.html"), profile: directory.child("profile"))
        #expect(dom.contains("global/en-iPhone/games/SLOTS/0"))
        #expect(dom.contains("restricted in CA-ON") && dom.contains("withdrawn by list 3 in CA-ON"))
        #expect(!dom.contains("<0>"), "a value from the report must never become markup")
        // And the lobby shows each game in place, a withheld one marked with its reason, the category
        // with no cached page saying so, and each thumbnail from the provider's CDN as its URL, not an image
        #expect(dom.contains(#"<li class="tile" data-game-id="g0" data-withheld="false">"#))
        #expect(
            dom.contains(#"data-game-id="g1" data-withheld="true""#) && dom.contains("withheld: restricted in CA-ON"))
        #expect(dom.contains("withheld: withdrawn by list 3 in CA-ON") && dom.contains("Game &lt;3&gt;"))
        #expect(dom.contains(#"data-category-id="LIVE""#) && dom.contains("No page cached"))
        #expect(dom.contains("https://img.example.com/2.png") && !dom.contains("<img"))
        try FileManager.default.createDirectory(
            at: Self.screenshot.deletingLastPathComponent(), withIntermediateDirectories: true)
        try await HeadlessChromium.screenshot(
            of: page.appendingPathComponent("index.html"), to: Self.screenshot, profile: directory.child("profile"),
            height: 900)

        // And a directory holding someone else's file is refused and left as it was
        let foreign = directory.child("notes")
        try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: foreign.appendingPathComponent("todo.txt"))
        let refused = try await CatalogBinary.run(["inspect-cache", "--report", file.path, "--html", foreign.path])
        #expect(refused.status == 73 && refused.standardError.contains("todo.txt"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: foreign.path) == ["todo.txt"])
    }

    /// A device's cache directory after a day: a territory set, a list withdrawing g3 pushed, the page
    /// fetched and saved, and a player's favourite queued offline; and a stranger's file beside them.
    @Test func aDevicesDirectoryIsShownOfflineWithItsReasonsAndLeftAsItWas() async throws {
        let edition = try Edition(id: "en-iPhone")
        let bundle = try makeBundle(edition).write(to: directory.child("bundle"))
        let cacheDirectory = directory.child("device-cache")
        let upstream = ScriptedUpstream()
        upstream.script(
            CacheKey.gamesPage(edition, categoryId: "SLOTS", offset: 0), .content(.gamesPage(Self.page), etag: "\"v7\"")
        )
        upstream.scriptMutations(.unscripted)
        do {
            var configuration = CatalogCache.Configuration.default
            configuration.playerListLimit = 10
            let cache = CatalogCache(
                configuration: configuration, upstream: upstream, cacheDirectory: cacheDirectory,
                bundleDirectory: bundle)
            cache.setTerritory(Territory("CA-ON"))
            try cache.applyWithdrawals(
                WithdrawalList(sequence: 3, games: [Withdrawal(id: "g3", territories: ["CA-ON"])]))
            _ = try await cache.gamesPage(edition: edition, categoryId: "SLOTS")
            #expect(
                try await cache.addFavourite(Self.page.items[0], edition: edition, player: "player-4711") == .queued)
            await cache.flush()
        }
        try Data("mine".utf8).write(to: cacheDirectory.appendingPathComponent("notes.txt"))
        let listing = try FileManager.default.subpathsOfDirectory(atPath: cacheDirectory.path).sorted()
        let page = directory.child("device-report")

        let result = try await CatalogBinary.run([
            "inspect-cache", cacheDirectory.path, "--bundle", bundle.path, "--html", page.path,
        ])

        #expect(result.status == 0, "\(result.standardError)")
        let text = result.standardOutput
        #expect(text.contains("global/en-iPhone/games/SLOTS/0  fresh from disk (network)"), "\(text)")
        #expect(text.contains("etag \"v7\""))
        #expect(
            text.contains("withheld g1: restricted in CA-ON")
                && text.contains("withheld g3: withdrawn by list 3 in CA-ON"))
        #expect(text.contains("players with unsent changes: 1") && !text.contains("player-4711"))
        #expect(text.contains("not ours: notes.txt"))
        #expect(try FileManager.default.subpathsOfDirectory(atPath: cacheDirectory.path).sorted() == listing)
        let dom = try await HeadlessChromium.dumpDOM(
            of: page.appendingPathComponent("index.html"), profile: directory.child("profile"))
        #expect(dom.contains("withdrawn by list 3 in CA-ON") && dom.contains("notes.txt"))
        // And the device never read the category list: the lobby opens in the snapshot's order
        #expect(text.contains("global/en-iPhone/categories  bundled from bundled (bundle)"), "\(text)")
        let slots = try #require(dom.range(of: #"data-category-id="SLOTS""#))
        let live = try #require(dom.range(of: #"data-category-id="LIVE""#))
        #expect(slots.lowerBound < live.lowerBound && !dom.contains("not in the cached category list"))
        try FileManager.default.createDirectory(
            at: Self.screenshot.deletingLastPathComponent(), withIntermediateDirectories: true)
        try await HeadlessChromium.screenshot(
            of: page.appendingPathComponent("index.html"), to: Self.directoryScreenshot,
            profile: directory.child("profile"), height: 900)

        // And a directory that is no cache is refused by name
        let refused = try await CatalogBinary.run(["inspect-cache", bundle.path])
        #expect(refused.status == 65 && refused.standardError.contains("holds nothing a cache writes"))
    }

    /// Where the screenshot of a device directory's page is kept.
    static let directoryScreenshot = repositoryRoot.appendingPathComponent(".catalog/inspect-cache-screenshot.png")

    static let page = GamesPage(
        categoryId: "SLOTS", offset: 0, limit: 10, total: 4,
        items: (0..<4).map { index in
            Game(
                id: "g\(index)", name: "Game <\(index)>", slug: "game-\(index)",
                launchUrl: "https://play.example.com/\(index)", thumbnail: "https://img.example.com/\(index).png",
                restrictedTerritories: index == 1 ? ["CA"] : [])
        })

    func makeBundle(_ edition: Edition) -> TestBundle {
        var bundle = TestBundle()
        bundle.add(
            CategoryList(items: [
                Category(id: "SLOTS", name: "Slots", gamesTotal: 4), Category(id: "LIVE", name: "Live", gamesTotal: 2),
            ]), edition: edition)
        bundle.add(Self.page, edition: edition)
        return bundle
    }

    /// A report an older version wrote (no `listing`) still renders; and a thumbnail is an image only
    /// where the page's policy lets it load (a relative path), never a URL elsewhere.
    @Test func aReportWithoutListingsRendersAndOnlyARelativeThumbnailIsAnImage() async throws {
        let file = try await writeReport()
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let entries = try #require(object["entries"] as? [[String: Any]])
        let old = directory.child("old-report.json")
        object["entries"] = entries.map { $0.filter { $0.key != "listing" } }
        try JSONSerialization.data(withJSONObject: object).write(to: old)
        let relative = directory.child("relative-report.json")
        object["entries"] = entries.map { entry in
            entry.mapValues { value in
                guard let items = value as? [[String: Any]], items.first?["thumbnail"] != nil else { return value }
                return items.map { $0.merging(["thumbnail": "images/a.png"]) { _, new in new } }
            }
        }
        try JSONSerialization.data(withJSONObject: object).write(to: relative)

        let oldResult = try await CatalogBinary.run(["inspect-cache", "--report", old.path, "--html", old.path + ".d"])
        let relativeResult = try await CatalogBinary.run([
            "inspect-cache", "--report", relative.path, "--html", relative.path + ".d",
        ])

        try #require(oldResult.status == 0, "\(oldResult.standardError)")
        let oldPage = try String(contentsOfFile: old.path + ".d/index.html", encoding: .utf8)
        #expect(oldPage.contains("4 items; their names are not in this report (written by an older version)"))
        #expect(oldPage.contains("withheld: g1 (restricted in CA-ON), g3 (withdrawn by list 3 in CA-ON)"))
        #expect(oldPage.contains(#"data-category-id="SLOTS""#) && !oldPage.contains(#"class="tile""#))
        try #require(relativeResult.status == 0, "\(relativeResult.standardError)")
        let relativePage = try String(contentsOfFile: relative.path + ".d/index.html", encoding: .utf8)
        #expect(relativePage.contains(#"<img class="thumb" src="images/a.png" alt="Game &lt;0&gt;">"#))
    }

    /// One way to read at a time, each with what it needs: misuse exits 64, a missing directory 66.
    @Test(arguments: [
        (["--report", "r.json", "--shared", "s"], 64), (["d", "--support", "s"], 64),
        (["--shared", "s", "--support", "p", "--public-key", "k"], 64), (["--shared", "/nonexistent/shared"], 66),
        (["--report", "r.json", "--bundle", "b"], 64),
    ])
    func eachWayToReadTakesWhatItNeeds(arguments: [String], status: Int) async throws {
        let result = try await CatalogBinary.run(["inspect-cache"] + arguments)

        #expect(Int(result.status) == status, "\(result.standardError)")
    }

    @Test func aFileThatIsNotAReportIsRefusedByName() async throws {
        let file = directory.child("manifest.json")
        try Data(#"{"schemaVersion": 1}"#.utf8).write(to: file)

        let result = try await CatalogBinary.run(["inspect-cache", "--report", file.path])
        let missing = try await CatalogBinary.run(["inspect-cache", "--report", directory.child("absent.json").path])

        #expect(result.status == 65 && result.standardError.contains("manifest.json"))
        #expect(result.standardError.contains("not a cache report"))
        #expect(missing.status == 66)
        // And a link in place of a report is not followed (the size cap reads regular files only)
        let link = directory.child("linked.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
        let linked = try await CatalogBinary.run(["inspect-cache", "--report", link.path])
        #expect(linked.status == 65 && linked.standardError.contains("not a regular file"), "\(linked.standardError)")
    }
}
