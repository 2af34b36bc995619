@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

/// ``CatalogCache/inspection()`` and ``CacheMetadata/source``: what a tester, support or an auditor
/// reads to learn why a player sees what they see.
@Suite(.timeLimit(.minutes(2)))
struct CacheInspectionTests {
    let lobby: RestrictedLobby

    init() throws {
        lobby = try RestrictedLobby()
    }

    @Test func aRestrictedGameAndAWithdrawnGameAreReportedWithTheirReasonsAndTheListNumber() async throws {
        // Given a player in Ontario, list 3 withdrawing g7 in Canada and g8 everywhere, and the page
        // fetched from the upstream
        let cache = lobby.makeCache(bundled: false)
        cache.setTerritory(Territory("CA-ON"))
        try cache.applyWithdrawals(
            WithdrawalList(sequence: 3, games: [Withdrawal(id: "g7", territories: ["CA"]), Withdrawal(id: "g8")]))
        lobby.upstream.script(RestrictedLobby.key, .content(.gamesPage(RestrictedLobby.page)))
        let read = try await cache.content(for: RestrictedLobby.key)

        // When it is inspected
        let report = await cache.inspection()

        // Then the entry names each game the read left out, with its reason
        let entry = try #require(report.entries.first { $0.key == RestrictedLobby.key.description })
        let withheld = Dictionary(uniqueKeysWithValues: entry.withheld.map { ($0.id, $0) })
        #expect(withheld.keys.sorted() == ["g0", "g1", "g7", "g8"])
        #expect(withheld["g0"]?.reason == .restricted && withheld["g0"]?.territory == "CA-ON")
        #expect(withheld["g1"]?.reason == .restricted && withheld["g1"]?.withdrawalList == nil)
        #expect(withheld["g7"]?.reason == .withdrawn && withheld["g7"]?.withdrawalList == 3)
        #expect(withheld["g7"]?.territory == "CA-ON")
        #expect(withheld["g8"]?.reason == .withdrawn && withheld["g8"]?.withdrawalList == 3)
        #expect(read.metadata?.withheld == entry.withheld.count)
        // And it lists every game in order, the withheld ones included, by name and thumbnail
        #expect(entry.listing?.map(\.id) == RestrictedLobby.page.items.map(\.id))
        #expect(entry.listing?.map(\.name) == RestrictedLobby.page.items.map(\.name))
        #expect(entry.listing?.map(\.thumbnail) == RestrictedLobby.page.items.map(\.thumbnail))
        #expect(entry.items == 10 && entry.tier == .memory && entry.source == .network && entry.state == .fresh)
        #expect(entry.contentHash == (try CatalogContent.gamesPage(RestrictedLobby.page).contentHash()))
        // And the report says what the filter follows
        #expect(report.territory == "CA-ON")
        #expect(report.withdrawals.sequence == 3 && report.withdrawals.pushes.isEmpty)
        #expect(report.withdrawals.games == 2 && !report.withdrawals.isLost)
        #expect(report.statistics.upstreamCalls == 1)
    }

    @Test func withNoTerritoryARestrictedGameIsReportedAsWithheldForThatReason() async throws {
        let cache = lobby.makeCache()
        _ = cache.cachedContent(for: RestrictedLobby.key)  // the bundle's page, now in memory

        let entry = try #require(await cache.inspection().entry(RestrictedLobby.key))

        #expect(entry.withheld.map(\.id) == ["g0", "g1", "g2"])
        #expect(entry.withheld.allSatisfy { $0.reason == .territoryUnknown && $0.territory == nil })
        #expect(entry.state == .bundled && entry.tier == .memory && entry.source == .bundle)
    }

