@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

@_spi(CatalogTools) @testable import CasinoCache

/// What ``GameFilter`` withholds, game by game: withdrawals, the provider's restrictions, the
/// territory (or the policy while none is known), and a lost withdrawal list; and what it owns
/// besides: its saved files, and what the memory tier forgets when the rule changes.
@Suite(.timeLimit(.minutes(1)))
struct GameFilterTests {
    @Test(arguments: ["GB", "CA-ON", nil] as [String?])
    func aGameWithdrawnEverywhereIsWithheldInEveryTerritory(_ code: String?) throws {
        // Given a game withdrawn everywhere, under the policy that shows the most
        let filter = try GameFilter.saving(nothing: .showAll, in: code, withdrawing: Withdrawal(id: "gone"))
        // When a page holding it is filtered
        let shown = filter.withholding(filterPage(filterGame("gone"), filterGame("plain")))
        // Then it is withheld, and only it
        #expect(filterIDs(shown) == ["plain"])
    }

    @Test func aGameWithdrawnInSomeTerritoriesIsWithheldOnlyThere() throws {
        // Given a game withdrawn in Canada and Malta
        let filter = try GameFilter.saving(
            nothing: .hideRestrictedAnywhere, in: "CA-ON",
            withdrawing: Withdrawal(id: "gone", territories: ["CA", "MT"]))
        let page = filterPage(filterGame("gone"), filterGame("plain"))
        // When a player in Ontario, then one in Great Britain, sees its page
        let inOntario = filter.withholding(page)
        filter.setTerritory(Territory("GB"))
        let inBritain = filter.withholding(page)
        // Then Ontario, inside Canada, does not see it; Great Britain does
        #expect(filterIDs(inOntario) == ["plain"])
        #expect(filterIDs(inBritain) == ["gone", "plain"])
    }

    @Test func aGameTheProviderRestrictsIsWithheldOnlyInItsTerritories() throws {
        // Given a game the provider restricts in Great Britain
        let filter = try GameFilter.saving(nothing: .hideRestrictedAnywhere, in: "GB")
        let page = filterPage(filterGame("british", restrictedIn: ["GB"]), filterGame("plain"))
        // When a player in Great Britain, then one in France, sees its page
        let inBritain = filter.withholding(page)
        filter.setTerritory(Territory("FR"))
        let inFrance = filter.withholding(page)
        // Then Great Britain does not see it; France does
        #expect(filterIDs(inBritain) == ["plain"])
        #expect(filterIDs(inFrance) == ["british", "plain"])
    }

    @Test func withNoTerritoryKnownHideRestrictedAnywhereWithholdsEveryRestrictedGame() throws {
        // Given no territory, the default policy, a game restricted by the provider and one withdrawn in a territory
        let filter = try GameFilter.saving(
            nothing: .hideRestrictedAnywhere, in: nil, withdrawing: Withdrawal(id: "gone", territories: ["MT"]))
        // When their page is filtered
        let shown = filter.withholding(
            filterPage(filterGame("british", restrictedIn: ["GB"]), filterGame("gone"), filterGame("plain")))
        // Then both are withheld, the unrestricted game shown
        #expect(filterIDs(shown) == ["plain"])
    }

    @Test func withNoTerritoryKnownShowAllWithholdsNoRestrictedGame() throws {
        // Given no territory, showAll, a game restricted by the provider and one withdrawn in a territory
        let filter = try GameFilter.saving(
            nothing: .showAll, in: nil, withdrawing: Withdrawal(id: "gone", territories: ["MT"]))
        // When their page is filtered
        let shown = filter.withholding(
            filterPage(filterGame("british", restrictedIn: ["GB"]), filterGame("gone"), filterGame("plain")))
        // Then every game is shown
        #expect(filterIDs(shown) == ["british", "gone", "plain"])
        #expect(shown.withheld == 0)
    }

