@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
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

/// Territory rules at read time, in ``RestrictedLobby``.
@Suite(.timeLimit(.minutes(2)))
struct TerritoryAnswerTests {
    let lobby: RestrictedLobby

    init() throws {
        lobby = try RestrictedLobby()
    }

    @Test(arguments: [
        ("CA-ON", ["g2", "g3", "g4", "g5", "g6", "g7", "g8", "g9"]),
        ("CA", ["g1", "g2", "g3", "g4", "g5", "g6", "g7", "g8", "g9"]),
        ("CA-QC", ["g1", "g3", "g4", "g5", "g6", "g7", "g8", "g9"]),
        ("FR", ["g0", "g1", "g2", "g3", "g4", "g5", "g6", "g7", "g8", "g9"]),
    ])
    func everyTierAndEveryReadLeavesOutWhatTheTerritoryRestricts(_ code: String, _ shown: [String]) async throws {
        // Given a player in `code`
        let cache = lobby.makeCache()
        cache.setTerritory(Territory(code))
        // When the first frame reads the bundle, the memory answers again, and the async reads ask
        let first = cache.cachedGamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
        let again = cache.cachedGamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
        let asked = try await cache.gamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
        let content = cache.cachedContent(for: RestrictedLobby.key)
        // Then each leaves out the restricted games, says how many, and keeps the page consistent
        for (name, answer) in [("bundle", first), ("memory", again), ("async", asked)] {
            #expect(RestrictedLobby.ids(answer) == shown, "\(name)")
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
        let cache = lobby.makeCache()
        cache.setTerritory(Territory("CA-ON"))
        _ = cache.cachedGamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
        #expect(cache.cachedGamesPage(edition: english, categoryId: RestrictedLobby.categoryId).metadata?.withheld == 2)
        // When the player moves to Great Britain, then back, then the territory is forgotten
        cache.setTerritory(Territory("GB"))
        let british = cache.cachedGamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
        cache.setTerritory(Territory("CA-ON"))
        let ontario = cache.cachedGamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
        cache.setTerritory(nil)
        let unknown = cache.cachedGamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
        // Then each answer is filtered for the territory of its moment
        #expect(
            british.metadata?.tier == .memory && RestrictedLobby.ids(british).contains("g0")
                && !RestrictedLobby.ids(british).contains("g2"))
        #expect(ontario.metadata?.withheld == 2 && RestrictedLobby.ids(ontario).first == "g2")
        #expect(unknown.metadata?.withheld == 3)
    }

    @Test func fetchedAndDiskContentIsFilteredToo() async throws {
        // Given no bundle, an upstream serving the page, and a player in Ontario
        lobby.upstream.script(
            RestrictedLobby.key,
            .content(.gamesPage(RestrictedLobby.page)))
        let first = lobby.makeCache(bundled: false)
        first.setTerritory(Territory("CA-ON"))
        // When the page is fetched, then read by the next launch from disk
        let fetched = try await first.gamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
        await first.flush()
        let relaunched = lobby.makeCache(bundled: false)
        let fromDisk = relaunched.cachedGamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
        // Then both leave out g0 and g1
        #expect(fetched.metadata?.tier == .upstream && RestrictedLobby.ids(fetched).first == "g2")
        #expect(fromDisk.metadata?.tier == .disk && RestrictedLobby.ids(fromDisk).first == "g2")
        #expect(fromDisk.metadata?.withheld == 2)
    }

    @Test func beforeAnyTerritoryThePolicyDecides() throws {
        // Given no territory known
        let conservative = lobby.makeCache()
        let open = lobby.makeCache { $0.unknownTerritoryPolicy = .showAll }
        // Then by default every game restricted anywhere is withheld, and with showAll none is
        let hidden = conservative.cachedGamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
        #expect(RestrictedLobby.ids(hidden) == ["g3", "g4", "g5", "g6", "g7", "g8", "g9"])
        #expect(hidden.metadata?.withheld == 3)
        let shown = open.cachedGamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
        #expect(RestrictedLobby.ids(shown).count == 10 && shown.metadata?.withheld == 0)
        #expect(conservative.territory == nil)
    }

