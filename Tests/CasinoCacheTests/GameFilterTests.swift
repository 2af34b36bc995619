@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

@_spi(CatalogTools) @testable import CasinoCache

/// What ``GameFilter`` withholds, game by game: withdrawals, the provider's restrictions, the
/// territory (or the policy while none is known), and a lost withdrawal list.
@Suite(.timeLimit(.minutes(1)))
struct GameFilterTests {
    @Test(arguments: ["GB", "CA-ON", nil] as [String?])
    func aGameWithdrawnEverywhereIsWithheldInEveryTerritory(_ code: String?) {
        // Given a game withdrawn everywhere, under the policy that shows the most
        let filter = GameFilter(territory: code.flatMap(Territory.init), policy: .showAll)
        filter.setWithdrawn(["gone": .everywhere], isListLost: false)
        // When a page holding it is filtered
        let shown = filter.withholding(filterPage(filterGame("gone"), filterGame("plain")))
        // Then it is withheld, and only it
        #expect(filterIDs(shown) == ["plain"])
    }

    @Test func aGameWithdrawnInSomeTerritoriesIsWithheldOnlyThere() {
        // Given a game withdrawn in Canada and Malta
        let filter = GameFilter(territory: Territory("CA-ON"), policy: .hideRestrictedAnywhere)
        filter.setWithdrawn(["gone": .territories(["CA", "MT"])], isListLost: false)
        let page = filterPage(filterGame("gone"), filterGame("plain"))
        // When a player in Ontario, then one in Great Britain, sees its page
        let inOntario = filter.withholding(page)
        filter.territory = Territory("GB")
        let inBritain = filter.withholding(page)
        // Then Ontario, inside Canada, does not see it; Great Britain does
        #expect(filterIDs(inOntario) == ["plain"])
        #expect(filterIDs(inBritain) == ["gone", "plain"])
    }

    @Test func aGameTheProviderRestrictsIsWithheldOnlyInItsTerritories() {
        // Given a game the provider restricts in Great Britain
        let filter = GameFilter(territory: Territory("GB"), policy: .hideRestrictedAnywhere)
        let page = filterPage(filterGame("british", restrictedIn: ["GB"]), filterGame("plain"))
        // When a player in Great Britain, then one in France, sees its page
        let inBritain = filter.withholding(page)
        filter.territory = Territory("FR")
        let inFrance = filter.withholding(page)
        // Then Great Britain does not see it; France does
        #expect(filterIDs(inBritain) == ["plain"])
        #expect(filterIDs(inFrance) == ["british", "plain"])
    }

    @Test func withNoTerritoryKnownHideRestrictedAnywhereWithholdsEveryRestrictedGame() {
        // Given no territory, the default policy, a game restricted by the provider and one withdrawn in a territory
        let filter = GameFilter(territory: nil, policy: .hideRestrictedAnywhere)
        filter.setWithdrawn(["gone": .territories(["MT"])], isListLost: false)
        // When their page is filtered
        let shown = filter.withholding(
            filterPage(filterGame("british", restrictedIn: ["GB"]), filterGame("gone"), filterGame("plain")))
        // Then both are withheld, the unrestricted game shown
        #expect(filterIDs(shown) == ["plain"])
    }

    @Test func withNoTerritoryKnownShowAllWithholdsNoRestrictedGame() {
        // Given no territory, showAll, a game restricted by the provider and one withdrawn in a territory
        let filter = GameFilter(territory: nil, policy: .showAll)
        filter.setWithdrawn(["gone": .territories(["MT"])], isListLost: false)
        // When their page is filtered
        let shown = filter.withholding(
            filterPage(filterGame("british", restrictedIn: ["GB"]), filterGame("gone"), filterGame("plain")))
        // Then every game is shown
        #expect(filterIDs(shown) == ["british", "gone", "plain"])
        #expect(shown.withheld == 0)
    }

    @Test(arguments: ["FR", nil] as [String?])
    func aLostWithdrawalListWithholdsEveryRestrictedGameWhateverTheTerritory(_ code: String?) {
        // Given a player in France (or nowhere known, under showAll) and the withdrawals lost
        let filter = GameFilter(territory: code.flatMap(Territory.init), policy: .showAll)
        filter.setWithdrawn([:], isListLost: true)
        // When a page with a game restricted only in Great Britain is filtered
        let shown = filter.withholding(filterPage(filterGame("british", restrictedIn: ["GB"]), filterGame("plain")))
        // Then that game is withheld anyway, the unrestricted one shown
        #expect(filter.isWithdrawalListLost)
        #expect(filterIDs(shown) == ["plain"])
    }

