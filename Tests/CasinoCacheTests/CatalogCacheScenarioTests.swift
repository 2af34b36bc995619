@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

/// The seed's manual checklist, automated: an injected clock instead of waiting hours, a real
/// disk directory and a real bundled snapshot, an upstream that counts its calls.
// Time limits are hang detectors: generous, for a machine busy with a build beside the tests.
@Suite(.timeLimit(.minutes(5)))
struct CatalogCacheScenarioTests: CacheFixtureSuite {
    let fixture: CacheFixture

    init() throws {
        fixture = try CacheFixture()
    }

    @Test func firstLaunchServesTheBundleAtOnceThenFetchesOnceAndUpdatesOnceThenIsFresh() async throws {
        // Given a first launch: nothing cached, the upstream has newer content
        upstream.set { $0.version = 1 }
        let cache = makeCache()
        let updates = UpdateCollector(cache.updates())
        // When the lobby renders synchronously, then asks
        let firstFrame = cache.cachedCategories(edition: english)
        let answer = try await cache.categories(edition: english)
        // Then both are the bundled categories, with the snapshot's date
        guard case .bundled(let list, let metadata) = answer, case .bundled = firstFrame else {
            Issue.record("expected bundled answers, got \(answer) and \(firstFrame)")
            return
        }
        #expect(list == bundle.categories())
        #expect(metadata.storedAt == bundle.generatedAt)
        // And one background fetch makes one update with the changed category
        await cache.waitForRefreshes()
        await updates.wait(for: 1)
        #expect(upstream.calls == 1)
        #expect(updates.contentUpdates.count == 1)
        #expect(updates.contentUpdates.first?.2.updated == [bundle.categories().items[0].id])
        // And the next answer is fresh, without the network
        guard case .fresh(let refreshed, _) = try await cache.categories(edition: english) else {
            Issue.record("expected fresh")
            return
        }
        #expect(refreshed.items[0].name.hasSuffix(" v1"))
        #expect(upstream.calls == 1)
    }

    @Test func secondLaunchWithinTheTimeToLiveIsFreshFromDiskWithoutTheNetwork() async throws {
        // Given a first session that fetched and persisted the categories and a page
        let first = makeCache()
        _ = try await first.categories(edition: english)
        _ = try await first.gamesPage(edition: english, categoryId: bundle.firstCategoryId)
        await first.waitForRefreshes()
        await first.flush()
        let callsAfterFirstSession = upstream.calls
        // When the app relaunches an hour later (a new cache on the same directory)
        clock.advance(by: .seconds(3600))
        let second = makeCache()
        // Then the first frame and the async answers are fresh from disk, with zero upstream calls
        guard case .fresh(_, let metadata) = second.cachedCategories(edition: english) else {
            Issue.record("expected fresh")
            return
        }
        #expect(metadata.tier == .disk)
        guard case .fresh = try await second.gamesPage(edition: english, categoryId: bundle.firstCategoryId) else {
            Issue.record("expected fresh page")
            return
        }
        await second.waitForRefreshes()
        #expect(upstream.calls == callsAfterFirstSession)
        #expect(second.statistics().upstreamCalls == 0)
    }

    @Test func afterTheTimeToLiveServesStaleAtOnceRefreshesOnceAndUpdatesOnce() async throws {
        // Given cached categories
        let cache = makeCache()
        _ = try await cache.categories(edition: english)
        await cache.waitForRefreshes()
        let callsBefore = upstream.calls
        // When 7 hours pass and the provider changed its content
        clock.advance(by: .seconds(7 * 3600))
        upstream.set { $0.version = 2 }
        let updates = UpdateCollector(cache.updates())
        let answer = try await cache.categories(edition: english)
        // Then the stale value is served at once, one refresh runs, one update arrives
        guard case .stale(let list, let metadata) = answer else {
            Issue.record("expected stale, got \(answer)")
            return
        }
        #expect(!list.items[0].name.hasSuffix(" v2"))
        #expect(metadata.age >= 7 * 3600)
        await cache.waitForRefreshes()
        await updates.wait(for: 1)
        #expect(upstream.calls == callsBefore + 1)
        #expect(updates.contentUpdates.count == 1)
        guard case .fresh(let refreshed, _) = cache.cachedCategories(edition: english) else {
            Issue.record("expected fresh after the refresh")
            return
        }
        #expect(refreshed.items[0].name.hasSuffix(" v2"))
    }

    @Test func offlineServesStaleReportsTheFailureAndRefreshesWhenBackOnline() async throws {
        // Given a cached page that has gone stale, and no network
        let cache = makeCache()
        let categoryId = bundle.firstCategoryId
        _ = try await cache.gamesPage(edition: english, categoryId: categoryId)
        await cache.waitForRefreshes()
        clock.advance(by: .seconds(7 * 3600))
        upstream.set {
            $0.isOffline = true
            $0.version = 3
        }
        let updates = UpdateCollector(cache.updates())
        // When the app asks
        let answer = try await cache.gamesPage(edition: english, categoryId: categoryId)
        await cache.waitForRefreshes()
        await updates.wait(for: 1)
        // Then the stale page is served, and the failure is reported with a retry planned
        guard case .stale(let page, _) = answer else {
            Issue.record("expected stale, got \(answer)")
            return
        }
        #expect(page == bundle.page(categoryId))
        let failure = try #require(updates.failures.first)
        #expect(failure.1.code == .upstreamFailed)
        #expect(failure.2 == 1)
        #expect(cache.statistics().refreshFailures == 1)
        // When the network is back and the app says so
        upstream.set { $0.isOffline = false }
        await cache.refreshStale()
        await updates.wait(for: 2)
        // Then the page is refreshed and the update arrives
        #expect(updates.contentUpdates.count == 1)
        guard case .fresh(let refreshed, _) = cache.cachedGamesPage(edition: english, categoryId: categoryId) else {
            Issue.record("expected fresh after coming back online")
            return
        }
        #expect(refreshed.items[0].name.hasSuffix(" v3"))
    }