    @Test func aPageWithoutRestrictedGamesIsAnsweredAsItIs() async throws {
        // Given a territory and a page of the unrestricted games only, fetched into memory
        var unrestricted = RestrictedLobby.page
        unrestricted.items.removeFirst(3)
        unrestricted.count = 7
        unrestricted.total = 7
        lobby.upstream.script(
            RestrictedLobby.key, .content(.gamesPage(unrestricted)))
        let cache = lobby.makeCache(bundled: false)
        cache.setTerritory(Territory("GB"))
        _ = try await cache.gamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
        // Then its answer is the page itself, nothing withheld
        let answer = cache.cachedGamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
        #expect(answer.value == unrestricted && answer.metadata?.withheld == 0)
    }

    @Test func theTerritoryIsSavedForTheNextLaunchsFirstFrame() async throws {
        // Given a player who set Ontario
        let first = lobby.makeCache()
        first.setTerritory(Territory("ca-on"))
        await first.flush()
        // When the app relaunches
        let relaunched = lobby.makeCache()
        // Then the first frame already leaves out what Ontario restricts
        #expect(relaunched.territory == Territory("CA-ON"))
        #expect(
            RestrictedLobby.ids(relaunched.cachedGamesPage(edition: english, categoryId: RestrictedLobby.categoryId))
                .first == "g2")
        // And forgetting it is saved too
        relaunched.setTerritory(nil)
        await relaunched.flush()
        #expect(lobby.makeCache().territory == nil)
    }

    enum SavedDamage: String, CaseIterable {
        case garbage, truncated, tooLong, lowerCaseWithoutNewline, symlink, directory
    }

    @Test(arguments: SavedDamage.allCases)
    func aDamagedSavedTerritoryIsNoneNeverAWiderOne(_ damage: SavedDamage) async throws {
        // Given a saved territory, then damaged
        let first = lobby.makeCache()
        first.setTerritory(Territory("FR"))
        await first.flush()
        let file = lobby.directory.child("cache").appendingPathComponent("Territory")
        try FileManager.default.removeItem(at: file)
        switch damage {
        case .garbage: try Data([0xFF, 0x00, 0x41, 0x0A]).write(to: file)
        case .truncated: try Data("F".utf8).write(to: file)
        case .tooLong: try Data((String(repeating: " ", count: 100) + "FR\n").utf8).write(to: file)
        case .lowerCaseWithoutNewline: try Data("fr".utf8).write(to: file)
        case .symlink:
            try Data("FR\n".utf8).write(to: lobby.directory.child("elsewhere"))
            try FileManager.default.createSymbolicLink(at: file, withDestinationURL: lobby.directory.child("elsewhere"))
        case .directory: try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
        }
        // When the app relaunches
        let relaunched = lobby.makeCache()
        // Then no territory is assumed: the conservative policy withholds every restricted game
        #expect(relaunched.territory == nil)
        #expect(
            relaunched.cachedGamesPage(edition: english, categoryId: RestrictedLobby.categoryId).metadata?.withheld == 3
        )
    }

    @Test func updatesLeaveOutWithheldGamesAndTheirIds() async throws {
        // Given a player in Great Britain watching the updates, and a fetch of the page
        lobby.upstream.script(
            RestrictedLobby.key,
            .content(.gamesPage(RestrictedLobby.page)))
        let cache = lobby.makeCache(bundled: false)
        cache.setTerritory(Territory("GB"))
        let updates = UpdateCollector(cache.updates())
        // When the page arrives
        _ = try await cache.gamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
        await updates.wait(for: 1)
        // Then the update carries the page without g2, and does not list it as inserted
        let update = try #require(updates.contentUpdates.first)
        #expect(!update.1.ids.contains("g2") && update.1.ids.count == 9)
        #expect(!update.2.inserted.contains("g2") && update.2.inserted.count == 9)
    }

    @Test func imagesOfWithheldGamesAreNotPrefetched() throws {
        // Given an image hook and a player in Canada
        let cache = lobby.makeCache()
        let hook = RecordingImageHook()
        var prefetching = CatalogCache.ImagePrefetching()
        prefetching.imagesPerPage = 10
        cache.setImageHook(hook, prefetching: prefetching)
        cache.setTerritory(Territory("CA"))
        // When the first frame reads the bundled page
        _ = cache.cachedGamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
        // Then g0's thumbnail (restricted in CA) is not asked for; the others are
        let urls = hook.prefetchedURLs.map(\.absoluteString)
        #expect(!urls.contains("https://img.example.com/0.png"))
        #expect(urls.contains("https://img.example.com/1.png") && urls.count == 9)
    }
}
