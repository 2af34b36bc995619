@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

@_spi(CatalogTools) @testable import CasinoCache

/// Bulk validation on its own (``CatalogSynchronizer``): what each verdict does to the tiers, and the
/// fallback of an upstream without it. The collaborators are wired as `CatalogCache.init` wires them
/// (``SynchronizerFixture``), over a disk tier in a fresh temporary directory and a
/// ``ScriptedUpstream``.
@Suite(.timeLimit(.minutes(1)))
struct CatalogSynchronizerTests {
    @Test func aCurrentVerdictRenewsTheEntryWithoutAFetch() async throws {
        // Given a page stored a day ago, and an upstream calling every key sent current
        let fixture = try SynchronizerFixture()
        fixture.store(syncPage("a"), for: syncKey, storedAgo: 86_400, etag: "v1")
        fixture.upstream.scriptValidation { hashes in hashes.mapValues { _ in .current(etag: "v2") } }
        // When it synchronizes
        let report = await fixture.synchronizer.synchronize()
        // Then the page is fresh again, with the answer's validator, and was not fetched
        #expect(report.keys == 1)
        #expect(report.current == 1)
        #expect(fixture.memory.entry(for: syncKey)?.storedAt == fixture.clock.now)
        #expect(fixture.memory.entry(for: syncKey)?.etag == "v2")
        #expect(fixture.upstream.calls(for: syncKey) == 0)
    }

    @Test func inlineContentThatIsNotThePageAskedForIsFetchedInstead() async throws {
        // Given a stored page, and a validation answering "changed" with another page's content
        let fixture = try SynchronizerFixture()
        fixture.store(syncPage("a"), for: syncKey, storedAgo: 86_400)
        fixture.upstream.scriptValidation { hashes in
            hashes.mapValues { _ in .changed(syncPage("x", offset: 10), etag: nil) }
        }
        fixture.upstream.script(syncKey, .content(syncPage("b"), etag: "v3"))
        // When it synchronizes
        let report = await fixture.synchronizer.synchronize()
        // Then the inline content was refused and the page fetched on its own
        #expect(report.installed == 0)
        #expect(report.refetched == 1)
        #expect(report.failedFetches == 0)
        #expect(fixture.upstream.calls(for: syncKey) == 1)
        #expect(fixture.memory.entry(for: syncKey)?.content == syncPage("b"))
    }

    @Test func aRemovedVerdictForgetsTheEntryInMemoryAndOnDisk() async throws {
        // Given a page in memory and on disk
        let fixture = try SynchronizerFixture()
        fixture.store(syncPage("a"), for: syncKey, storedAgo: 60)
        await fixture.disk.flush()
        fixture.upstream.scriptValidation { hashes in hashes.mapValues { _ in .removed } }
        // When the provider says it no longer has it
        let report = await fixture.synchronizer.synchronize()
        // Then neither tier holds it
        #expect(report.removed == 1)
        #expect(fixture.memory.entry(for: syncKey) == nil)
        #expect(fixture.disk.entry(for: syncKey) == nil)
    }

    @Test func anEntryOnlyOnDiskIsSentByItsHeaderAndRenewedThere() async throws {
        // Given a page a day old on disk only (a new launch), and an upstream calling it current
        let fixture = try SynchronizerFixture()
        fixture.store(syncPage("a"), for: syncKey, storedAgo: 86_400)
        await fixture.disk.flush()
        fixture.memory.trim()
        fixture.upstream.scriptValidation { hashes in hashes.mapValues { _ in .current(etag: nil) } }
        // When it synchronizes
        let report = await fixture.synchronizer.synchronize()
        // Then the page was sent, renewed on disk (what the next launch reads), and not put in memory
        #expect(report.keys == 1)
        #expect(report.current == 1)
        #expect(fixture.memory.entry(for: syncKey) == nil)
        #expect(fixture.reopenedDisk().entry(for: syncKey)?.storedAt == fixture.clock.now)
    }

