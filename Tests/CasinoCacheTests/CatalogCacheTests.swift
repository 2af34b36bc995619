@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation
@_spi(CatalogTools) import Gzip
@_spi(CatalogTools) import ProviderAPI
import Testing

// Time limits are hang detectors: generous, for a machine busy with a build beside the tests.
@Suite(.timeLimit(.minutes(5)))
struct CatalogCacheTests: CacheFixtureSuite {
    let fixture: CacheFixture

    init() throws {
        fixture = try CacheFixture()
    }

    @Test func answersAMissWithoutABundleByWaitingForTheUpstream() async throws {
        let cache = makeCache(bundled: false)
        #expect(cache.cachedCategories(edition: english).value == nil)
        guard case .fresh(let list, let metadata) = try await cache.categories(edition: english) else {
            Issue.record("expected a fetched value")
            return
        }
        #expect(list == bundle.categories())
        #expect(metadata.tier == .upstream)
        #expect(cache.statistics().misses == 2)
    }

    @Test func aSynchronizeOnADiskThatHangsEndsAtTheDiskLimitOrWhenCancelledAndValidatesWhatMemoryHolds() async throws {
        // Given pages a previous session stored on disk, and a relaunched cache showing one bundled page
        let page = bundle.firstPage()
        let previous = makeCache(bundled: false)
        _ = try await previous.categories(edition: english)
        _ = try await previous.gamesPage(edition: english, categoryId: page.categoryId)
        await previous.flush()
        var configuration = CatalogCache.Configuration.default
        configuration.diskWaitLimit = .milliseconds(100)
        let cache = makeCache(configuration)
        _ = cache.cachedGamesPage(edition: english, categoryId: page.categoryId)
        // And a disk that hangs
        let release = try #require(cache.disk).holdQueue()
        defer { release() }

        // When it synchronizes
        let report = try await Self.endsWithin(.seconds(60)) { await cache.synchronize() }

        // Then it gives up on the disk at its limit and sends what memory holds
        #expect(report.keys == 1 && !report.isCancelled, "\(report)")
        // And a synchronize that would wait a day for the disk ends when its task is cancelled
        var patient = configuration
        patient.diskWaitLimit = .seconds(86_400)
        let waiting = makeCache(patient)
        let releaseAgain = try #require(waiting.disk).holdQueue()
        defer { releaseAgain() }
        let cancelled = try await Self.endsWithin(.seconds(60), cancellingAfter: .milliseconds(20)) {
            await waiting.synchronize()
        }
        #expect(cancelled.isCancelled && cancelled.keys == 0, "\(cancelled)")
    }

    /// `work`'s result, run in a task (cancelled after `cancellingAfter`, when given) that must end
    /// within `limit`: a hang fails the test instead of holding it.
    private static func endsWithin<Value: Sendable>(
        _ limit: Duration, cancellingAfter delay: Duration? = nil, _ work: @escaping @Sendable () async -> Value
    ) async throws -> Value {
        let ended = Locked(false)
        let task = Task {
            defer { ended.withLock { $0 = true } }
            return await work()
        }
        if let delay {
            try await Task.sleep(for: delay)
            task.cancel()
        }
        await eventually(timeout: limit) { ended.withLock { $0 } }
        try #require(ended.withLock { $0 }, "still running after \(limit)")
        return await task.value
    }

    @Test func aBundledFileChangedSinceTheBuildIsRefusedCountedAndFetchedFromTheUpstream() async throws {
        // Given a bundle whose first page was rewritten, same content pretty-printed, and whose manifest
        // was given the new sizes but not the new SHA-256: only the digest tells
        let page = bundle.firstPage()
        var manifest = bundle.manifest
        let index = manifest.files.firstIndex { $0.key == .gamesPage(english, categoryId: page.categoryId, offset: 0) }!
        let file = bundle.directory.appendingPathComponent(manifest.files[index].path)
        let object = try JSONSerialization.jsonObject(with: Gzip.decompress(Data(contentsOf: file), limit: 1 << 20))
        let json = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        let packed = try Gzip.compress(json)
        try packed.write(to: file)
        manifest.files[index].compressedBytes = packed.count
        manifest.files[index].uncompressedBytes = json.count
        try CatalogCoding.prettyEncoder().encode(manifest).write(
            to: bundle.directory.appendingPathComponent(Manifest.fileName))
        let cache = makeCache(disk: false)
        // When the first frame asks for it, then the lobby waits for it
        let first = cache.cachedGamesPage(edition: english, categoryId: page.categoryId)
        let answer = try await cache.gamesPage(edition: english, categoryId: page.categoryId)
        // Then the bundle does not answer, the file is counted once, and the upstream's page is shown
        #expect(first.value == nil)
        #expect(cache.statistics().corruptBundledFiles == 1)
        #expect(answer.state == .fresh && answer.metadata?.tier == .upstream)
        #expect(answer.value == page)
        #expect(upstream.calls == 1)
    }

