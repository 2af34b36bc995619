@_spi(CatalogTools) public import CasinoCatalog
import CatalogSupport
public import Foundation
public import Logging
@_spi(CatalogTools) import ProviderAPI

/// The casino catalogue cache: memory → disk → bundled snapshot → upstream, answering every
/// lookup as fresh, stale, bundled or (only when nothing is there) by waiting for the upstream.
///
/// Stale data is better than slow data: stale and bundled answers come back at once while the
/// cache refreshes in the background and reports new content on ``updates()``. Concurrent
/// requests for one key make one upstream call. A failed refresh keeps the old value and is
/// retried with capped exponential backoff.
///
/// ```swift
/// let cache = CatalogCache(
///     upstream: myUpstream,
///     cacheDirectory: cachesURL.appendingPathComponent("CasinoCache"),
///     bundleDirectory: Bundle.main.url(forResource: "out", withExtension: nil),
///     logger: logger)
/// let first = cache.cachedCategories(edition: edition)        // synchronous: render at once
/// let current = try await cache.categories(edition: edition)  // fresh, stale, bundled, or fetched
/// for await update in cache.updates() { … }                   // silent updates
/// ```
public final class CatalogCache: Sendable {
    /// The configuration the cache was made with.
    public let configuration: Configuration
    /// The memory tier. (SPI `Tiers`: for tests and tools that look inside; an app needs none.)
    /// The tiers are stored here as well as in ``tiers``, so reaching one costs no extra hop.
    @_spi(CatalogTools) public let memory: MemoryTier
    /// The disk tier, when the cache persists.
    @_spi(CatalogTools) public let disk: DiskTier?
    /// The snapshot shipped inside the app, when there is one.
    @_spi(CatalogTools) public let bundled: BundledTier?
    /// Where unsent player mutations survive a restart, when the cache persists.
    @_spi(CatalogTools) public var mutationQueue: PlayerMutationQueue? { players.queue }
    /// Games per page, the `limit` asked of the upstream: ``Configuration/pageSize`` when set, else
    /// the bundled snapshot's, else ``Configuration/fallbackPageSize`` (kept within 1...1000).
    public var pageSize: Int { tiers.pageSize }
    /// The editions the bundled snapshot holds, sorted (empty without a bundle).
    public var bundledEditions: [Edition] { bundled?.head?.editions ?? [] }
    /// The edition the bundled snapshot falls back to when the app's own is not bundled.
    public var defaultEdition: Edition? { bundled?.head?.defaultEdition }

    /// The bundled edition for a device: its language tag (`pt-BR`), then shorter tags (`pt`), on
    /// `platform`; else the snapshot's default edition; `nil` without a bundle.
    public func bundledEdition(language: String, platform: Platform) -> Edition? {
        bundled?.edition(language: language, platform: platform)
    }

    /// Drops everything held in memory; disk and bundle stay. ``trim()`` keeps what is on screen.
    public func trimMemory() {
        memory.trim()
    }

    // The collaborators, each owning its state behind its own lock; the cache wires them.
    let clock: any CacheClock
    /// Whether `clock` is a ``SystemClock``: the hot paths then read it without the existential call.
    let usesSystemClock: Bool
    let logger: Logger
    let statisticsCounter: StatisticsCounter
    /// Every answer and update leaves through it.
    let answers: CacheAnswers
    /// Memory → disk → bundle, and how what they hold is classified.
    let tiers: CacheTiers
    /// Stores what the upstream answers; owns the clear generations and held updates.
    let writer: CacheWriter
    /// A catalogue fetch: one upstream call per key, checked and stored.
    let fetcher: CatalogFetcher
    /// Background refreshes, retries, rests and batching.
    let scheduler: RefreshScheduler
    /// A player's lists, their changes and the queue that sends them (`Player/`).
    let players: PlayerLists
    let images: ImagePrefetcher
    /// Bulk validation: ``synchronize()``, and the batched refreshes and pushes it answers (`Sync/`).
    let synchronizer: CatalogSynchronizer
    /// The games withheld: the territory and the withdrawals, where they are saved, and what memory
    /// forgets when they change (`Filtering/`).
    let filter: GameFilter
    /// The background refresh in flight, shared by its callers (``refreshInBackground(checking:within:)``).
    let backgroundRefresh = Locked<BackgroundRefreshRun.Shared?>(nil)

