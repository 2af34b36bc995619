@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogServer
import Foundation
import Testing

/// Withdrawals end to end, over HTTP with the simulator: the provider withdraws a game and the
/// app stops showing it, by the push or by its next synchronization, offline and across relaunches.
@Suite(.timeLimit(.minutes(3)))
struct WithdrawalScenarioTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func makeCache(_ server: SimulatorFixture, bundle: URL) -> CatalogCache {
        CatalogCache(
            configuration: .showingEveryGame, upstream: server.upstream(),
            cacheDirectory: directory.child("cache"), bundleDirectory: bundle, logger: silentLogger)
    }

    static func ids(_ result: CacheResult<GamesPage>) -> [String] { result.value?.items.map(\.id) ?? [] }

    @Test func aGameWithdrawnMidDayLeavesAnOfflineLobbyAndStaysGoneAcrossARelaunchBundleIncluded() async throws {
        try await SimulatorFixture.run(in: directory) { server in
            // Given an app showing its bundled lobby, then offline (every request fails)
            let bundle = try server.writeBundle(in: directory)
            let categoryId = server.firstCategoryId
            let cache = makeCache(server, bundle: bundle)
            let shown = cache.cachedGamesPage(edition: english, categoryId: categoryId)
            let withdrawn = try #require(Self.ids(shown).dropFirst().first)
            server.simulator.update { $0.errorRate = 1 }
            let updates = UpdateCollector(cache.updates())
            // When the provider withdraws a game and its push arrives
            let push = try CatalogInvalidation(
                json: server.simulator.withdraw(Withdrawal(id: withdrawn)))
            let report = await cache.markStale(push)
            // Then the lobby on screen is told to drop the tile, and the next read leaves it out
            await updates.wait(for: 1)
            #expect(report.withdrawnFrom.contains(.gamesPage(english, categoryId: categoryId, offset: 0)))
            #expect(updates.contentUpdates.contains { $0.2.removed == [withdrawn] })
            let next = cache.cachedGamesPage(edition: english, categoryId: categoryId)
            #expect(!Self.ids(next).contains(withdrawn) && next.metadata?.withheld == 1)
            // And after a relaunch, still offline, the bundle's copy leaves it out too
            await cache.flush()
            let relaunched = makeCache(server, bundle: bundle)
            let fromBundle = relaunched.cachedGamesPage(edition: english, categoryId: categoryId)
            #expect(fromBundle.metadata?.tier == .bundled)
            #expect(!Self.ids(fromBundle).contains(withdrawn) && !Self.ids(fromBundle).isEmpty)
        }
    }

    @Test func anAppThatMissedThePushLearnsTheListAtItsNextSynchronization() async throws {
        try await SimulatorFixture.run(in: directory) { server in
            // Given a game withdrawn at the provider while the app was not running
            let bundle = try server.writeBundle(in: directory)
            let categoryId = server.firstCategoryId
            let withdrawn = try #require(server.bundledPage(categoryId).items.first?.id)
            _ = try server.simulator.withdraw(Withdrawal(id: withdrawn))
            let cache = makeCache(server, bundle: bundle)
            #expect(Self.ids(cache.cachedGamesPage(edition: english, categoryId: categoryId)).first == withdrawn)
            // When it synchronizes
            let first = await cache.synchronize()
            // Then the answer brought the list, on disk when that returned: a launch after the app
            // was killed at that moment (nothing flushed) starts from it
            #expect(first.withdrawalSequence == 1, "\(first)")
            #expect(makeCache(server, bundle: bundle).withdrawalSequence == 1)
            // And the page leaves the game out
            #expect(first.withdrawnFrom.contains(.gamesPage(english, categoryId: categoryId, offset: 0)))
            #expect(!Self.ids(cache.cachedGamesPage(edition: english, categoryId: categoryId)).contains(withdrawn))
            // And a second synchronization asks from the list's sequence and gets none again
            let second = await cache.synchronize()
            #expect(second.withdrawalSequence == nil && cache.withdrawalSequence == 1, "\(second)")
        }
    }
}