    @Test func aFailedRefreshIsRetriedWithBackoff() async throws {
        // Given a stale entry and an upstream that fails twice, then works
        let cache = makeCache()
        _ = try await cache.categories(edition: english)
        await cache.waitForRefreshes()
        clock.advance(by: .seconds(7 * 3600))
        upstream.set { $0.isOffline = true }
        let updates = UpdateCollector(cache.updates())
        _ = try await cache.categories(edition: english)
        await cache.waitForRefreshes()
        await updates.wait(for: 1)
        let retryIn = try #require(
            updates.updates.compactMap { update -> Duration? in
                if case .refreshFailed(_, _, let retryIn) = update.event { return retryIn }
                return nil
            }.first)
        // Then the first retry waits about the initial delay (2 s ± 20 %)
        #expect(retryIn >= .milliseconds(1600) && retryIn <= .milliseconds(2400))
        // When the delay passes with the network back
        upstream.set {
            $0.isOffline = false
            $0.version = 4
        }
        await eventually { clock.sleeperCount > 0 }
        clock.advance(by: .seconds(3))
        await eventually { !updates.contentUpdates.isEmpty }
        await cache.waitForRefreshes()
        // Then the retry succeeds and the new content arrives
        #expect(updates.contentUpdates.count == 1)
    }

    @Test func aCacheVersionBumpIgnoresAndRemovesOldEntries() async throws {
        // Given a persisted page written under cache version 1
        let first = makeCache()
        let categoryId = bundle.firstCategoryId
        upstream.set { $0.version = 5 }
        _ = try await first.gamesPage(edition: english, categoryId: categoryId)
        await first.waitForRefreshes()
        await first.flush()
        // When the app ships with cache version 2
        var configuration = CatalogCache.Configuration.default
        configuration.cacheVersion = 2
        upstream.set { $0.isOffline = true }
        let second = makeCache(configuration)
        // Then the old entry is not served (the bundle is), and it is removed from disk
        guard case .bundled(let page, _) = second.cachedGamesPage(edition: english, categoryId: categoryId) else {
            Issue.record("expected the bundle after a version bump")
            return
        }
        #expect(page == bundle.page(categoryId))
        #expect(second.statistics().corruptDiskEntries >= 1)
    }

    @Test func aThousandConcurrentRequestsForOneStaleKeyMakeOneUpstreamCall() async throws {
        // Given a stale entry and a slow upstream
        let cache = makeCache()
        _ = try await cache.categories(edition: english)
        await cache.waitForRefreshes()
        clock.advance(by: .seconds(7 * 3600))
        let callsBefore = upstream.calls
        upstream.close()
        // When 1,000 requests arrive at once
        let answers = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<1000 {
                group.addTask {
                    if case .stale = try? await cache.categories(edition: english) { return true }
                    return false
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        upstream.open()
        await cache.waitForRefreshes()
        // Then all were answered stale at once and the upstream was called once
        #expect(answers == 1000)
        #expect(upstream.calls == callsBefore + 1)
    }

    @Test func aThousandConcurrentMissesMakeOneUpstreamCall() async throws {
        // Given no bundle and no cache
        let cache = CatalogCache(
            upstream: upstream, cacheDirectory: nil, bundleDirectory: nil, clock: clock, logger: silentLogger)
        upstream.close()
        // When 1,000 requests wait for the same page
        let task = Task {
            await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<1000 {
                    group.addTask {
                        if case .fresh = try? await cache.gamesPage(
                            edition: english, categoryId: self.bundle.firstCategoryId)
                        {
                            return true
                        }
                        return false
                    }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
        }
        await eventually { cache.statistics().coalescedRequests >= 999 }
        upstream.open()
        // Then every one gets the page from one call
        #expect(await task.value == 1000)
        #expect(upstream.calls == 1)
        #expect(cache.statistics().coalescedRequests == 999)
    }

    @Test func printsStatisticsAfterASession() async throws {
        let cache = makeCache()
        _ = try await cache.categories(edition: english)
        for category in bundle.categories().items {
            _ = try await cache.gamesPage(edition: english, categoryId: category.id)
        }
        await cache.waitForRefreshes()
        _ = try await cache.categories(edition: english)
        let statistics = cache.statistics()
        print("statistics after the scenario: \(statistics)")
        #expect(statistics.bundled == 1 + bundle.categories().items.count)
        #expect(statistics.fresh == 1)
        #expect(statistics.hitRate == 1)
    }
}