    @Test(arguments: ["FR", nil] as [String?])
    func aLostWithdrawalListWithholdsEveryRestrictedGameWhateverTheTerritory(_ code: String?) throws {
        // Given a player in France (or nowhere known, under showAll) whose saved withdrawals are both unreadable
        let directory = try TemporaryDirectory()
        let filter = try GameFilter.readingLostList(in: directory, policy: .showAll)
        filter.setTerritory(code.flatMap(Territory.init))
        // When a page with a game restricted only in Great Britain is filtered
        let shown = filter.withholding(filterPage(filterGame("british", restrictedIn: ["GB"]), filterGame("plain")))
        // Then that game is withheld anyway, the unrestricted one shown
        #expect(filterIDs(shown) == ["plain"])
        #expect(filter.withdrawalSequence == 0)
    }

    @Test(arguments: [false, true])
    func aCompleteListOrTheProvidersConfirmationEndsALostListsWidening(_ confirms: Bool) throws {
        // Given a player in France whose withdrawals were lost, shown a page from memory without a
        // game restricted only in Great Britain
        let directory = try TemporaryDirectory()
        let memory = filterMemory()
        let filter = try GameFilter.readingLostList(in: directory, policy: .hideRestrictedAnywhere, memory: memory)
        filter.setTerritory(Territory("FR"))
        memory.store(
            CacheEntry(
                key: filterKey, content: filterPage(filterGame("british", restrictedIn: ["GB"])),
                storedAt: Date(timeIntervalSince1970: 0)))
        #expect(memoryShows(memory) == [])
        // When the provider confirms the list held, or a complete list arrives
        if confirms {
            filter.confirmWithdrawals()
        } else {
            _ = try filter.changeWithdrawals { list throws(WithdrawalListError) in
                try list.replace(with: WithdrawalList(sequence: 1, games: []))
            }
        }
        // Then the game is shown in France again, by the filter and by the next memory hit
        #expect(filterIDs(filter.withholding(filterPage(filterGame("british", restrictedIn: ["GB"])))) == ["british"])
        #expect(memoryShows(memory) == ["british"])
    }

    @Test func aCategoryListPassesUntouched() throws {
        // Given a filter that withdraws everywhere an id a category also has, and one whose list is lost
        let directory = try TemporaryDirectory()
        let filters = [
            try GameFilter.saving(nothing: .hideRestrictedAnywhere, in: nil, withdrawing: Withdrawal(id: "SLOTS")),
            try GameFilter.readingLostList(in: directory, policy: .hideRestrictedAnywhere),
        ]
        let list = CatalogContent.categories(
            CategoryList(items: [Category(id: "SLOTS", name: "Slots", gamesTotal: 3)]))
        for filter in filters {
            // When the list is filtered
            let shown = filter.withholding(list)
            // Then it is as it was, nothing withheld, and it is not even looked at
            #expect(shown.content == list)
            #expect(shown.withheld == 0)
            #expect(!filter.filters(list))
        }
    }

    @Test func withholdingKeepsThePagesTotalCountsWhatIsLeftAndSaysHowManyWereWithheld() throws {
        // Given a page of three games out of forty, two of them restricted in Great Britain
        let filter = try GameFilter.saving(nothing: .hideRestrictedAnywhere, in: "GB")
        let content = filterPage(
            filterGame("a", restrictedIn: ["GB"]), filterGame("b"), filterGame("c", restrictedIn: ["GB"]))
        // When a player in Great Britain sees it
        let shown = filter.withholding(content)
        // Then it shows one game, counts one, keeps the provider's total and reports two withheld
        guard case .gamesPage(let page) = shown.content else { throw FilterTestFailure.notAPage }
        #expect(page.items.map(\.id) == ["b"])
        #expect(page.count == 1)
        #expect(page.total == 40)
        #expect(page.offset == 0 && page.limit == 10 && page.categoryId == "SLOTS")
        #expect(shown.withheld == 2)
    }

