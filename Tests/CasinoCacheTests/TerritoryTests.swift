@_spi(Tiers) import CasinoCache
import CasinoCacheTesting
import CasinoCatalog
import CatalogSupport
import Foundation
import Testing

@Suite struct TerritoryTests {
    @Test(arguments: [("gb", "GB"), ("CA-ON", "CA-ON"), ("ca-on", "CA-ON"), ("Gb-Eng", "GB-ENG"), ("us-ca", "US-CA")])
    func parsesACodeInAnyCase(_ text: String, _ code: String) {
        #expect(Territory(text)?.code == code)
    }

    /// Dotless ı upper-cases to I in Unicode: only ASCII is folded, so "ıt" is no Italy.
    @Test(arguments: ["", "G", "GBR", "CA-", "CA-ONTA", "CA_ON", " GB", "GB ", "ıt", "ÇA", "C1", "CA-ON-X", "--"])
    func refusesWhatIsNotATerritoryCode(_ text: String) {
        #expect(Territory(text) == nil)
    }

    @Test func aCountryRestrictionCoversItsSubdivisionsAndASubdivisionRestrictionOnlyItself() throws {
        let ontario = try #require(Territory("CA-ON"))
        let canada = try #require(Territory("CA"))
        #expect(ontario.isRestricted(byAnyOf: ["CA"]))
        #expect(ontario.isRestricted(byAnyOf: ["ca-on"]))
        #expect(!ontario.isRestricted(byAnyOf: ["CA-QC", "US", "GB-ON"]))
        #expect(canada.isRestricted(byAnyOf: ["CA"]))
        #expect(!canada.isRestricted(byAnyOf: ["CA-ON"]))
        #expect(!canada.isRestricted(byAnyOf: []))
    }

    @Test(arguments: ["C@", "CANADA", "", "CA-"])
    func aMalformedRestrictionWithholdsTheGameEverywhere(_ code: String) throws {
        #expect(try #require(Territory("GB")).isRestricted(byAnyOf: [code]))
    }
}

/// Territory rules at read time: a bundle and an upstream whose pages hold games restricted in
/// Canada, Ontario and Great Britain, and a cache on a real directory.
@Suite(.timeLimit(.minutes(2)))
struct TerritoryAnswerTests {
    let directory: TemporaryDirectory
    let clock = ManualClock(now: Date(timeIntervalSince1970: 1_795_003_600))
    let upstream: ScriptedUpstream
    let bundle: URL
    static let categoryId = "SLOTS"

    /// Ten games: 0 restricted in CA, 1 in CA-ON, 2 in GB and CA-QC, the rest nowhere.
    static let page = GamesPage(
        categoryId: categoryId, offset: 0, limit: 10, total: 10,
        items: (0..<10).map { index in
            Game(
                id: "g\(index)", name: "Game \(index)", slug: "game-\(index)",
                launchUrl: "https://play.example.com/\(index)", thumbnail: "https://img.example.com/\(index).png",
                restrictedTerritories: [["CA"], ["CA-ON"], ["GB", "CA-QC"]].indices.contains(index)
                    ? [["CA"], ["CA-ON"], ["GB", "CA-QC"]][index] : [])
        })

    init() throws {
        directory = try TemporaryDirectory()
        upstream = ScriptedUpstream(clock: clock)
        var snapshot = TestBundle(generatedAt: Date(timeIntervalSince1970: 1_795_000_000))
        snapshot.add(
            CategoryList(items: [Category(id: Self.categoryId, name: "Slots", gamesTotal: 10)]), edition: english)
        snapshot.add(Self.page, edition: english)
        bundle = try snapshot.write(to: directory.child("out"))
    }

    func makeCache(
        _ configure: (inout CatalogCache.Configuration) -> Void = { _ in }, bundled: Bool = true
    ) -> CatalogCache {
        var configuration = CatalogCache.Configuration.default
        configure(&configuration)
        return CatalogCache(
            configuration: configuration, upstream: upstream, cacheDirectory: directory.child("cache"),
            bundleDirectory: bundled ? bundle : nil, clock: clock, logger: silentLogger)
    }

    static func ids(_ result: CacheResult<GamesPage>) -> [String] { result.value?.items.map(\.id) ?? [] }

