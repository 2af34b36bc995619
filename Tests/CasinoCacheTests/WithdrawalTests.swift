@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

/// Withdrawals in ``RestrictedLobby``: a game taken away is gone from the very next read of every
/// tier, online or not, and stays gone across relaunches until a newer list returns it.
@Suite(.timeLimit(.minutes(2)))
struct WithdrawalTests {
    let lobby: RestrictedLobby

    init() throws {
        lobby = try RestrictedLobby()
    }

    /// The page as the cache shows it now, synchronously.
    static func shown(_ cache: CatalogCache) -> CacheResult<GamesPage> {
        cache.cachedGamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
    }

    static func list(_ sequence: Int, _ games: Withdrawal...) -> WithdrawalList {
        WithdrawalList(sequence: sequence, games: games)
    }

    @Test func theVeryNextReadOfEveryTierLeavesOutAWithdrawnGameOfflineToo() async throws {
        // Given an offline app in France showing the bundled page, then a fetched copy on disk
        lobby.upstream.script(RestrictedLobby.key, .failure(URLError(.notConnectedToInternet)))
        let cache = lobby.makeCache()
        cache.setTerritory(Territory("FR"))
        let bundled = Self.shown(cache)
        #expect(bundled.metadata?.tier == .bundled && RestrictedLobby.ids(bundled).contains("g5"))
        #expect(RestrictedLobby.ids(Self.shown(cache)).contains("g5"))  // and memory showed it
        // When the provider withdraws g5 everywhere and g6 in France
        let changed = try cache.applyWithdrawals(
            Self.list(1, Withdrawal(id: "g5"), Withdrawal(id: "g6", territories: ["FR"])))
        // Then the next read from memory leaves both out and says so
        let fromMemory = Self.shown(cache)
        #expect(fromMemory.metadata?.tier == .memory)
        #expect(!RestrictedLobby.ids(fromMemory).contains("g5") && !RestrictedLobby.ids(fromMemory).contains("g6"))
        #expect(fromMemory.metadata?.withheld == 2)
        #expect(changed == [RestrictedLobby.key])
        // And a relaunch reading the bundle alone does too
        await cache.flush()
        let relaunched = lobby.makeCache()
        let fromBundle = Self.shown(relaunched)
        #expect(fromBundle.metadata?.tier == .bundled)
        #expect(RestrictedLobby.ids(fromBundle) == ["g0", "g1", "g2", "g3", "g4", "g7", "g8", "g9"])
        #expect(relaunched.withdrawalSequence == 1)
    }

    @Test func aWithdrawalInATerritoryFollowsTheTerritoryRules() throws {
        // Given g7 withdrawn in Canada
        let cache = lobby.makeCache()
        try cache.applyWithdrawals(Self.list(3, Withdrawal(id: "g7", territories: ["ca"])))
        // Then it is gone in Ontario (in Canada), there in France, and gone while no territory is known
        cache.setTerritory(Territory("CA-ON"))
        #expect(!RestrictedLobby.ids(Self.shown(cache)).contains("g7"))
        cache.setTerritory(Territory("FR"))
        #expect(RestrictedLobby.ids(Self.shown(cache)).contains("g7"))
        cache.setTerritory(nil)
        #expect(!RestrictedLobby.ids(Self.shown(cache)).contains("g7"))
    }

    @Test func aReplayIsRefusedAndAGameReturnsOnlyThroughANewerListThatNoLongerNamesIt() throws {
        // Given g4 withdrawn at sequence 5
        let cache = lobby.makeCache()
        cache.setTerritory(Territory("FR"))
        try cache.applyWithdrawals(Self.list(5, Withdrawal(id: "g4")))
        // When an older and an equal list come (a replay), and a push at 5 too
        for sequence in [4, 5] {
            #expect(throws: WithdrawalListError.self) { try cache.applyWithdrawals(Self.list(sequence)) }
        }
        #expect(throws: WithdrawalListError.self) { try cache.addWithdrawals(Self.list(5)) }
        // Then g4 stays withdrawn
        #expect(!RestrictedLobby.ids(Self.shown(cache)).contains("g4"))
        // And a newer list without it returns it
        try cache.applyWithdrawals(Self.list(6))
        #expect(RestrictedLobby.ids(Self.shown(cache)).contains("g4"))
        #expect(cache.withdrawalSequence == 6)
    }