    @Test func anUpstreamWithoutBulkValidationRefreshesWhatIsNotFreshKeyByKey() async throws {
        // Given a stale page and a fresh one, and an upstream with no bulk validation
        let fixture = try SynchronizerFixture()
        let freshKey = CacheKey.gamesPage(english, categoryId: "SLOTS", offset: 10)
        fixture.store(syncPage("a"), for: syncKey, storedAgo: 86_400)
        fixture.store(syncPage("f", offset: 10), for: freshKey, storedAgo: 60)
        fixture.upstream.script(syncKey, .content(syncPage("b"), etag: nil))
        // When it synchronizes
        let report = await fixture.synchronizer.synchronize()
        // Then only the stale page was refreshed, on its own
        #expect(!report.isSupported)
        #expect(report.refreshedKeyByKey == 1)
        #expect(fixture.upstream.calls(for: syncKey) == 1)
        #expect(fixture.upstream.calls(for: freshKey) == 0)
        #expect(fixture.memory.entry(for: syncKey)?.content == syncPage("b"))
    }
}

/// A ``CatalogSynchronizer`` and the collaborators `CatalogCache.init` gives it; no bundle, no queue.
private struct SynchronizerFixture {
    let clock = ManualClock()
    let upstream: ScriptedUpstream
    let directory: TemporaryDirectory
    let memory: MemoryTier
    let disk: DiskTier
    let writer: CacheWriter
    let synchronizer: CatalogSynchronizer

    init() throws {
        let configuration = CatalogCache.Configuration.default
        upstream = ScriptedUpstream(clock: clock)
        directory = try TemporaryDirectory()
        let statistics = StatisticsCounter()
        memory = MemoryTier(countLimit: configuration.memoryCountLimit, costLimit: configuration.memoryCostLimit)
        let filter = GameFilter(
            policy: configuration.unknownTerritoryPolicy, directory: nil, savesChanges: false, memory: memory,
            logger: silentLogger)
        let answers = CacheAnswers(
            snapshotGeneratedAt: nil, snapshotSource: .bundle, filter: filter, statistics: statistics)
        disk = DiskTier(configuration: .init(directory: directory.child("cache")), logger: silentLogger)
        let tiers = CacheTiers(
            memory: memory, disk: disk, bundled: nil, answers: answers, images: ImagePrefetcher(),
            statistics: statistics, configuration: configuration, pageSize: 10)
        writer = CacheWriter(tiers: tiers, clock: clock)
        let flights = FetchFlights(timeout: configuration.upstreamTimeout, clock: clock, statistics: statistics)
        let fetcher = CatalogFetcher(
            upstream: upstream, flights: flights, writer: writer, statistics: statistics, pageSize: 10)
        let scheduler = RefreshScheduler(
            configuration: configuration, clock: clock, answers: answers, statistics: statistics, logger: silentLogger)
        let deadline = UpstreamDeadline(timeout: configuration.upstreamTimeout, clock: clock)
        let players = PlayerLists(
            upstream: upstream, queue: nil, tiers: tiers, writer: writer, flights: flights, scheduler: scheduler,
            deadline: deadline, statistics: statistics, clock: clock, logger: silentLogger)
        synchronizer = CatalogSynchronizer(
            upstream: upstream, deadline: deadline, tiers: tiers, writer: writer, fetcher: fetcher,
            scheduler: scheduler, players: players, filter: filter, answers: answers, statistics: statistics,
            clock: clock, logger: silentLogger)
    }

    /// Stores `content` for `key` in memory and on disk as network content `storedAgo` seconds old.
    func store(_ content: CatalogContent, for key: CacheKey, storedAgo: TimeInterval, etag: String? = nil) {
        let entry = CacheEntry(
            key: key, content: content, storedAt: clock.now.addingTimeInterval(-storedAgo), etag: etag,
            origin: .network)
        writer.store(entry, ifStill: writer.generation(of: key.scope))
    }

    /// A new disk tier on the same directory: what the next launch reads.
    func reopenedDisk() -> DiskTier {
        DiskTier(configuration: .init(directory: directory.child("cache")), logger: silentLogger)
    }
}

private let syncKey = CacheKey.gamesPage(english, categoryId: "SLOTS", offset: 0)

/// A page of ten of SLOTS at `offset` holding games with these ids, none restricted.
private func syncPage(_ ids: String..., offset: Int = 0) -> CatalogContent {
    .gamesPage(
        GamesPage(
            categoryId: "SLOTS", offset: offset, limit: 10, total: 40,
            items: ids.map { id in
                Game(
                    id: id, name: "Game \(id)", slug: "game-\(id)", launchUrl: "https://play.example.com/\(id)",
                    thumbnail: "https://img.example.com/\(id).png")
            }))
}
