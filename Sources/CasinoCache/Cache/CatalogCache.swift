@_spi(Internals) public import CasinoCatalog
import CatalogSupport
public import Foundation
public import Logging
import ProviderAPI

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
    @_spi(Tiers) public let memory: MemoryTier
    /// The disk tier, when the cache persists.
    @_spi(Tiers) public let disk: DiskTier?
    /// The snapshot shipped inside the app, when there is one.
    @_spi(Tiers) public let bundled: BundledTier?
    /// Games per page, the `limit` asked of the upstream: ``Configuration/pageSize`` when set, else
    /// the bundled snapshot's, else ``Configuration/fallbackPageSize`` (kept within 1...1000).
    public let pageSize: Int
    /// The editions the bundled snapshot holds, sorted (empty without a bundle).
    public var bundledEditions: [Edition] { bundled?.manifest?.editions ?? [] }
    /// The edition the bundled snapshot falls back to when the app's own is not bundled.
    public var defaultEdition: Edition? { bundled?.manifest?.defaultEdition }

    /// The bundled edition for a device: its language tag (`pt-BR`), then shorter tags (`pt`), on
    /// `platform`; else the snapshot's default edition; `nil` without a bundle.
    public func bundledEdition(language: String, platform: Platform) -> Edition? {
        bundled?.edition(language: language, platform: platform)
    }

    /// Drops everything held in memory; disk and bundle stay. ``trim()`` keeps what is on screen.
    public func trimMemory() {
        memory.trim()
    }

    let upstream: any CatalogUpstream
    /// The configuration's times to live in seconds: read on every hit.
    let categoriesTimeToLive: TimeInterval
    let gamesPageTimeToLive: TimeInterval
    let playerTimeToLive: TimeInterval
    let clock: any CacheClock
    /// Whether `clock` is a ``SystemClock``: the hot paths then read it without the existential call.
    let usesSystemClock: Bool
    let logger: Logger
    let broadcaster = UpdateBroadcaster()
    let state = Locked(State())
    /// The app's image hook and what it was asked to prefetch (`CatalogCache+Images.swift`).
    let imageHooks = Locked(ImageHookState())
    /// Player mutations not yet settled, the server's last word on each changed player list, and
    /// content held for the app (`CatalogCache+Overlay.swift`).
    let overlay = Locked(Overlay())
    /// Where unsent player mutations survive a restart, when the cache persists.
    @_spi(Tiers) public let mutationQueue: PlayerMutationQueue?

    struct State {
        var inflight: [CacheKey: Task<CacheEntry, any Error>] = [:]
        /// Keys with a background refresh running or waiting to retry: no second one is started.
        var refreshing: Set<CacheKey> = []
        var running: [UInt64: Task<Void, Never>] = [:]
        var retries: [CacheKey: Task<Void, Never>] = [:]
        var failures: [CacheKey: Int] = [:]
        /// Keys whose retries ran out: no new refresh before this time (or ``refreshStale()``).
        var cooldowns: [CacheKey: Date] = [:]
        /// Bumped by ``clear()`` (`nil` key) and ``clear(scope:)``: a fetch that started before a
        /// clear does not store its result.
        var generations: [CacheScope?: Int] = [:]
        var nextTaskID: UInt64 = 0
        var statistics = CacheStatistics()
        /// Answers from the disk and the bundle (the memory tier counts its own hits).
        var answers = AnswerCounts()
        /// Keys waiting for the next batched validation (``Configuration/refreshBatchWindow``).
        var queued: Set<CacheKey> = []
        var batchTimer: Task<Void, Never>?
        /// Set once the upstream answered that it has no bulk validation: no more batching.
        var validationUnsupported = false

        /// The clear counters a fetch for `scope` notes when it starts and checks before storing.
        func generation(of scope: CacheScope) -> [Int] {
            [generations[nil] ?? 0, generations[scope] ?? 0]
        }
    }

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
    ///   - clock: What "now" is and how to wait; inject `ManualClock` (CasinoCacheTesting) in tests.
    ///   - logger: Where the cache logs (at `.info` and below); nowhere by default.
    @_spi(Tiers)
    public init(
        configuration: Configuration = .default, upstream: any CatalogUpstream, memory: MemoryTier? = nil,
        disk: DiskTier?, bundled: BundledTier?, mutationQueue: PlayerMutationQueue? = nil, clock: any CacheClock = SystemClock(),
        logger: Logger = .casinoCacheDisabled
    ) {
        self.configuration = configuration
        self.upstream = upstream
        self.memory = memory ?? MemoryTier(countLimit: configuration.memoryCountLimit, costLimit: configuration.memoryCostLimit)
        self.disk = disk
        self.bundled = bundled
        self.mutationQueue = mutationQueue
        categoriesTimeToLive = configuration.categoriesTTL.timeInterval
        gamesPageTimeToLive = configuration.gamesPageTTL.timeInterval
        playerTimeToLive = configuration.playerTTL.timeInterval
        self.clock = clock
        usesSystemClock = clock is SystemClock
        self.logger = logger
        let bundledPageSize = bundled?.manifest?.pageSize
        // Settings are not trusted either: a page size the schema's rules refuse would make every
        // fetched page invalid content.
        pageSize = min(max(configuration.pageSize ?? bundledPageSize ?? Configuration.fallbackPageSize, 1), CatalogRules.maxPageSize)
        if let bundledPageSize, bundledPageSize != pageSize {
            logger.info(
                "the configured page size differs from the bundled snapshot's; bundled pages never line up with live ones",
                metadata: ["cache.bundledPageSize": "\(bundledPageSize)", "cache.pageSize": "\(pageSize)"])
        }
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
        let mutationQueue = (mutationDirectory ?? cacheDirectory?.appendingPathComponent("PlayerMutations", isDirectory: true)).map {
            PlayerMutationQueue(directory: $0, fileProtection: configuration.fileProtection, logger: logger)
        }
        self.init(
            configuration: configuration, upstream: upstream, disk: disk, bundled: bundled, mutationQueue: mutationQueue,
            clock: clock, logger: logger)
    }

    deinit {
        broadcaster.finish()
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
        let now = currentDate()
        if let hit = memoryHit(
            gamesPage: edition, categoryId: categoryId, offset: offset, now: now, freshOnly: false, Self.gamesPage)
        {
            return hit
        }
        return cachedAnswer(for: .gamesPage(edition, categoryId: categoryId, offset: offset), now: now, Self.gamesPage)
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
    /// Inlinable: a fresh page in memory is answered by a synchronous call in the caller's own
    /// frame, so a hit costs no async call (an async call alone costs about as much as a hit).
    ///
    /// - Throws: ``CacheError`` only when nothing is cached and the upstream fails.
    @inlinable
    public nonisolated(nonsending) func gamesPage(
        edition: Edition, categoryId: String, offset: Int = 0
    ) async throws -> CacheResult<GamesPage> {
        if let fresh = freshGamesPageInMemory(edition: edition, categoryId: categoryId, offset: offset) { return fresh }
        return try await answerGamesPage(edition: edition, categoryId: categoryId, offset: offset)
    }

    /// ``gamesPage(edition:categoryId:offset:)``'s fast path: a fresh memory hit, else `nil`.
    @usableFromInline
    func freshGamesPageInMemory(edition: Edition, categoryId: String, offset: Int) -> CacheResult<GamesPage>? {
        memoryHit(
            gamesPage: edition, categoryId: categoryId, offset: offset, now: currentDate(), freshOnly: true, Self.gamesPage)
    }

    /// ``gamesPage(edition:categoryId:offset:)`` when its fast path did not answer.
    @usableFromInline
    nonisolated(nonsending) func answerGamesPage(
        edition: Edition, categoryId: String, offset: Int
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

    /// The async reads: a hit answers at once (refreshing in the background unless fresh); a miss
    /// waits for the upstream. `extract` picks the typed value out of the content, so the answer
    /// is built once and not re-wrapped. Inlined, so a hit costs its callers no extra async frame.
    @inline(__always)
    private nonisolated(nonsending) func answer<Value: Sendable>(
        for key: CacheKey, _ extract: (CatalogContent) -> Value
    ) async throws -> CacheResult<Value> {
        let now = currentDate()
        var found: Found?
        if isCached(key), let result = lookup(key, now: now, needsFound: true, found: &found, extract) {
            if let found, found.answer != .fresh {
                // A player's expired rows are not served while the upstream can answer (seed 004).
                if found.answer == .stale, key.scope != .global {
                    return try await expiredPlayerAnswer(found, for: key, now: now, extract)
                }
                refreshInBackground(key, current: found.entry)
            }
            return result
        }
        return try await fetchAnswer(for: key, extract)
    }

    /// A miss of the async reads: counted, then fetched (joining a fetch in flight).
    private nonisolated(nonsending) func fetchAnswer<Value: Sendable>(
        for key: CacheKey, _ extract: (CatalogContent) -> Value
    ) async throws -> CacheResult<Value> {
        if case .gamesPage(_, _, let offset) = key.content, !(0...CatalogRules.maxGamesTotal).contains(offset) {
            throw CacheError(
                .invalidRequest, key: key, "offset \(offset) is outside 0...\(CatalogRules.maxGamesTotal); no such page exists")
        }
        record { $0.misses += 1 }
        let entry = try await fetch(key, current: nil)
        try Task.checkCancellation()
        return .fresh(extract(entry.content), metadata(entry, tier: .upstream, now: clock.now))
    }

    /// The synchronous reads: memory, disk or the bundle, never the network. Inlined, so a hit
    /// builds its answer where the caller returns it.
    @inline(__always)
    private func cachedAnswer<Value: Sendable>(
        for key: CacheKey, now: Date? = nil, _ extract: (CatalogContent) -> Value
    ) -> CacheResult<Value> {
        let now = now ?? currentDate()
        var found: Found?
        guard isCached(key), let result = lookup(key, now: now, needsFound: false, found: &found, extract) else {
            record { $0.misses += 1 }
            return .miss
        }
        return result
    }

    // MARK: - Updates and control

    /// A stream of silent updates: new content from the upstream (never for identical content),
    /// and failed refreshes. Each call returns a new subscription; it ends when the cache is released.
    public func updates() -> AsyncStream<CacheUpdate> {
        broadcaster.subscribe()
    }

    /// A stream of the silent updates of one key only, from now on.
    public func updates(for key: CacheKey) -> AsyncStream<CacheUpdate> {
        broadcaster.subscribe(to: key)
    }

    /// Runs `action`, then waits for the next update of `key`: for tests and previews.
    ///
    /// The subscription starts before `action` runs, so an update that `action` causes is never
    /// missed. Returns `nil` when the waiting task is cancelled or the cache is released first.
    ///
    /// ```swift
    /// let update = try await cache.nextUpdate(for: .categories(edition)) { () async throws in
    ///     clock.advance(by: .seconds(7 * 3600))
    ///     _ = try await cache.categories(edition: edition)   // stale: refreshes in the background
    /// }
    /// ```
    public nonisolated(nonsending) func nextUpdate(
        for key: CacheKey, after action: () async throws -> Void = {}
    ) async rethrows -> CacheUpdate? {
        let stream = broadcaster.subscribe(to: key)
        try await action()
        for await update in stream { return update }
        return nil
    }

    /// Fetches the first page of each category ahead of time when it is missing, stale or bundled.
    public func prefetch(edition: Edition, categoryIds: [String]) async {
        await withTaskGroup(of: Void.self) { group in
            for categoryId in categoryIds {
                group.addTask {
                    let key = CacheKey.gamesPage(edition, categoryId: categoryId, offset: 0)
                    let current = self.storedEntry(key)
                    if let current, self.isFresh(current, now: self.clock.now) { return }
                    _ = try? await self.fetch(key, current: current)
                }
            }
        }
    }

    /// Refreshes, now, every content in memory that is stale or bundled, and every content whose
    /// refresh failed: call it when the app learns the network is back. Retries waiting for their
    /// backoff run at once; refreshes already running are left to finish. Returns when the
    /// refreshes it started have finished.
    public func refreshStale() async {
        let now = clock.now
        let (failedKeys, retries) = state.withLock { state -> ([CacheKey], [Task<Void, Never>]) in
            let waiting = Set(state.retries.keys).union(state.cooldowns.keys)
            let retries = Array(state.retries.values)
            state.retries.removeAll()
            state.cooldowns.removeAll()
            for key in waiting {
                state.refreshing.remove(key)
                state.failures[key] = nil
            }
            return (Array(waiting), retries)
        }
        for retry in retries { retry.cancel() }
        var tasks: [Task<Void, Never>] = []
        for key in Set(memory.keysByRecency).union(failedKeys) {
            guard let entry = storedEntry(key), !isFresh(entry, now: now) else { continue }
            if let task = refreshInBackground(key, current: entry) { tasks.append(task) }
        }
        for task in tasks { await task.value }
        await sendPendingMutations()
    }

    /// Waits until the background refreshes running now have finished (retries waiting for
    /// their backoff are not waited for); keys queued for a batched validation are sent at once.
    public func waitForRefreshes() async {
        await validateQueued()
        while true {
            let running = state.withLock { Array($0.running.values) }
            if running.isEmpty { return }
            for task in running { await task.value }
        }
    }

    /// Waits until every queued disk write (entries and player changes) has landed.
    public func flush() async {
        await disk?.flush()
        await mutationQueue?.flush()
    }

    /// Forgets `key` in memory and on disk; the next lookup falls back to the bundle or the upstream.
    public func invalidate(_ key: CacheKey) {
        memory.removeEntry(for: key)
        disk?.removeEntry(for: key)
    }

    /// Forgets everything cached in memory and on disk, every pending retry, and every player's
    /// unsent changes.
    public func clear() async {
        state.withLock { $0.generations[nil, default: 0] += 1 }
        forgetPlayers(in: nil)
        cancelRetries { _ in true }
        memory.removeAll(in: nil)
        disk?.removeAll(in: nil)
        clearImages(scope: nil)
        await disk?.flush()
        await mutationQueue?.flush()
    }

    /// Forgets what is cached for `scope` (a user's content on logout, with their unsent changes
    /// and held updates); global content stays. A fetch or change in flight stores nothing.
    public func clear(scope: CacheScope) async {
        state.withLock { $0.generations[scope, default: 0] += 1 }
        forgetPlayers(in: scope)
        cancelRetries { $0.scope == scope }
        memory.removeAll(in: scope)
        disk?.removeAll(in: scope)
        clearImages(scope: scope)
        await disk?.flush()
        await mutationQueue?.flush()
    }

    /// What the cache has done so far.
    public func statistics() -> CacheStatistics {
        var statistics = state.withLock { state in
            var statistics = state.statistics
            state.answers.add(to: &statistics)
            return statistics
        }
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

    func isCached(_ key: CacheKey) -> Bool {
        configuration.isCached(key, pageSize: pageSize)
    }

    func record(_ change: (inout CacheStatistics) -> Void) {
        state.withLock { change(&$0.statistics) }
    }

    private static func categoryList(_ content: CatalogContent) -> CategoryList {
        if case .categories(let list) = content { return list }
        return CategoryList(items: [])
    }

    private static func gamesPage(_ content: CatalogContent) -> GamesPage {
        if case .gamesPage(let page) = content { return page }
        return GamesPage(categoryId: "", offset: 0, limit: 0, total: 0, items: [])
    }
}