    /// Creates a cache over explicit tiers.
    ///
    /// The tiers keep their own settings: `configuration`'s `cacheVersion`, `diskSizeLimit` and
    /// memory limits apply only to tiers the cache makes itself (the other initializer, or
    /// `memory: nil`).
    ///
    /// - Parameters:
    ///   - configuration: Time to live, page size, limits, retries.
    ///   - upstream: Where fresh content comes from.
    ///   - memory: The memory tier; one sized from `configuration` when `nil`. Give each cache its
    ///     own: the tier counts the cache's memory hits for ``statistics()``.
    ///   - disk: The disk tier, or `nil` for a cache that does not survive restarts.
    ///   - bundled: The bundled snapshot, or `nil`.
    ///   - mutationQueue: Where unsent player mutations are kept across restarts, or `nil` (they
    ///     are then kept in memory only).
    ///   - territoryDirectory: Where the player's territory and the withdrawals are saved for the
    ///     next launch, or `nil` (they are then kept for this launch only).
    ///   - clock: What "now" is and how to wait; inject `ManualClock` (CasinoCacheTesting) in tests.
    ///   - logger: Where the cache logs (at `.info` and below); nowhere by default.
    @_spi(CatalogTools)
    public convenience init(
        configuration: Configuration = .default, upstream: any CatalogUpstream, memory: MemoryTier? = nil,
        disk: DiskTier?, bundled: BundledTier?, mutationQueue: PlayerMutationQueue? = nil,
        territoryDirectory: URL? = nil, clock: any CacheClock = SystemClock(),
        logger: Logger = .casinoCacheDisabled
    ) {
        self.init(
            configuration: configuration, upstream: upstream, memory: memory, disk: disk, bundled: bundled,
            mutationQueue: mutationQueue, territoryDirectory: territoryDirectory, savesTerritory: true, clock: clock,
            logger: logger)
    }

    /// As the initializer above; with `savesTerritory` false, the territory and withdrawals are read
    /// from `territoryDirectory` but changes to them are never written (an app extension's view).
    init(
        configuration: Configuration, upstream: any CatalogUpstream, memory: MemoryTier?, disk: DiskTier?,
        bundled: BundledTier?, mutationQueue: PlayerMutationQueue?, territoryDirectory: URL?, savesTerritory: Bool,
        clock: any CacheClock, logger: Logger
    ) {
        self.configuration = configuration
        self.clock = clock
        usesSystemClock = clock is SystemClock
        self.logger = logger
        let bundledPageSize = bundled?.head?.pageSize
        // Settings are not trusted either: a page size the schema's rules refuse would make every
        // fetched page invalid content.
        let pageSize = min(
            max(configuration.pageSize ?? bundledPageSize ?? Configuration.fallbackPageSize, 1),
            CatalogRules.maxPageSize)
        if let bundledPageSize, bundledPageSize != pageSize {
            logger.info(
                "the configured page size differs from the bundled snapshot's; bundled pages never line up with live ones",
                metadata: ["cache.bundledPageSize": "\(bundledPageSize)", "cache.pageSize": "\(pageSize)"])
        }
        let statistics = StatisticsCounter()
        statisticsCounter = statistics
        let memory =
            memory ?? MemoryTier(countLimit: configuration.memoryCountLimit, costLimit: configuration.memoryCostLimit)
        self.memory = memory
        filter = GameFilter(
            policy: configuration.unknownTerritoryPolicy, directory: territoryDirectory, savesChanges: savesTerritory,
            memory: memory, logger: logger)
        answers = CacheAnswers(
            snapshotGeneratedAt: bundled?.generatedAt, snapshotSource: bundled?.source ?? .bundle, filter: filter,
            statistics: statistics)
        images = ImagePrefetcher()
        self.disk = disk
        self.bundled = bundled
        tiers = CacheTiers(
            memory: memory, disk: disk, bundled: bundled, answers: answers, images: images, statistics: statistics,
            configuration: configuration, pageSize: pageSize)
        writer = CacheWriter(tiers: tiers, clock: clock)
        let flights = FetchFlights(timeout: configuration.upstreamTimeout, clock: clock, statistics: statistics)
        fetcher = CatalogFetcher(
            upstream: upstream, flights: flights, writer: writer, statistics: statistics, pageSize: pageSize)
        scheduler = RefreshScheduler(
            configuration: configuration, clock: clock, answers: answers, statistics: statistics, logger: logger)
        // The deadline of upstream calls made outside a flight (bulk validation, a player's changes).
        let deadline = UpstreamDeadline(timeout: configuration.upstreamTimeout, clock: clock)
        players = PlayerLists(
            upstream: upstream, queue: mutationQueue, tiers: tiers, writer: writer, flights: flights,
            scheduler: scheduler, deadline: deadline, statistics: statistics, clock: clock, logger: logger)
        synchronizer = CatalogSynchronizer(
            upstream: upstream, deadline: deadline, tiers: tiers, writer: writer, fetcher: fetcher,
            scheduler: scheduler, players: players, filter: filter, answers: answers, statistics: statistics,
            clock: clock, logger: logger)
    }

