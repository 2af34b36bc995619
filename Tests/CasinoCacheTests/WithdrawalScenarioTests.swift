@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

/// Withdrawals end to end, over the committed lobby bundle and an in-memory upstream: the provider
/// withdraws a game and the app stops showing it, by the push or by its next synchronization,
/// offline and across relaunches. (`WithdrawalTests` has the rules one by one; the HTTP side, the
/// simulator's push and validation answer, is in Tools' `ProviderHTTPUpstreamTests`.)
@Suite(.timeLimit(.minutes(3)))
struct WithdrawalScenarioTests: CacheFixtureSuite {
    let fixture: CacheFixture

    init() throws {
        fixture = try CacheFixture()
    }

    static func ids(_ result: CacheResult<GamesPage>) -> [String] { result.value?.items.map(\.id) ?? [] }

    @Test func aGameWithdrawnMidDayLeavesAnOfflineLobbyAndStaysGoneAcrossARelaunchBundleIncluded() async throws {
        // Given an app showing its bundled lobby, offline (every request fails: no refresh lands)
        upstream.set { $0.isOffline = true }
        let categoryId = bundle.firstCategoryId
        let cache = makeCache()
        let shown = cache.cachedGamesPage(edition: english, categoryId: categoryId)
        let withdrawn = try #require(Self.ids(shown).dropFirst().first)
        let updates = UpdateCollector(cache.updates())
        // When the provider withdraws a game and its push arrives
        let push = try CatalogInvalidation(userInfo: [
            "catalog": ["withdraw": ["sequence": 1, "games": [["id": withdrawn]]]]
        ])
        let report = await cache.markStale(push)
        // Then the lobby on screen is told to drop the tile, and the next read leaves it out
        await eventually { updates.contentUpdates.contains { $0.2.removed == [withdrawn] } }
        #expect(report.withdrawnFrom.contains(.gamesPage(english, categoryId: categoryId, offset: 0)))
        #expect(updates.contentUpdates.contains { $0.2.removed == [withdrawn] })
        let next = cache.cachedGamesPage(edition: english, categoryId: categoryId)
        #expect(!Self.ids(next).contains(withdrawn) && next.metadata?.withheld == 1)
        // And after a relaunch, still offline, the bundle's copy leaves it out too
        await cache.flush()
        let relaunched = makeCache()
        let fromBundle = relaunched.cachedGamesPage(edition: english, categoryId: categoryId)
        #expect(fromBundle.metadata?.tier == .bundled)
        #expect(!Self.ids(fromBundle).contains(withdrawn) && !Self.ids(fromBundle).isEmpty)
    }

    @Test func anAppThatMissedThePushLearnsTheListAtItsNextSynchronization() async throws {
        // Given a game withdrawn at the provider while the app was not running
        let categoryId = bundle.firstCategoryId
        let withdrawn = try #require(bundle.page(categoryId).items.first?.id)
        upstream.set { $0.withdrawals = WithdrawalList(sequence: 1, games: [Withdrawal(id: withdrawn)]) }
        let cache = makeCache()
        #expect(Self.ids(cache.cachedGamesPage(edition: english, categoryId: categoryId)).first == withdrawn)
        // When it synchronizes
        let first = await cache.synchronize()
        // Then the answer brought the list, on disk when that returned: a launch after the app
        // was killed at that moment (nothing flushed) starts from it
        #expect(first.withdrawalSequence == 1, "\(first)")
        #expect(makeCache().withdrawalSequence == 1)
        // And the page leaves the game out
        #expect(first.withdrawnFrom.contains(.gamesPage(english, categoryId: categoryId, offset: 0)))
        #expect(!Self.ids(cache.cachedGamesPage(edition: english, categoryId: categoryId)).contains(withdrawn))
        // And a second synchronization asks from the list's sequence and gets none again
        let second = await cache.synchronize()
        #expect(second.withdrawalSequence == nil && cache.withdrawalSequence == 1, "\(second)")
    }
}