    @Test(arguments: [
        ("CA-ON", ["g2", "g3", "g4", "g5", "g6", "g7", "g8", "g9"]),
        ("CA", ["g1", "g2", "g3", "g4", "g5", "g6", "g7", "g8", "g9"]),
        ("CA-QC", ["g1", "g3", "g4", "g5", "g6", "g7", "g8", "g9"]),
        ("FR", ["g0", "g1", "g2", "g3", "g4", "g5", "g6", "g7", "g8", "g9"]),
    ])
    func everyTierAndEveryReadLeavesOutWhatTheTerritoryRestricts(_ code: String, _ shown: [String]) async throws {
        // Given a player in `code`
        let cache = makeCache()
        cache.setTerritory(Territory(code))
        // When the first frame reads the bundle, the memory answers again, and the async reads ask
        let first = cache.cachedGamesPage(edition: english, categoryId: Self.categoryId)
        let again = cache.cachedGamesPage(edition: english, categoryId: Self.categoryId)
        let asked = try await cache.gamesPage(edition: english, categoryId: Self.categoryId)
        let content = cache.cachedContent(for: .gamesPage(english, categoryId: Self.categoryId, offset: 0))
        // Then each leaves out the restricted games, says how many, and keeps the page consistent
        for (name, answer) in [("bundle", first), ("memory", again), ("async", asked)] {
            #expect(Self.ids(answer) == shown, "\(name)")
            #expect(answer.metadata?.withheld == 10 - shown.count, "\(name)")
            #expect(answer.value?.count == shown.count && answer.value?.total == 10, "\(name)")
        }
        guard case .gamesPage(let page)? = content.value else {
            Issue.record("no page: \(content)")
            return
        }
        #expect(page.items.map(\.id) == shown)
        #expect(first.metadata?.tier == .bundled && again.metadata?.tier == .memory)
    }