    /// Creates a cache persisting into `cacheDirectory` and falling back to the snapshot in
    /// `bundleDirectory`.
    ///
    /// - Parameters:
    ///   - configuration: Time to live, page size, limits, retries, cache version.
    ///   - upstream: Where fresh content comes from.
    ///   - cacheDirectory: Where the disk tier keeps entries (the app's Caches directory), or `nil`.
    ///   - bundleDirectory: The pipeline's `out/` directory shipped in the app, or `nil`.
    ///   - mutationDirectory: Where a player's unsent changes (favourites made offline) are kept
    ///     across restarts: pass a directory the system does not purge (Application Support). `nil`
    ///     by default: `PlayerMutations` inside `cacheDirectory`, or memory only without one.
    ///   - clock: What "now" is and how to wait.
    ///   - logger: Where the cache logs (at `.info` and below); nowhere by default.
    public convenience init(
        configuration: Configuration = .default, upstream: any CatalogUpstream, cacheDirectory: URL?,
        bundleDirectory: URL?, mutationDirectory: URL? = nil, clock: any CacheClock = SystemClock(),
        logger: Logger = .casinoCacheDisabled
    ) {
        let disk = cacheDirectory.map {
            DiskTier(
                configuration: .init(
                    directory: $0, cacheVersion: configuration.cacheVersion, sizeLimit: configuration.diskSizeLimit,
                    fileProtection: configuration.fileProtection),
                logger: logger)
        }
        let bundled = bundleDirectory.map {
            BundledTier(configuration: .init(directory: $0, limits: configuration.bundleLimits), logger: logger)
        }
        let mutationQueue =
            (mutationDirectory ?? cacheDirectory?.appendingPathComponent("PlayerMutations", isDirectory: true)).map {
                PlayerMutationQueue(directory: $0, fileProtection: configuration.fileProtection, logger: logger)
            }
        self.init(
            configuration: configuration, upstream: upstream, disk: disk, bundled: bundled,
            mutationQueue: mutationQueue, territoryDirectory: cacheDirectory, clock: clock, logger: logger)
    }

    deinit {
        answers.finish()
    }

    // MARK: - Reading

    /// An edition's categories from memory, disk or the bundle, without waiting and without
    /// touching the network: for the first frame. `.miss` when nothing is there.
    public func cachedCategories(edition: Edition) -> CacheResult<CategoryList> {
        cachedAnswer(for: .categories(edition), Self.categoryList)
    }

    /// A page of games from memory, disk or the bundle, without waiting and without touching the
    /// network. `.miss` when nothing is there.
    public func cachedGamesPage(edition: Edition, categoryId: String, offset: Int = 0) -> CacheResult<GamesPage> {
        cachedAnswer(for: .gamesPage(edition, categoryId: categoryId, offset: offset), Self.gamesPage)
    }