    @Test func aPageWithNeitherRestrictedNorWithdrawnGamesIsNotFiltered() throws {
        // Given withdrawals of games the page does not hold
        let filter = try GameFilter.saving(
            nothing: .hideRestrictedAnywhere, in: "GB", withdrawing: Withdrawal(id: "elsewhere"))
        let content = filterPage(filterGame("a"), filterGame("b"))
        let entry = CacheEntry(key: filterKey, content: content, storedAt: Date(timeIntervalSince1970: 0))
        // Then neither the content nor its entry is filtered: the fast path
        #expect(!filter.filters(content))
        #expect(!filter.filters(entry))
        #expect(!filter.withdraws(from: content))
    }

    @Test func aPageWithARestrictedGameIsFiltered() throws {
        // Given a page with a game restricted somewhere else than the player's territory
        let filter = try GameFilter.saving(nothing: .hideRestrictedAnywhere, in: "GB")
        let content = filterPage(filterGame("a", restrictedIn: ["MT"]), filterGame("b"))
        let entry = CacheEntry(key: filterKey, content: content, storedAt: Date(timeIntervalSince1970: 0))
        // Then the content and its entry are filtered, though no withdrawal names them
        #expect(filter.filters(content))
        #expect(filter.filters(entry))
        #expect(!filter.withdraws(from: content))
    }

    @Test func aPageWithAWithdrawnGameIsFiltered() throws {
        // Given a page with no restricted game, one of whose games is withdrawn in a territory
        let filter = try GameFilter.saving(
            nothing: .hideRestrictedAnywhere, in: "GB", withdrawing: Withdrawal(id: "b", territories: ["MT"]))
        let content = filterPage(filterGame("a"), filterGame("b"))
        let entry = CacheEntry(key: filterKey, content: content, storedAt: Date(timeIntervalSince1970: 0))
        // Then the content and its entry are filtered
        #expect(filter.withdraws(from: content))
        #expect(filter.filters(content))
        #expect(filter.filters(entry))
    }

    @Test func theTerritoryAndTheWithdrawalsItSavesAreWhatTheNextLaunchFiltersBy() async throws {
        // Given a filter saving into a directory: a territory, a complete list and a push
        let directory = try TemporaryDirectory()
        let first = GameFilter.reading(directory, savesChanges: true)
        first.setTerritory(Territory("GB"))
        _ = try first.changeWithdrawals { list throws(WithdrawalListError) in
            try list.replace(with: WithdrawalList(sequence: 3, games: [Withdrawal(id: "gone")]))
        }
        _ = try first.changeWithdrawals { list throws(WithdrawalListError) in
            try list.add(WithdrawalList(sequence: 4, games: [Withdrawal(id: "pushed", territories: ["GB"])]))
        }
        await first.flush()
        // When the next launch reads the same directory
        let next = GameFilter.reading(directory, savesChanges: true, policy: .showAll)
        // Then it filters as the first one did
        #expect(next.territory == Territory("GB"))
        #expect(next.withdrawalSequence == 3)
        let shown = next.withholding(
            filterPage(
                filterGame("gone"), filterGame("pushed"), filterGame("british", restrictedIn: ["GB"]),
                filterGame("plain")))
        #expect(filterIDs(shown) == ["plain"])
        // And forgetting the territory removes its file
        next.setTerritory(nil)
        await next.flush()
        #expect(!FileManager.default.fileExists(atPath: directory.child(GameFilter.Store.territoryFileName).path))
    }

    @Test func aFilterThatSavesNoChangesReadsTheSavedRuleAndLeavesItsFilesAlone() async throws {
        // Given a territory and a list saved by the app
        let directory = try TemporaryDirectory()
        let app = GameFilter.reading(directory, savesChanges: true)
        app.setTerritory(Territory("GB"))
        _ = try app.changeWithdrawals { list throws(WithdrawalListError) in
            try list.replace(with: WithdrawalList(sequence: 2, games: [Withdrawal(id: "gone")]))
        }
        await app.flush()
        // When an app extension's filter reads them, then changes both
        let extensionFilter = GameFilter.reading(directory, savesChanges: false)
        #expect(extensionFilter.territory == Territory("GB") && extensionFilter.withdrawalSequence == 2)
        extensionFilter.setTerritory(Territory("FR"))
        _ = try extensionFilter.changeWithdrawals { list throws(WithdrawalListError) in
            try list.replace(with: WithdrawalList(sequence: 5, games: []))
        }
        await extensionFilter.flush()
        // Then the app's files still hold what the app saved
        let relaunched = GameFilter.reading(directory, savesChanges: false)
        #expect(relaunched.territory == Territory("GB") && relaunched.withdrawalSequence == 2)
    }