    @Test func aPushWithdrawsAndTheLobbyOnScreenIsToldWhichTileToDrop() async throws {
        // Given a lobby on screen watching its page
        let cache = lobby.makeCache()
        cache.setTerritory(Territory("FR"))
        _ = Self.shown(cache)
        let updates = UpdateCollector(cache.updates())
        // When a push withdraws g8
        let push = try CatalogInvalidation(
            json: Data(#"{"catalog": {"withdraw": {"sequence": 9, "games": [{"id": "g8"}]}}}"#.utf8))
        let report = await cache.markStale(push)
        await updates.wait(for: 1)
        // Then the page's update removes g8, without a fetch
        let update = try #require(updates.contentUpdates.first)
        #expect(update.0 == RestrictedLobby.key && update.2.removed == ["g8"] && !update.1.ids.contains("g8"))
        #expect(report.withdrawnFrom == [RestrictedLobby.key] && report.withdrawalError == nil)
        #expect(!RestrictedLobby.ids(Self.shown(cache)).contains("g8"))
        #expect(lobby.upstream.calls.isEmpty)
        // And a push does not advance the complete list's sequence (validation asks from the last list)
        #expect(cache.withdrawalSequence == 0)
    }

    @Test(arguments: [
        #"{"catalog": {"withdraw": {"sequence": "9", "games": []}}}"#,
        #"{"catalog": {"withdraw": {"sequence": 9, "games": [{"id": 8}]}}}"#,
        #"{"catalog": {"withdraw": {"sequence": 9223372036854775808, "games": []}}}"#,
        #"{"catalog": {"withdraw": [9, "g8"]}}"#,
        #"{"catalog": {"withdraw": {"sequence": 0, "games": []}}}"#,
    ])
    func aPushWithWrongTypesIsRefusedByNameAndItsInvalidationStands(_ payload: String) async throws {
        // Given a push with a malformed withdrawal beside an invalidation
        var object = try #require(try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])
        var catalog = try #require(object["catalog"] as? [String: Any])
        catalog["invalidate"] = ["en-iPhone/categories"]
        object["catalog"] = catalog
        let push = try CatalogInvalidation(json: JSONSerialization.data(withJSONObject: object))
        // Then the withdrawal is refused with a named error and the invalidation is kept
        #expect(push.withdrawals == nil && push.withdrawalError != nil)
        #expect(push.patterns.count == 1)
        let report = await lobby.makeCache().markStale(push)
        #expect(report.withdrawalError != nil && report.withdrawnFrom.isEmpty)
    }

    @Test func aWithdrawalOfAGameNeverSeenIsKeptForWhenItArrives() async throws {
        // Given a withdrawal of g9 before anything was read, and no bundle
        lobby.upstream.script(RestrictedLobby.key, .content(.gamesPage(RestrictedLobby.lastGames(2))))
        let cache = lobby.makeCache(bundled: false)
        cache.setTerritory(Territory("FR"))
        try cache.applyWithdrawals(Self.list(2, Withdrawal(id: "g9")))
        // When the page arrives holding it
        let fetched = try await cache.gamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
        // Then neither the fetch nor the memory that kept it shows g9
        #expect(RestrictedLobby.ids(fetched) == ["g8"])
        #expect(RestrictedLobby.ids(Self.shown(cache)) == ["g8"] && Self.shown(cache).metadata?.withheld == 1)
    }

    @Test func aPageWithoutRestrictedGamesInMemoryIsFilteredOnceOneOfItsGamesIsWithdrawn() async throws {
        // Given a page of unrestricted games in memory, answered as it is
        lobby.upstream.script(RestrictedLobby.key, .content(.gamesPage(RestrictedLobby.lastGames(3))))
        let cache = lobby.makeCache(bundled: false)
        _ = try await cache.gamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
        #expect(RestrictedLobby.ids(Self.shown(cache)) == ["g7", "g8", "g9"])
        // When g8 is withdrawn, then returned
        try cache.applyWithdrawals(Self.list(1, Withdrawal(id: "g8")))
        let withdrawn = Self.shown(cache)
        try cache.applyWithdrawals(Self.list(2))
        let returned = Self.shown(cache)
        // Then the next answer from memory follows each list
        #expect(withdrawn.metadata?.tier == .memory && RestrictedLobby.ids(withdrawn) == ["g7", "g9"])
        #expect(RestrictedLobby.ids(returned) == ["g7", "g8", "g9"] && returned.metadata?.withheld == 0)
    }

    @Test func pushedWithdrawalsSurviveARelaunchAndACompleteListCoversThem() async throws {
        // Given a list at 3 and a push at 4
        let first = lobby.makeCache()
        first.setTerritory(Territory("FR"))
        try first.applyWithdrawals(Self.list(3, Withdrawal(id: "g3")))
        try first.addWithdrawals(Self.list(4, Withdrawal(id: "g4")))
        await first.flush()
        // When the app relaunches
        let relaunched = lobby.makeCache()
        // Then both games stay withdrawn, and the complete list's sequence is 3
        #expect(!RestrictedLobby.ids(Self.shown(relaunched)).contains("g3"))
        #expect(!RestrictedLobby.ids(Self.shown(relaunched)).contains("g4"))
        #expect(relaunched.withdrawalSequence == 3)
        // And a complete list at 4 that names only g4 returns g3
        try relaunched.applyWithdrawals(Self.list(4, Withdrawal(id: "g4")))
        #expect(RestrictedLobby.ids(Self.shown(relaunched)).contains("g3"))
        #expect(!RestrictedLobby.ids(Self.shown(relaunched)).contains("g4"))
    }

    @Test func aSavedListReadsBackAsItWasAtTheLargestSequenceWithItsPushAndOddCodes() async throws {
        // Given a list at Int.max - 1 with a lower-case and a malformed code, and a push at Int.max
        let first = lobby.makeCache()
        try first.applyWithdrawals(
            Self.list(Int.max - 1, Withdrawal(id: "g3"), Withdrawal(id: "g4", territories: ["gb", "G B"])))
        try first.addWithdrawals(Self.list(Int.max, Withdrawal(id: "g5", territories: ["fr"])))
        await first.flush()
        // When the app relaunches in France, and in Germany
        let relaunched = lobby.makeCache()
        relaunched.setTerritory(Territory("FR"))
        let inFrance = RestrictedLobby.ids(Self.shown(relaunched))
        relaunched.setTerritory(Territory("DE"))
        let inGermany = RestrictedLobby.ids(Self.shown(relaunched))
        // Then the list and the push stand as they were: g3 everywhere, g4 wherever its malformed code
        // might name, g5 in France only
        #expect(relaunched.withdrawalSequence == Int.max - 1)
        #expect(!inFrance.contains("g3") && !inFrance.contains("g4") && !inFrance.contains("g5"), "\(inFrance)")
        #expect(!inGermany.contains("g3") && !inGermany.contains("g4") && inGermany.contains("g5"), "\(inGermany)")
        // And a push not newer than Int.max is refused
        #expect(throws: WithdrawalListError.self) {
            try relaunched.addWithdrawals(Self.list(Int.max, Withdrawal(id: "g6")))
        }
    }

    enum SavedDamage: String, CaseIterable {
        case garbage, truncated, truncatedAtALine, json, symlink, directory, sequencePastIntMax
    }

    @Test(arguments: SavedDamage.allCases)
    func aDamagedSavedListFallsBackToTheOneBeforeNeverToFewerWithdrawals(_ damage: SavedDamage) async throws {
        // Given two lists saved in turn (g3, then g3 and g4), then the newer file damaged
        let first = lobby.makeCache()
        try first.applyWithdrawals(Self.list(1, Withdrawal(id: "g3")))
        try first.applyWithdrawals(Self.list(2, Withdrawal(id: "g3"), Withdrawal(id: "g4")))
        await first.flush()
        try damage.apply(to: lobby.directory.child("cache").appendingPathComponent("Withdrawals"), in: lobby.directory)
        // When the app relaunches in France
        let relaunched = lobby.makeCache()
        relaunched.setTerritory(Territory("FR"))
        // Then the list before it stands: g3 stays withdrawn
        let ids = RestrictedLobby.ids(Self.shown(relaunched))
        #expect(!ids.contains("g3") && ids.contains("g4") && ids.contains("g0"))
        #expect(relaunched.withdrawalSequence == 1)
    }

    @Test(arguments: SavedDamage.allCases)
    func withNoGoodSavedListEveryRestrictedGameIsWithheldUntilACompleteListArrives(
        _ damage: SavedDamage
    )
        async throws
    {
        // Given a saved list, then both files damaged
        let first = lobby.makeCache()
        try first.applyWithdrawals(Self.list(1, Withdrawal(id: "g3")))
        try first.applyWithdrawals(Self.list(2, Withdrawal(id: "g3")))
        await first.flush()
        let cache = lobby.directory.child("cache")
        try damage.apply(to: cache.appendingPathComponent("Withdrawals"), in: lobby.directory)
        try SavedDamage.garbage.apply(to: cache.appendingPathComponent("Withdrawals.previous"), in: lobby.directory)
        // When the app relaunches in France, where no game is restricted
        let relaunched = lobby.makeCache()
        relaunched.setTerritory(Territory("FR"))
        // Then every game restricted anywhere is withheld (the conservative policy)
        #expect(Self.shown(relaunched).metadata?.withheld == 3)
        #expect(relaunched.withdrawalSequence == 0)
        // And a complete list ends that
        try relaunched.applyWithdrawals(Self.list(7, Withdrawal(id: "g3")))
        #expect(Self.shown(relaunched).metadata?.withheld == 1)
    }
}

extension WithdrawalTests.SavedDamage {
    func apply(to file: URL, in directory: TemporaryDirectory) throws {
        let good = try Data(contentsOf: file)
        try FileManager.default.removeItem(at: file)
        switch self {
        case .garbage: try Data([0xFF, 0x00, 0x7B, 0x0A]).write(to: file)
        case .truncated: try good.prefix(good.count / 2).write(to: file)
        case .truncatedAtALine:
            // The last game line and what follows gone: a shorter list, were it read.
            let lines = String(decoding: good, as: UTF8.self).split(separator: "\n")
            try Data((lines.dropLast(2).joined(separator: "\n") + "\n").utf8).write(to: file)
        case .json: try Data(#"{"list":{"sequence":9,"games":[]},"pushes":[]}"#.utf8).write(to: file)
        case .symlink:
            try good.write(to: directory.child("elsewhere-\(file.lastPathComponent)"))
            try FileManager.default.createSymbolicLink(
                at: file, withDestinationURL: directory.child("elsewhere-\(file.lastPathComponent)"))
        case .directory: try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
        case .sequencePastIntMax:
            let text = String(decoding: good, as: UTF8.self)
            try Data(text.replacingOccurrences(of: "\nlist 2 ", with: "\nlist 9223372036854775808 ").utf8)
                .write(to: file)
        }
    }
}

/// Withdrawals and territories changed while reads run on other threads: a randomized loop.
@Suite(.timeLimit(.minutes(2)))
struct WithdrawalConcurrencyTests {
    /// Each round: a random complete list (a random replay in some rounds), a random territory,
    /// and reads (with the disk and memory copies forgotten at random moments) running on other
    /// threads while they change. A read never shows a game withdrawn everywhere by both the list
    /// before and the list after (no moment un-withdraws it), a replay changes nothing, and once
    /// both changes return the next read is exactly what the rules say.
    @Test func readsDuringChangesNeverShowAGameWithdrawnBeforeAndAfterAndSettleOnTheRules() async throws {
        let lobby = try RestrictedLobby()
        let cache = lobby.makeCache()
        let key = RestrictedLobby.key
        let territories: [Territory?] = [nil, Territory("CA"), Territory("CA-ON"), Territory("GB"), Territory("FR")]
        let seed = UInt64.random(in: 0 ... .max)
        var random = SplitMix64(seed: seed)
        var list = WithdrawalList(sequence: 1, games: [])
        try cache.applyWithdrawals(list)
        for round in 0..<300 {
            let next = WithdrawalList(
                sequence: list.sequence + 1,
                games: (0..<10).filter { _ in Int.random(in: 0..<4, using: &random) == 0 }.map { index in
                    Withdrawal(id: "g\(index)", territories: Bool.random(using: &random) ? [] : ["GB"])
                })
            let territory = territories.randomElement(using: &random)!
            let replays = Int.random(in: 0..<5, using: &random) == 0
            let forgets = Bool.random(using: &random)
            let everywhereBoth = Set(list.games.filter(\.isEverywhere).map(\.id))
                .intersection(next.games.filter(\.isEverywhere).map(\.id))
            // When the list and the territory change while another thread reads
            let reader = Task.detached {
                var seen: [[String]] = []
                for step in 0..<40 {
                    if forgets, step == 20 { cache.invalidate(key) }
                    seen.append(WithdrawalTests.shown(cache).value?.items.map(\.id) ?? [])
                }
                return seen
            }
            let replayed = WithdrawalList(sequence: list.sequence, games: [])
            let changer = Task.detached {
                cache.setTerritory(territory)
                if replays { _ = try? cache.applyWithdrawals(replayed) }
                try cache.applyWithdrawals(next)
            }
            try await changer.value
            let seen = await reader.value
            // Then no read showed a game withdrawn everywhere before and after
            for ids in seen where !everywhereBoth.isDisjoint(with: ids) {
                Issue.record("seed \(seed), round \(round): \(everywhereBoth) shown in \(ids)")
            }
            // And the next read is what the rules say
            let expected = RestrictedLobby.page.items.filter { game in
                guard let withdrawal = next.games.first(where: { $0.id == game.id }) else {
                    return !Self.restricts(game.restrictedTerritories, in: territory)
                }
                return !withdrawal.isEverywhere
                    && !Self.restricts(game.restrictedTerritories + withdrawal.territories, in: territory)
            }.map(\.id)
            let shown = WithdrawalTests.shown(cache).value?.items.map(\.id)
            #expect(shown == expected, "seed \(seed), round \(round): \(next.games), \(String(describing: territory))")
            list = next
        }
        #expect(cache.withdrawalSequence == list.sequence)
    }

    /// The rules, written out: with no territory, the default policy withholds what is restricted anywhere.
    static func restricts(_ codes: [String], in territory: Territory?) -> Bool {
        guard let territory else { return !codes.isEmpty }
        return territory.isRestricted(byAnyOf: codes)
    }
}