    @Test func aRelaunchedCacheReportsWhatTheDiskHoldsWithoutMovingItToMemory() async throws {
        // Given a page fetched and saved by an earlier launch
        do {
            let cache = lobby.makeCache(bundled: false)
            lobby.upstream.script(RestrictedLobby.key, .content(.gamesPage(RestrictedLobby.page), etag: "\"v1\""))
            _ = try await cache.content(for: RestrictedLobby.key)
            await cache.flush()
        }
        // When the next launch inspects before any read, twice
        let cache = lobby.makeCache(bundled: false)
        let first = await cache.inspection()
        let second = await cache.inspection()

        // Then the disk answers, every time, with the validator it holds, and memory stays empty
        let entry = try #require(first.entries.first)
        #expect(first.entries.count == 1 && entry.tier == .disk && entry.etag == "\"v1\"")
        #expect(second.entries.first?.tier == .disk)
        #expect(cache.cachedContent(for: RestrictedLobby.key).metadata?.tier == .disk)
        #expect(first.statistics.lookups == 0, "an inspection is not a read")
    }

    @Test func answersNameTheirSourceWhicheverTierKeepsThem() async throws {
        // Given a cache reading the bundle
        let cache = lobby.makeCache()
        // When the first frame reads the bundle and memory answers again, and a cache without the
        // bundle asks the upstream
        let bundled = cache.cachedContent(for: RestrictedLobby.key)
        let again = cache.cachedContent(for: RestrictedLobby.key)
        lobby.upstream.script(RestrictedLobby.key, .content(.gamesPage(RestrictedLobby.page)))
        let fetched = try await lobby.makeCache(bundled: false).content(for: RestrictedLobby.key)
        // Then each names where its content came from
        #expect(bundled.metadata?.tier == .bundled && bundled.metadata?.source == .bundle)
        #expect(again.metadata?.tier == .memory && again.metadata?.source == .bundle)
        #expect(fetched.metadata?.tier == .upstream && fetched.metadata?.source == .network)
    }

    @Test func aSnapshotInstalledOverTheAirIsNamedAsSuch() async throws {
        // Given the directory of an installed generation: a snapshot beside the signed manifest it came with
        try Data("{}".utf8).write(to: lobby.bundle.appendingPathComponent("published.json"))
        let cache = lobby.makeCache()

        let answer = cache.cachedContent(for: RestrictedLobby.key)
        let report = await cache.inspection()

        #expect(answer.metadata?.source == .overTheAir)
        #expect(report.snapshot?.source == .overTheAir && report.entries.first?.source == .overTheAir)
        #expect(report.snapshot?.generatedAt == Date(timeIntervalSince1970: 1_795_000_000))
        #expect(report.snapshot?.editions == [english.id])
    }

    @Test func aWidgetsReaderReportsWhatItShowsAndWhyWithTheTerritoryTheAppSaved() async throws {
        // Given the app's saved territory (Ontario), and a widget reading the page from its bundle
        let app = lobby.makeCache()
        app.setTerritory(Territory("CA-ON"))
        await app.flush()
        var configuration = SharedCatalogReader.Configuration(
            sharedDirectory: lobby.directory.child("shared"), bundleDirectory: lobby.bundle)
        configuration.territoryDirectory = lobby.directory.child("cache")
        let reader = SharedCatalogReader(configuration: configuration)
        let shown = reader.gamesPage(edition: english, categoryId: RestrictedLobby.categoryId)

        let report = await reader.inspection()

        let entry = try #require(report.entry(RestrictedLobby.key))
        #expect(report.territory == "CA-ON" && report.snapshot?.source == .bundle)
        #expect(entry.withheld.map(\.id) == ["g0", "g1"] && entry.withheld.allSatisfy { $0.reason == .restricted })
        #expect(shown.metadata?.withheld == 2 && entry.source == .bundle)
    }

    @Test func aPlayersQueuedChangesAreCountedUnderAHashedIdAndTheReportNamesNoPlayer() async throws {
        // Given a change queued offline for a player
        let players = try PlayerFixture()
        let cache = players.makeCache(upstream: players.offlineUpstream())
        let game = try #require(players.games.first)
        #expect(try await cache.addFavourite(game, edition: english, player: "player-4711") == .queued)

        // When the report is written as JSON and read back
        let report = await cache.inspection()
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let json = try encoder.encode(report)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let decoded = try decoder.decode(CacheInspection.self, from: json)

        // Then the player is counted, under a hashed id only
        let player = try #require(report.players.first)
        #expect(report.players.count == 1 && player.queued == 1 && player.isWaitingToRetry)
        #expect(player.player.count == 12 && player.player != "player-4711")
        #expect(!String(decoding: json, as: UTF8.self).contains("player-4711"))
        #expect(report.entries.contains { $0.key.hasPrefix("user:#\(player.player)/") })
        #expect(decoded.players == report.players && decoded.entries.map(\.key) == report.entries.map(\.key))
    }

