@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

/// An upstream without bulk validation (``CountingUpstream``): `synchronize()` and the batched
/// refresh of bundled answers fall back to one call per key. Bulk validation itself is tested end to
/// end against the simulator (the tools' `CatalogSynchronizationTests`).
@Suite(.timeLimit(.minutes(2)))
struct KeyByKeyRefreshTests: CacheFixtureSuite {
    let fixture: CacheFixture

    init() throws {
        fixture = try CacheFixture()
    }

    @Test func batchingFallsBackToKeyByKeyWithAnUpstreamWithoutBulkValidation() async throws {
        // Given a batching cache over an upstream with per-key calls only
        var configuration = CatalogCache.Configuration.default
        configuration.refreshBatchWindow = .seconds(1)
        let cache = makeCache(configuration)
        // When a bundled answer is gathered and sent
        _ = try await cache.categories(edition: english)
        await cache.waitForRefreshes()
        // Then it was refreshed on its own, and the next bundled answer refreshes at once
        #expect(upstream.calls == 1)
        _ = try await cache.gamesPage(edition: english, categoryId: bundle.firstCategoryId)
        await eventually { upstream.calls == 2 }
        #expect(upstream.calls == 2)
        await cache.waitForRefreshes()
        await cache.flush()
    }

    @Test func anUpstreamWithoutBulkValidationRefreshesKeyByKey() async throws {
        // Given an upstream that only has the per-key calls
        let cache = makeCache()
        _ = cache.cachedCategories(edition: english)
        // When it synchronizes
        let report = await cache.synchronize()
        // Then no validation was sent and the bundled categories were refreshed on their own
        #expect(!report.isSupported)
        #expect(report.requests == 0)
        #expect(report.refreshedKeyByKey == 1)
        #expect(upstream.calls == 1)
        await cache.flush()
    }
}