    @Test func changingTheTerritoryChangesTheVeryNextAnswerFromMemory() throws {
        // Given a page in memory answered for Ontario
        let cache = makeCache()
        cache.setTerritory(Territory("CA-ON"))
        _ = cache.cachedGamesPage(edition: english, categoryId: Self.categoryId)
        #expect(cache.cachedGamesPage(edition: english, categoryId: Self.categoryId).metadata?.withheld == 2)
        // When the player moves to Great Britain, then back, then the territory is forgotten
        cache.setTerritory(Territory("GB"))
        let british = cache.cachedGamesPage(edition: english, categoryId: Self.categoryId)
        cache.setTerritory(Territory("CA-ON"))
        let ontario = cache.cachedGamesPage(edition: english, categoryId: Self.categoryId)
        cache.setTerritory(nil)
        let unknown = cache.cachedGamesPage(edition: english, categoryId: Self.categoryId)
        // Then each answer is filtered for the territory of its moment
        #expect(
            british.metadata?.tier == .memory && Self.ids(british).contains("g0") && !Self.ids(british).contains("g2"))
        #expect(ontario.metadata?.withheld == 2 && Self.ids(ontario).first == "g2")
        #expect(unknown.metadata?.withheld == 3)
    }

    @Test func fetchedAndDiskContentIsFilteredToo() async throws {
        // Given no bundle, an upstream serving the page, and a player in Ontario
        upstream.script(.gamesPage(english, categoryId: Self.categoryId, offset: 0), .content(.gamesPage(Self.page)))
        let first = makeCache(bundled: false)
        first.setTerritory(Territory("CA-ON"))
        // When the page is fetched, then read by the next launch from disk
        let fetched = try await first.gamesPage(edition: english, categoryId: Self.categoryId)
        await first.flush()
        let relaunched = makeCache(bundled: false)
        let fromDisk = relaunched.cachedGamesPage(edition: english, categoryId: Self.categoryId)
        // Then both leave out g0 and g1
        #expect(fetched.metadata?.tier == .upstream && Self.ids(fetched).first == "g2")
        #expect(fromDisk.metadata?.tier == .disk && Self.ids(fromDisk).first == "g2")
        #expect(fromDisk.metadata?.withheld == 2)
    }

    @Test func beforeAnyTerritoryThePolicyDecides() throws {
        // Given no territory known
        let conservative = makeCache()
        let open = makeCache { $0.unknownTerritoryPolicy = .showAll }
        // Then by default every game restricted anywhere is withheld, and with showAll none is
        let hidden = conservative.cachedGamesPage(edition: english, categoryId: Self.categoryId)
        #expect(Self.ids(hidden) == ["g3", "g4", "g5", "g6", "g7", "g8", "g9"])
        #expect(hidden.metadata?.withheld == 3)
        let shown = open.cachedGamesPage(edition: english, categoryId: Self.categoryId)
        #expect(Self.ids(shown).count == 10 && shown.metadata?.withheld == 0)
        #expect(conservative.territory == nil)
    }

    @Test func aPageWithoutRestrictedGamesIsAnsweredAsItIs() async throws {
        // Given a territory and a page of the unrestricted games only, fetched into memory
        var unrestricted = Self.page
        unrestricted.items.removeFirst(3)
        unrestricted.count = 7
        unrestricted.total = 7
        upstream.script(.gamesPage(english, categoryId: Self.categoryId, offset: 0), .content(.gamesPage(unrestricted)))
        let cache = makeCache(bundled: false)
        cache.setTerritory(Territory("GB"))
        _ = try await cache.gamesPage(edition: english, categoryId: Self.categoryId)
        // Then its answer is the page itself, nothing withheld
        let answer = cache.cachedGamesPage(edition: english, categoryId: Self.categoryId)
        #expect(answer.value == unrestricted && answer.metadata?.withheld == 0)
    }

    @Test func theTerritoryIsSavedForTheNextLaunchsFirstFrame() async throws {
        // Given a player who set Ontario
        let first = makeCache()
        first.setTerritory(Territory("ca-on"))
        await first.flush()
        // When the app relaunches
        let relaunched = makeCache()
        // Then the first frame already leaves out what Ontario restricts
        #expect(relaunched.territory == Territory("CA-ON"))
        #expect(Self.ids(relaunched.cachedGamesPage(edition: english, categoryId: Self.categoryId)).first == "g2")
        // And forgetting it is saved too
        relaunched.setTerritory(nil)
        await relaunched.flush()
        #expect(makeCache().territory == nil)
    }

    enum SavedDamage: String, CaseIterable {
        case garbage, truncated, tooLong, lowerCaseWithoutNewline, symlink, directory
    }

    @Test(arguments: SavedDamage.allCases)
    func aDamagedSavedTerritoryIsNoneNeverAWiderOne(_ damage: SavedDamage) async throws {
        // Given a saved territory, then damaged
        let first = makeCache()
        first.setTerritory(Territory("FR"))
        await first.flush()
        let file = directory.child("cache").appendingPathComponent("Territory")
        try FileManager.default.removeItem(at: file)
        switch damage {
        case .garbage: try Data([0xFF, 0x00, 0x41, 0x0A]).write(to: file)
        case .truncated: try Data("F".utf8).write(to: file)
        case .tooLong: try Data((String(repeating: " ", count: 100) + "FR\n").utf8).write(to: file)
        case .lowerCaseWithoutNewline: try Data("fr".utf8).write(to: file)
        case .symlink:
            try Data("FR\n".utf8).write(to: directory.child("elsewhere"))
            try FileManager.default.createSymbolicLink(at: file, withDestinationURL: directory.child("elsewhere"))
        case .directory: try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
        }
        // When the app relaunches
        let relaunched = makeCache()
        // Then no territory is assumed: the conservative policy withholds every restricted game
        #expect(relaunched.territory == nil)
        #expect(relaunched.cachedGamesPage(edition: english, categoryId: Self.categoryId).metadata?.withheld == 3)
    }

    @Test func updatesLeaveOutWithheldGamesAndTheirIds() async throws {
        // Given a player in Great Britain watching the updates, and a fetch of the page
        upstream.script(.gamesPage(english, categoryId: Self.categoryId, offset: 0), .content(.gamesPage(Self.page)))
        let cache = makeCache(bundled: false)
        cache.setTerritory(Territory("GB"))
        let updates = UpdateCollector(cache.updates())
        // When the page arrives
        _ = try await cache.gamesPage(edition: english, categoryId: Self.categoryId)
        await updates.wait(for: 1)
        // Then the update carries the page without g2, and does not list it as inserted
        let update = try #require(updates.contentUpdates.first)
        #expect(!update.1.ids.contains("g2") && update.1.ids.count == 9)
        #expect(!update.2.inserted.contains("g2") && update.2.inserted.count == 9)
    }

    @Test func imagesOfWithheldGamesAreNotPrefetched() throws {
        // Given an image hook and a player in Canada
        let cache = makeCache()
        let hook = RecordingImageHook()
        var prefetching = CatalogCache.ImagePrefetching()
        prefetching.imagesPerPage = 10
        cache.setImageHook(hook, prefetching: prefetching)
        cache.setTerritory(Territory("CA"))
        // When the first frame reads the bundled page
        _ = cache.cachedGamesPage(edition: english, categoryId: Self.categoryId)
        // Then g0's thumbnail (restricted in CA) is not asked for; the others are
        let urls = hook.prefetchedURLs.map(\.absoluteString)
        #expect(!urls.contains("https://img.example.com/0.png"))
        #expect(urls.contains("https://img.example.com/1.png") && urls.count == 9)
    }
}