    @Test func whatMemoryShowsFollowsEveryChangeOfTheRule() throws {
        // Given a page in memory with a game restricted in Great Britain, shown to a player in France
        let memory = filterMemory()
        let filter = try GameFilter.saving(nothing: .hideRestrictedAnywhere, in: "FR", memory: memory)
        memory.store(
            CacheEntry(
                key: filterKey, content: filterPage(filterGame("british", restrictedIn: ["GB"]), filterGame("plain")),
                storedAt: Date(timeIntervalSince1970: 0)))
        let inFrance = memoryShows(memory)
        // When the player moves to Great Britain, then the unrestricted game is withdrawn
        filter.setTerritory(Territory("GB"))
        let inBritain = memoryShows(memory)
        let updates = try filter.changeWithdrawals { list throws(WithdrawalListError) in
            try list.replace(with: WithdrawalList(sequence: 1, games: [Withdrawal(id: "plain")]))
        }
        let withdrawn = memoryShows(memory)
        // Then each next hit follows the rule, nothing kept from before
        #expect(inFrance == ["british", "plain"])
        #expect(inBritain == ["plain"])
        #expect(withdrawn == [])
        // And the withdrawal names the page and the game it took away
        #expect(updates.map(\.key) == [filterKey])
        guard case .updated(_, let changes)? = updates.first?.event else { throw FilterTestFailure.notAPage }
        #expect(changes.removed == ["plain"] && changes.inserted.isEmpty)
    }

    @Test func aChangeOfTheWithdrawalsThatShowsNoGameDifferentlyNamesNoKey() throws {
        // Given a page in memory and a game withdrawn that it does not hold
        let memory = filterMemory()
        let filter = try GameFilter.saving(nothing: .hideRestrictedAnywhere, in: "GB", memory: memory)
        memory.store(
            CacheEntry(key: filterKey, content: filterPage(filterGame("a")), storedAt: Date(timeIntervalSince1970: 0)))
        // When a list withdraws another game, then a replay comes
        let updates = try filter.changeWithdrawals { list throws(WithdrawalListError) in
            try list.replace(with: WithdrawalList(sequence: 1, games: [Withdrawal(id: "elsewhere")]))
        }
        // Then no key is named, and the replay is refused with the list kept
        #expect(updates.isEmpty)
        #expect(throws: WithdrawalListError.self) {
            try filter.changeWithdrawals { list throws(WithdrawalListError) in
                try list.replace(with: WithdrawalList(sequence: 1, games: []))
            }
        }
        #expect(filter.withdrawalSequence == 1 && filter.withdraws(from: filterPage(filterGame("elsewhere"))))
    }

    /// `Territory`: codes compare case-insensitively, a country covers its subdivisions, a code
    /// never matches another by prefix, and a malformed code withholds its game everywhere.
    @Test(arguments: [
        FilterCode(restriction: "ca-on", player: "CA-ON", isWithheld: true),
        FilterCode(restriction: "CA", player: "CA-ON", isWithheld: true),
        FilterCode(restriction: "CA-ON", player: "CA", isWithheld: false),
        FilterCode(restriction: "CA-O", player: "CA-ON", isWithheld: false),
        FilterCode(restriction: "CA-ONT", player: "CA-ON", isWithheld: false),
        FilterCode(restriction: "C", player: "GB", isWithheld: true),
    ])
    func aRestrictionCodeMatchesTheTerritoryAsTerritoryDocumentsIt(_ code: FilterCode) throws {
        // Given a player in `player`, a game the provider restricts in `restriction` and one withdrawn there
        let filter = try GameFilter.saving(
            nothing: .hideRestrictedAnywhere, in: code.player,
            withdrawing: Withdrawal(id: "gone", territories: [code.restriction]))
        #expect(filter.territory != nil)
        // When their page is filtered
        let shown = filter.withholding(
            filterPage(filterGame("restricted", restrictedIn: [code.restriction]), filterGame("gone")))
        // Then both are withheld exactly when the code names the territory or its country
        #expect(filterIDs(shown) == (code.isWithheld ? [] : ["restricted", "gone"]))
    }
}