    @Test func treatsAnEntryStoredInTheFutureAsStale() async throws {
        // Given content fetched now, then the device clock set back a day
        let cache = makeCache(bundled: false)
        _ = try await cache.categories(edition: english)
        await cache.waitForRefreshes()
        clock.advance(by: .seconds(-86_400))
        // When it is read: its age is unknown, so it is not fresh until storedAt + TTL
        guard case .stale = cache.cachedCategories(edition: english) else {
            Issue.record("expected stale")
            return
        }
    }

    @Test(arguments: [-10, Int.max, Int.min])
    func refusesAPageOffsetNoPageCanHave(offset: Int) async throws {
        // Given a cache, when an app asks for an impossible offset, then it is a named error, not a trap
        let cache = makeCache(bundled: false)
        let error = await #expect(throws: CacheError.self) {
            try await cache.gamesPage(edition: english, categoryId: "CATEGORY001", offset: offset)
        }
        #expect(error?.code == .invalidRequest)
        #expect(cache.cachedGamesPage(edition: english, categoryId: "CATEGORY001", offset: offset).value == nil)
    }

    @Test func throwsOnAMissWhenTheUpstreamFails() async throws {
        let cache = makeCache(bundled: false)
        upstream.set { $0.isOffline = true }
        let error = await #expect(throws: CacheError.self) { try await cache.categories(edition: english) }
        #expect(error?.code == .upstreamFailed)
        #expect(error?.cause is URLError)
    }

    @Test func timesOutAnUpstreamThatHangsAndKeepsServingStale() async throws {
        // Given a stale entry and an upstream that never answers
        let cache = makeCache()
        _ = try await cache.categories(edition: english)
        await cache.waitForRefreshes()
        clock.advance(by: .seconds(7 * 3600))
        upstream.set { $0.hangs = true }
        let updates = UpdateCollector(cache.updates())
        // When the app asks, then the timeout passes on the cache's clock
        guard case .stale = try await cache.categories(edition: english) else {
            Issue.record("expected stale")
            return
        }
        await eventually { clock.sleeperCount > 0 }
        clock.advance(by: .seconds(31))
        await updates.wait(for: 1)
        // Then the refresh fails as timed out, and the stale value stays
        #expect(updates.failures.first?.1.code == .timedOut)
        #expect(cache.cachedCategories(edition: english).value == bundle.categories())
    }

    @Test func anUpstreamThatIgnoresCancellationIsAbandonedAtTheDeadlineAndItsLateAnswerDiscarded() async throws {
        // Given no bundle and an upstream whose calls wait, deaf to cancellation, until let through
        let cache = makeCache(bundled: false)
        upstream.close()
        let asked = Task { try await cache.gamesPage(edition: english, categoryId: bundle.firstCategoryId) }
        // When the timeout passes on the cache's clock
        await eventually { clock.sleeperCount > 0 }
        clock.advance(by: .seconds(31))
        // Then the read fails as timed out without waiting for the upstream
        let error = await #expect(throws: CacheError.self) { try await asked.value }
        #expect(error?.code == .timedOut)
        // And the answer that arrives later is discarded: nothing shows it
        upstream.open()
        try await Task.sleep(for: .milliseconds(50))
        #expect(cache.cachedGamesPage(edition: english, categoryId: bundle.firstCategoryId, offset: 0).value == nil)
        #expect(upstream.calls == 1)
    }

    @Test func refusesUpstreamContentWithAWrongItemCount() async throws {
        let cache = makeCache(bundled: false)
        upstream.set { $0.returnsWrongCount = true }
        let error = await #expect(throws: CacheError.self) {
            try await cache.gamesPage(edition: english, categoryId: bundle.firstCategoryId)
        }
        #expect(error?.code == .invalidContent)
        #expect(cache.cachedGamesPage(edition: english, categoryId: bundle.firstCategoryId).value == nil)
    }

    @Test func aNotModifiedAnswerRenewsTheAgeWithoutRewritingThePayloadOrEmittingAnUpdate() async throws {
        // Given a fetched entry with an ETag, gone stale
        let cache = makeCache(bundled: false)
        _ = try await cache.categories(edition: english)
        clock.advance(by: .seconds(7 * 3600))
        let updates = UpdateCollector(cache.updates())
        // When it is refreshed and the upstream says 304
        guard case .stale = try await cache.categories(edition: english) else {
            Issue.record("expected stale")
            return
        }
        await cache.waitForRefreshes()
        // Then it is fresh again, no update was emitted, and the 304 was counted
        guard case .fresh(_, let metadata) = cache.cachedCategories(edition: english) else {
            Issue.record("expected fresh after a 304")
            return
        }
        #expect(metadata.age == 0)
        #expect(cache.statistics().notModified == 1)
        #expect(updates.updates.isEmpty)
    }

    @Test func anIdenticalRefreshEmitsNothing() async throws {
        let cache = makeCache()
        upstream.set { $0.usesETags = false }
        let updates = UpdateCollector(cache.updates())
        _ = try await cache.categories(edition: english)  // bundled, refreshed with the same content
        await cache.waitForRefreshes()
        #expect(upstream.calls == 1)
        #expect(cache.statistics().updatesEmitted == 0)
        #expect(updates.updates.isEmpty)
    }

    @Test func aCancelledCallerDoesNotStopTheSharedFetch() async throws {
        // Given two callers waiting for the same missing page, the first one cancelled
        let cache = makeCache(bundled: false)
        let categoryId = bundle.firstCategoryId
        upstream.close()
        let cancelled = Task { try await cache.gamesPage(edition: english, categoryId: categoryId) }
        let patient = Task { try await cache.gamesPage(edition: english, categoryId: categoryId) }
        await eventually { upstream.calls > 0 && cache.statistics().coalescedRequests > 0 }
        cancelled.cancel()
        // Then the cancelled caller stops waiting at once, while the fetch is still held
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        upstream.open()
        // And the other caller gets the page, the cache is filled, and there was one call
        #expect(try await patient.value.value == bundle.page(categoryId))
        #expect(upstream.calls == 1)
        guard case .fresh = cache.cachedGamesPage(edition: english, categoryId: categoryId) else {
            Issue.record("expected the page cached")
            return
        }
    }

    @Test func aFetchThatStartedBeforeALogoutDoesNotStoreTheUsersContent() async throws {
        // Given a user's content being fetched
        let cache = makeCache(bundled: false)
        let personal = CacheKey.categories(english, scope: .user("u1"))
        upstream.close()
        let fetch = Task { try await cache.content(for: personal) }
        // (the cache counts its call in the same step that notes the generation a clear bumps)
        // Other suites building bundles can keep the 2-thread pool busy for seconds: wait long,
        // and stop here rather than test the wrong order.
        await eventually(timeout: .seconds(45)) { cache.statistics().upstreamCalls > 0 && upstream.calls > 0 }
        try #require(upstream.calls > 0)
        // When the user logs out before it answers
        await cache.clear(scope: .user("u1"))
        upstream.open()
        _ = try await fetch.value
        await cache.flush()
        // Then nothing of that user is cached
        #expect(cache.cachedContent(for: personal).value == nil)
    }

    @Test func waitsAtLeastWhatTheServersRetryAfterSays() async throws {
        // Given a stale entry and an upstream that answers 429 with Retry-After: 120 s
        let cache = CatalogCache(
            upstream: RateLimitedUpstream(), cacheDirectory: nil, bundleDirectory: bundle.directory, clock: clock,
            logger: silentLogger)
        let updates = UpdateCollector(cache.updates())
        // When a bundled answer triggers a refresh that is refused
        _ = try await cache.categories(edition: english)
        await cache.waitForRefreshes()
        await updates.wait(for: 1)
        // Then the retry is planned after the server's 120 s, not the policy's 2 s
        let retryIn = updates.updates.compactMap { update -> Duration? in
            if case .refreshFailed(_, _, let retryIn) = update.event { return retryIn }
            return nil
        }.first
        #expect(retryIn == .seconds(120))
    }

    @Test func restsAfterTheLastRetryThenStartsANewRound() async throws {
        // Given a stale entry and an upstream that stays offline, with one attempt per round
        var configuration = CatalogCache.Configuration.default
        configuration.retry = .init(initialDelay: .seconds(1), maxDelay: .seconds(60), maxAttempts: 1)
        let cache = makeCache(configuration, bundled: false)
        _ = try await cache.categories(edition: english)
        clock.advance(by: .seconds(7 * 3600))
        upstream.set { $0.isOffline = true }
        // When the app keeps asking during the rest
        for _ in 0..<5 {
            _ = try await cache.categories(edition: english)
            await cache.waitForRefreshes()
        }
        // Then only one attempt was made
        #expect(upstream.calls == 2)
        // And after the rest a lookup starts a new round
        clock.advance(by: .seconds(61))
        _ = try await cache.categories(edition: english)
        await cache.waitForRefreshes()
        #expect(upstream.calls == 3)
        #expect(cache.statistics().refreshFailures == 2)
    }

    @Test func pagesPastTheCachedLimitAlwaysComeFromTheUpstream() async throws {
        var configuration = CatalogCache.Configuration.default
        configuration.maxCachedPagesPerCategory = 1
        let cache = makeCache(configuration, bundled: false)
        let category = try #require(bundle.catalog.editions[0].pages.first { $0.offset == 10 })
        _ = try await cache.gamesPage(edition: english, categoryId: category.categoryId, offset: 10)
        _ = try await cache.gamesPage(edition: english, categoryId: category.categoryId, offset: 10)
        #expect(upstream.calls == 2)
        #expect(cache.cachedGamesPage(edition: english, categoryId: category.categoryId, offset: 10).value == nil)
    }

    @Test func aPageReadByItsPartsAnswersAsAReadByItsKeyAndIsCountedOnce() async throws {
        // Given a page fetched into memory (no disk, no bundle: memory is all there is)
        let cache = makeCache(bundled: false, disk: false)
        let page = try #require(bundle.catalog.editions[0].pages.first)
        let key = CacheKey.gamesPage(english, categoryId: page.categoryId, offset: page.offset)
        _ = try await cache.gamesPage(edition: english, categoryId: page.categoryId, offset: page.offset)
        let callsAfterFetch = upstream.calls
        // When it is read fresh by the synchronous, the async and the keyed reads
        let fresh = [
            cache.cachedGamesPage(edition: english, categoryId: page.categoryId, offset: page.offset),
            try await cache.gamesPage(edition: english, categoryId: page.categoryId, offset: page.offset),
            cache.cachedContent(for: key).map { content -> GamesPage in
                guard case .gamesPage(let page) = content else {
                    return GamesPage(categoryId: "", offset: 0, limit: 0, total: 0, items: [])
                }
                return page
            },
        ]
        // Then all three answer the same fresh page from memory, each counted once, with no upstream call
        for result in fresh {
            #expect(result == fresh[0])
            #expect(result.state == .fresh && result.metadata?.tier == .memory && result.value == page)
        }
        #expect(cache.statistics().fresh == 3)
        #expect(upstream.calls == callsAfterFetch)
        // When the page's time to live has passed and the synchronous, then the async read answers
        clock.advance(by: CatalogCache.Configuration.default.gamesPageTTL + .seconds(60))
        #expect(
            cache.cachedGamesPage(edition: english, categoryId: page.categoryId, offset: page.offset).state == .stale)
        let stale = try await cache.gamesPage(edition: english, categoryId: page.categoryId, offset: page.offset)
        // Then both are stale, each counted once (the async fast path leaves a stale hit to the full
        // lookup), and the async read refreshes it
        #expect(stale.state == .stale && stale.value == page)
        #expect(cache.statistics().stale == 2)
        #expect(cache.statistics().fresh == 3)
        await cache.waitForRefreshes()
        #expect(upstream.calls == callsAfterFetch + 1)
        // And another category, offset, edition or a user's scope is not this page
        #expect(
            cache.cachedGamesPage(edition: english, categoryId: page.categoryId, offset: page.offset + 1).state == .miss
        )
        #expect(
            cache.cachedGamesPage(
                edition: try Edition(id: "en-Android"), categoryId: page.categoryId, offset: page.offset
            ).state == .miss)
        #expect(
            cache.cachedContent(
                for: CacheKey.gamesPage(english, categoryId: page.categoryId, offset: page.offset, scope: .user("u1"))
            ).state == .miss)
    }

    @Test func aDiskEntryOlderThanTheShippedBundleGivesWayToTheBundle() async throws {
        // Given a page cached on disk long before this app's bundle was generated
        let oldClock = ManualClock(now: bundle.generatedAt.addingTimeInterval(-90 * 86_400))
        let old = CatalogCache(
            upstream: upstream, cacheDirectory: directory.child("cache"), bundleDirectory: nil, clock: oldClock,
            logger: silentLogger)
        upstream.set { $0.version = 6 }
        _ = try await old.gamesPage(edition: english, categoryId: bundle.firstCategoryId)
        await old.flush()
        // When the new app version (with a newer bundle) reads it
        let cache = makeCache()
        // Then the bundle answers
        guard case .bundled(let page, _) = cache.cachedGamesPage(edition: english, categoryId: bundle.firstCategoryId)
        else {
            Issue.record("expected the newer bundle")
            return
        }
        #expect(page == bundle.page(bundle.firstCategoryId))
    }

    @Test func clearingAUserScopeKeepsGlobalContent() async throws {
        let cache = makeCache(bundled: false)
        _ = try await cache.categories(edition: english)
        let personal = CacheKey.categories(english, scope: .user("u1"))
        _ = try await cache.content(for: personal)
        await cache.clear(scope: .user("u1"))
        #expect(cache.cachedContent(for: personal).value == nil)
        #expect(cache.cachedCategories(edition: english).value != nil)
        await cache.clear()
        #expect(cache.cachedCategories(edition: english).value == nil)
    }

    @Test func invalidatingAKeyFallsBackToTheBundle() async throws {
        let cache = makeCache()
        upstream.set { $0.version = 7 }
        _ = try await cache.categories(edition: english)
        await cache.waitForRefreshes()
        guard case .fresh = cache.cachedCategories(edition: english) else {
            Issue.record("expected fresh")
            return
        }
        cache.invalidate(.categories(english))
        guard case .bundled = cache.cachedCategories(edition: english) else {
            Issue.record("expected the bundle after invalidation")
            return
        }
    }

    @Test func prefetchFillsTheFirstPageOfEachCategory() async throws {
        let cache = makeCache(bundled: false)
        let ids = bundle.categories().items.map(\.id)
        await cache.prefetch(edition: english, categoryIds: ids)
        for id in ids {
            guard case .fresh = cache.cachedGamesPage(edition: english, categoryId: id) else {
                Issue.record("expected \(id) prefetched")
                continue
            }
        }
        #expect(upstream.calls == ids.count)
    }

    @Test func aBundledEditionFallsBackToTheDefaultForAnUnknownLanguage() throws {
        let cache = makeCache()
        let german = try Edition(id: "de-iPhone")
        guard case .bundled(let list, _) = cache.cachedCategories(edition: german) else {
            Issue.record("expected the default edition's bundle")
            return
        }
        #expect(list == bundle.categories(english))
    }

    @Test func computesChangesByID() {
        let old = bundle.page(bundle.firstCategoryId)
        var new = old
        new.items[1].name = "Renamed"
        new.items.removeLast()
        new.items.append(
            Game(
                id: "new-1", name: "New", slug: "new", launchUrl: "https://l.example.com/1",
                thumbnail: "https://t.example.com/1.jpg"))
        let changes = ContentChanges(from: .gamesPage(old), to: .gamesPage(new))
        #expect(changes.inserted == ["new-1"])
        #expect(changes.removed == [old.items.last!.id])
        #expect(changes.updated == [old.items[1].id])
        #expect(!changes.isReordered)
    }

    @Test(arguments: [1, 2, 3, 6, 10])
    func backsOffExponentiallyWithinTheJitterAndStops(attempt: Int) {
        let policy = CatalogCache.RetryPolicy.default
        guard let low = policy.delay(afterAttempt: attempt, unit: 0),
            let high = policy.delay(afterAttempt: attempt, unit: 0.999)
        else {
            #expect(attempt >= policy.maxAttempts)
            return
        }
        let base = min(2 * pow(2, Double(attempt - 1)), 300)
        #expect(low >= .milliseconds(Int64(base * 800) - 1))
        #expect(high <= .milliseconds(Int64(base * 1200) + 1))
    }
}

/// An upstream that always answers `429 Retry-After: 120`.
struct RateLimitedUpstream: CatalogUpstream {
    func categories(edition: Edition, etag: String?) async throws -> UpstreamResponse<CategoryList> {
        throw UpstreamError(.rateLimited, "too many requests", status: 429, retryAfter: 120)
    }

    func gamesPage(
        edition: Edition, categoryId: String, offset: Int, limit: Int, etag: String?
    ) async throws
        -> UpstreamResponse<GamesPage>
    {
        throw UpstreamError(.rateLimited, "too many requests", status: 429, retryAfter: 120)
    }
}