    @Test func aReportWrittenBeforeListingsWereRecordedStillDecodes() async throws {
        // Given a report as a version without `listing` wrote it: today's JSON with the field removed
        let cache = lobby.makeCache()
        _ = cache.cachedContent(for: RestrictedLobby.key)
        let report = await cache.inspection()
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let json = try encoder.encode(report)
        var object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let entries = try #require(object["entries"] as? [[String: Any]])
        #expect(entries.allSatisfy { $0["listing"] != nil })
        object["entries"] = entries.map { $0.filter { $0.key != "listing" } }
        let old = try JSONSerialization.data(withJSONObject: object)

        // When it is read
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let decoded = try decoder.decode(CacheInspection.self, from: old)

        // Then everything but the listing reads as today's report does (ISO 8601 keeps whole seconds)
        var expected = try decoder.decode(CacheInspection.self, from: json)
        #expect(expected.entry(RestrictedLobby.key)?.listing?.count == RestrictedLobby.page.items.count)
        for index in expected.entries.indices { expected.entries[index].listing = nil }
        #expect(!report.entries.isEmpty && decoded == expected)
    }

    /// The report and the reads follow one rule: for random territories, policies, withdrawal lists
    /// and a lost list, the games the report names are exactly those the read left out.
    @Test func theReportedGamesAreExactlyTheOnesTheReadLeavesOut() async throws {
        var random = SplitMix64(seed: 0x1A5_7E57)
        let territories = [nil, "CA", "CA-ON", "CA-QC", "GB", "FR"]
        for round in 0..<60 {
            let policy: UnknownTerritoryPolicy = random.next() % 2 == 0 ? .showAll : .hideRestrictedAnywhere
            let cache = lobby.makeCache({ $0.unknownTerritoryPolicy = policy })
            cache.setTerritory(territories[Int(random.next() % UInt64(territories.count))].flatMap(Territory.init))
            let withdrawn = (0..<10).filter { _ in random.next() % 4 == 0 }.map { index in
                Withdrawal(id: "g\(index)", territories: random.next() % 2 == 0 ? [] : ["CA", "GB"])
            }
            try cache.applyWithdrawals(WithdrawalList(sequence: round + 1, games: withdrawn))
            let read = cache.cachedContent(for: RestrictedLobby.key)
            let shown = Set(read.value?.ids ?? [])

            let entry = try #require(await cache.inspection().entry(RestrictedLobby.key), "round \(round)")

            let expected = RestrictedLobby.page.items.map(\.id).filter { !shown.contains($0) }
            #expect(entry.withheld.map(\.id) == expected, "round \(round)")
            #expect(entry.withheld.allSatisfy { $0.reason != .withdrawn || $0.withdrawalList == round + 1 })
        }
    }

    @Test func anEditionWithNoCategoryListCachedIsReportedWithTheSnapshotsOrder() async throws {
        // Given a cache that has read nothing yet, then one whose memory holds the list
        let cache = lobby.makeCache()
        let categories = CacheKey.categories(english)

        // When it is inspected
        let before = try #require(await cache.inspection().entry(categories))
        _ = cache.cachedCategories(edition: english)
        let after = try #require(await cache.inspection().entry(categories))

        // Then the lobby's order is the snapshot's, answered from the bundle, and from memory once read;
        // the snapshot's pages are not listed
        #expect(before.tier == .bundled && before.state == .bundled && before.listing?.map(\.id) == ["SLOTS"])
        #expect(after.tier == .memory && after.listing == before.listing)
        #expect(await cache.inspection().entries.map(\.key) == [categories.description])
    }
}

extension CacheInspection {
    /// The entry reported for `key`, a global key.
    fileprivate func entry(_ key: CacheKey) -> Entry? {
        entries.first { $0.key == key.description }
    }
}