/// A restriction code, a player's territory, and whether a game restricted there is withheld.
struct FilterCode: Sendable, CustomTestStringConvertible {
    var restriction: String
    var player: String
    var isWithheld: Bool

    var testDescription: String { "\(restriction) in \(player): \(isWithheld ? "withheld" : "shown")" }
}

private enum FilterTestFailure: Error {
    case notAPage
}

private let filterKey = CacheKey.gamesPage(english, categoryId: "SLOTS", offset: 0)

/// A game the provider restricts in `restricted` (nowhere by default).
private func filterGame(_ id: String, restrictedIn restricted: [String] = []) -> Game {
    Game(
        id: id, name: "Game \(id)", slug: "game-\(id)", launchUrl: "https://play.example.com/\(id)",
        thumbnail: "https://img.example.com/\(id).png", restrictedTerritories: restricted)
}

/// The first page of ten of a category of forty games, holding `games`.
private func filterPage(_ games: Game...) -> CatalogContent {
    .gamesPage(GamesPage(categoryId: "SLOTS", offset: 0, limit: 10, total: 40, items: games))
}

/// The ids a filtered page shows.
private func filterIDs(_ shown: ShownContent) -> [String] {
    shown.content.ids
}

/// A memory tier as small as the tests need.
private func filterMemory() -> MemoryTier {
    MemoryTier(countLimit: 10, costLimit: 1 << 20)
}

/// The ids the next memory hit on the page shows.
private func memoryShows(_ memory: MemoryTier) -> [String]? {
    memory.hit(for: filterKey, now: Date(), timeToLive: 60).map { held, _ in
        held.shown?.content.ids ?? held.entry.content.ids
    }
}

extension GameFilter {
    /// A filter saving nothing, over `memory` (its own by default), for a player in `code` (none known:
    /// `nil`), with `games` withdrawn by a complete list.
    fileprivate static func saving(
        nothing policy: UnknownTerritoryPolicy, in code: String?, withdrawing games: Withdrawal...,
        memory: MemoryTier = filterMemory()
    ) throws -> GameFilter {
        let filter = GameFilter(
            policy: policy, directory: nil, savesChanges: false, memory: memory, logger: silentLogger)
        filter.setTerritory(code.flatMap(Territory.init))
        if !games.isEmpty {
            _ = try filter.changeWithdrawals { list throws(WithdrawalListError) in
                try list.replace(with: WithdrawalList(sequence: 1, games: games))
            }
        }
        return filter
    }

    /// A filter over `memory` reading `directory`, where both saved withdrawal files are garbage: the
    /// list is lost.
    fileprivate static func readingLostList(
        in directory: TemporaryDirectory, policy: UnknownTerritoryPolicy, memory: MemoryTier = filterMemory()
    ) throws -> GameFilter {
        for name in [Store.withdrawalsFileName, Store.previousWithdrawalsFileName] {
            _ = try directory.write(Data([0xFF, 0x00, 0x7B, 0x0A]), to: name)
        }
        return reading(directory, savesChanges: false, policy: policy, memory: memory)
    }

    /// A filter over `memory` reading what is saved in `directory`, saving its changes there when
    /// `savesChanges`.
    fileprivate static func reading(
        _ directory: TemporaryDirectory, savesChanges: Bool, policy: UnknownTerritoryPolicy = .hideRestrictedAnywhere,
        memory: MemoryTier = filterMemory()
    ) -> GameFilter {
        GameFilter(
            policy: policy, directory: directory.url, savesChanges: savesChanges, memory: memory, logger: silentLogger)
    }
}
