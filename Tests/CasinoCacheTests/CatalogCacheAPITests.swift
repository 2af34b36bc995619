@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

/// What an app developer meets first: answers as values, the page size from the bundle, updates by key.
@Suite(.timeLimit(.minutes(5)))
struct CatalogCacheAPITests: CacheFixtureSuite {
    let fixture: CacheFixture

    init() throws {
        fixture = try CacheFixture()
    }

    @Test func answersCompareAsValuesWithTheirState() async throws {
        // Given a first launch: the categories come from the bundle
        let cache = makeCache()
        let first = cache.cachedCategories(edition: english)
        // Then the answer says so without a switch, and equal lookups give equal answers
        #expect(first.state == .bundled)
        let second = cache.cachedCategories(edition: english)  // now from memory: same value, another tier
        #expect(second != first && second.value == first.value && second.metadata?.tier == .memory)
        #expect(second == cache.cachedCategories(edition: english))
        #expect(first.map { $0.items.count } == .bundled(bundle.categories().items.count, first.metadata!))
        #expect(first.map { $0.items.count }.value == bundle.categories().items.count)
        // And a miss is a miss
        let miss = makeCache(bundled: false).cachedCategories(edition: english)
        #expect(miss.state == .miss && miss.metadata == nil && miss == .miss)
    }

    @Test func takesThePageSizeFromTheBundledSnapshot() throws {
        // Given a bundle cut into pages of 7 games
        let pagesOf7 = try BundleFixture(.pageSize7, in: directory, at: "out-7")
        let catalog = pagesOf7.catalog
        let out = pagesOf7.directory
        // When a cache is made without a page size, with one, and without a bundle
        let fromBundle = CatalogCache(upstream: upstream, cacheDirectory: nil, bundleDirectory: out, clock: clock)
        var configured = CatalogCache.Configuration.default
        configured.pageSize = 20
        let explicit = CatalogCache(
            configuration: configured, upstream: upstream, cacheDirectory: nil, bundleDirectory: out, clock: clock)
        let unbundled = CatalogCache(upstream: upstream, cacheDirectory: nil, bundleDirectory: nil, clock: clock)
        // Then the bundle's page size applies unless one is configured; 10 without either
        #expect(fromBundle.pageSize == 7)
        #expect(explicit.pageSize == 20)
        #expect(unbundled.pageSize == CatalogCache.Configuration.fallbackPageSize)
        #expect(Set(fromBundle.bundledEditions) == Set(catalog.editions.map(\.edition)))
        #expect(fromBundle.defaultEdition == catalog.defaultEdition)
        // And the bundled second page sits at offset 7, where the cache caches it
        #expect(
            fromBundle.cachedGamesPage(edition: english, categoryId: catalog.editions[0].pages[0].categoryId, offset: 7)
                .state == .bundled)
    }

    @Test(arguments: [0, -3, Int.max])
    func keepsAConfiguredPageSizeWithinTheSchemasRange(pageSize: Int) {
        var configuration = CatalogCache.Configuration.default
        configuration.pageSize = pageSize
        let cache = CatalogCache(
            configuration: configuration, upstream: upstream, cacheDirectory: nil, bundleDirectory: nil)
        #expect((1...CatalogRules.maxPageSize).contains(cache.pageSize))
    }

    @Test func awaitsTheNextUpdateOfOneKeyCausedByTheAction() async throws {
        // Given a bundle and a provider whose categories changed since
        upstream.set { $0.version = 1 }
        let cache = makeCache()
        let other = cache.updates(for: .categories(french))
        // When a read starts the background refresh
        let update = try await cache.nextUpdate(for: .categories(english)) { () async throws in
            let answer = try await cache.categories(edition: english)
            #expect(answer.state == .bundled)
        }
        // Then the update of that key arrives, with the new content
        let received = try #require(update)
        #expect(received.key == .categories(english))
        guard case .updated(.categories(let list), _) = received.event else {
            Issue.record("expected new categories, got \(received.event)")
            return
        }
        #expect(list.items[0].name == bundle.categories().items[0].name + " v1")
        // And a stream for another key saw nothing of it
        await cache.waitForRefreshes()
        let task = Task {
            for await update in other { return update as CacheUpdate? }
            return nil
        }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        #expect(await task.value == nil)
    }
}
