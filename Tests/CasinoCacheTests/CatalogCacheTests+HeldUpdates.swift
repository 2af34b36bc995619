@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

/// Held catalogue refreshes and the memory-warning trim, on the in-memory upstream.
extension CatalogCacheTests {

    @Test func aHeldKeyWaitsForTheAppWhileOtherKeysUpdateSilently() async throws {
        // Given categories held by key, pages not, both fetched from the network
        var configuration = CatalogCache.Configuration.default
        configuration.heldUpdates = HeldUpdates(keys: [.categories(english)])
        let cache = makeCache(configuration)
        let categoryId = bundle.firstCategoryId
        _ = try await cache.categories(edition: english)
        _ = try await cache.gamesPage(edition: english, categoryId: categoryId)
        await cache.waitForRefreshes()
        let shown = cache.cachedCategories(edition: english).value
        // When both go stale and the provider changed both
        upstream.set { $0.version = 2 }
        clock.advance(by: .seconds(7 * 3600))
        let updates = UpdateCollector(cache.updates())
        _ = try await cache.categories(edition: english)
        _ = try await cache.gamesPage(edition: english, categoryId: categoryId)
        await cache.waitForRefreshes()
        await updates.wait(for: 2)
        // Then the page was replaced, the categories were held and announced
        #expect(updates.contentUpdates.map(\.0) == [.gamesPage(english, categoryId: categoryId, offset: 0)])
        #expect(updates.pendingUpdates.map(\.updated) == [[bundle.categories().items[0].id]])
        #expect(cache.cachedCategories(edition: english).value == shown)
        #expect(cache.cachedCategories(edition: english).state == .fresh)  // no refetch loop
        // When the app applies it
        #expect(cache.applyPendingUpdate(for: .categories(english)))
        await updates.wait(for: 3)
        #expect(cache.cachedCategories(edition: english).value?.items[0].name.hasSuffix(" v2") == true)
        #expect(updates.contentUpdates.count == 2)
    }

    @Test func trimKeepsTheMostRecentlyReadEntriesAndDropsTheRest() async throws {
        // Given four entries in memory, one of them read again last
        var configuration = CatalogCache.Configuration.default
        configuration.entriesKeptOnTrim = 2
        let cache = makeCache(configuration)
        let ids = bundle.categories().items.map(\.id)
        _ = cache.cachedCategories(edition: english)
        for id in ids { _ = cache.cachedGamesPage(edition: english, categoryId: id) }
        _ = cache.cachedGamesPage(edition: english, categoryId: ids[0])
        #expect(cache.memory.count == 1 + ids.count)
        // When the memory warning comes
        let dropped = cache.trim()
        // Then what was read last stays in memory, the rest is dropped (and still on disk or bundled)
        #expect(dropped == ids.count - 1)
        #expect(
            Set(cache.memory.keysByRecency) == [
                .gamesPage(english, categoryId: ids[0], offset: 0),
                .gamesPage(english, categoryId: ids[ids.count - 1], offset: 0),
            ])
        #expect(cache.cachedCategories(edition: english).state == .bundled)
        // And trimMemory() still drops everything
        cache.trimMemory()
        #expect(cache.memory.count == 0)
    }
}