    /// An edition's categories: fresh without the network; stale or bundled at once with a
    /// background refresh; on a miss, after waiting for the upstream (then `.fresh`).
    ///
    /// - Throws: ``CacheError`` only when nothing is cached and the upstream fails.
    public nonisolated(nonsending) func categories(edition: Edition) async throws -> CacheResult<CategoryList> {
        try await answer(for: .categories(edition), Self.categoryList)
    }

    /// A page of games (`offset` is the provider's offset, a multiple of the page size), answered
    /// like ``categories(edition:)``. Pages past ``Configuration/maxCachedPagesPerCategory`` come
    /// from the upstream every time.
    ///
    /// - Throws: ``CacheError`` only when nothing is cached and the upstream fails.
    public nonisolated(nonsending) func gamesPage(
        edition: Edition, categoryId: String, offset: Int = 0
    ) async throws -> CacheResult<GamesPage> {
        try await answer(for: .gamesPage(edition, categoryId: categoryId, offset: offset), Self.gamesPage)
    }

    /// The content for any key, answered like ``categories(edition:)``.
    public nonisolated(nonsending) func content(for key: CacheKey) async throws -> CacheResult<CatalogContent> {
        try await answer(for: key) { $0 }
    }

    /// The content for any key from memory, disk or the bundle, without waiting.
    public func cachedContent(for key: CacheKey) -> CacheResult<CatalogContent> {
        cachedAnswer(for: key) { $0 }
    }

    // MARK: - Updates and control

    /// Waits until every queued disk write (entries, player changes, the territory, the withdrawals)
    /// has landed.
    public func flush() async {
        await disk?.flush()
        await players.queue?.flush()
        await filter.flush()
    }

    /// Forgets `key` in memory and on disk; the next lookup falls back to the bundle or the upstream.
    public func invalidate(_ key: CacheKey) {
        memory.removeEntry(for: key)
        disk?.removeEntry(for: key)
    }

    /// Forgets everything cached in memory and on disk, every pending retry, and every player's
    /// unsent changes.
    public func clear() async {
        await clear(nil)
    }

    /// Forgets what is cached for `scope` (a user's content on logout, with their unsent changes
    /// and held updates); global content stays. A fetch or change in flight stores nothing.
    public func clear(scope: CacheScope) async {
        await clear(.some(scope))
    }

    private func clear(_ scope: CacheScope?) async {
        writer.clear(scope)
        players.forget(in: scope)
        scheduler.cancelRetries { scope == nil || $0.scope == scope }
        memory.removeAll(in: scope)
        disk?.removeAll(in: scope)
        images.clear(scope: scope)
        await disk?.flush()
        await players.queue?.flush()
    }

    /// What the cache has done so far.
    public func statistics() -> CacheStatistics {
        var statistics = statisticsCounter.current
        memory.answers.add(to: &statistics)
        statistics.memoryEvictions = memory.evictions
        statistics.diskEvictions = disk?.evictions ?? 0
        statistics.corruptDiskEntries = disk?.corruptEntries ?? 0
        statistics.diskWriteFailures = disk?.writeFailures ?? 0
        statistics.corruptBundledFiles = bundled?.corruptFiles ?? 0
        statistics.corruptBundledImages = bundled?.images.corruptImages ?? 0
        return statistics
    }

    /// `clock.now`, read directly when the clock is the system's.
    @inline(__always)
    func currentDate() -> Date {
        usesSystemClock ? SystemClock.currentDate() : clock.now
    }

    static func categoryList(_ content: CatalogContent) -> CategoryList {
        if case .categories(let list) = content { return list }
        return CategoryList(items: [])
    }

    static func gamesPage(_ content: CatalogContent) -> GamesPage {
        if case .gamesPage(let page) = content { return page }
        return GamesPage(categoryId: "", offset: 0, limit: 0, total: 0, items: [])
    }
}