    @Test func aCompleteListAfterALostOneWithholdsByTerritoryAgain() {
        // Given a player in France whose withdrawals were lost
        let filter = GameFilter(territory: Territory("FR"), policy: .hideRestrictedAnywhere)
        filter.setWithdrawn([:], isListLost: true)
        // When a complete list arrives
        filter.setWithdrawn([:], isListLost: false)
        // Then a game restricted only in Great Britain is shown in France again
        let shown = filter.withholding(filterPage(filterGame("british", restrictedIn: ["GB"])))
        #expect(!filter.isWithdrawalListLost)
        #expect(filterIDs(shown) == ["british"])
    }

    @Test func aCategoryListPassesUntouched() {
        // Given a filter that withdraws everywhere an id a category also has, with the list lost
        let filter = GameFilter(territory: nil, policy: .hideRestrictedAnywhere)
        filter.setWithdrawn(["SLOTS": .everywhere], isListLost: true)
        let list = CatalogContent.categories(
            CategoryList(items: [Category(id: "SLOTS", name: "Slots", gamesTotal: 3)]))
        // When the list is filtered
        let shown = filter.withholding(list)
        // Then it is as it was, nothing withheld, and it is not even looked at
        #expect(shown.content == list)
        #expect(shown.withheld == 0)
        #expect(!filter.filters(list))
    }

    @Test func withholdingKeepsThePagesTotalCountsWhatIsLeftAndSaysHowManyWereWithheld() throws {
        // Given a page of three games out of forty, two of them restricted in Great Britain
        let filter = GameFilter(territory: Territory("GB"), policy: .hideRestrictedAnywhere)
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

    @Test func aPageWithNeitherRestrictedNorWithdrawnGamesIsNotFiltered() {
        // Given withdrawals of games the page does not hold
        let filter = GameFilter(territory: Territory("GB"), policy: .hideRestrictedAnywhere)
        filter.setWithdrawn(["elsewhere": .everywhere], isListLost: false)
        let content = filterPage(filterGame("a"), filterGame("b"))
        let entry = CacheEntry(key: filterKey, content: content, storedAt: Date(timeIntervalSince1970: 0))
        // Then neither the content nor its entry is filtered: the fast path
        #expect(!filter.filters(content))
        #expect(!filter.filters(entry))
        #expect(!filter.withdraws(from: content))
    }

    @Test func aPageWithARestrictedGameIsFiltered() {
        // Given a page with a game restricted somewhere else than the player's territory
        let filter = GameFilter(territory: Territory("GB"), policy: .hideRestrictedAnywhere)
        let content = filterPage(filterGame("a", restrictedIn: ["MT"]), filterGame("b"))
        let entry = CacheEntry(key: filterKey, content: content, storedAt: Date(timeIntervalSince1970: 0))
        // Then the content and its entry are filtered, though no withdrawal names them
        #expect(filter.filters(content))
        #expect(filter.filters(entry))
        #expect(!filter.withdraws(from: content))
    }

    @Test func aPageWithAWithdrawnGameIsFiltered() {
        // Given a page with no restricted game, one of whose games is withdrawn in a territory
        let filter = GameFilter(territory: Territory("GB"), policy: .hideRestrictedAnywhere)
        filter.setWithdrawn(["b": .territories(["MT"])], isListLost: false)
        let content = filterPage(filterGame("a"), filterGame("b"))
        let entry = CacheEntry(key: filterKey, content: content, storedAt: Date(timeIntervalSince1970: 0))
        // Then the content and its entry are filtered
        #expect(filter.withdraws(from: content))
        #expect(filter.filters(content))
        #expect(filter.filters(entry))
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
        let territory = try #require(Territory(code.player))
        let filter = GameFilter(territory: territory, policy: .hideRestrictedAnywhere)
        filter.setWithdrawn(["gone": .territories([code.restriction])], isListLost: false)
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
