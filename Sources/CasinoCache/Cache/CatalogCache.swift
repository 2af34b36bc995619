public import CasinoCatalog
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
    /// The memory tier.
    public let memory: MemoryTier
    /// The disk tier, when the cache persists.
    public let disk: DiskTier?
    /// The snapshot shipped inside the app, when there is one.
    public let bundled: BundledTier?

    private let upstream: any CatalogUpstream
    /// The configuration's times to live in seconds: read on every hit.
    private let categoriesTimeToLive: TimeInterval
    private let gamesPageTimeToLive: TimeInterval
    private let clock: any CacheClock
    private let logger: Logger
    private let broadcaster = UpdateBroadcaster()
    private let state = Locked(State())

    private struct State {
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
    ///   - clock: What "now" is and how to wait; inject `ManualClock` (CasinoCacheTesting) in tests.
    ///   - logger: Where the cache logs (at `.info` and below).
    public init(
        configuration: Configuration = .default, upstream: any CatalogUpstream, memory: MemoryTier? = nil,
        disk: DiskTier?, bundled: BundledTier?, clock: any CacheClock = SystemClock(), logger: Logger
    ) {
        self.configuration = configuration
        self.upstream = upstream
        self.memory = memory ?? MemoryTier(countLimit: configuration.memoryCountLimit, costLimit: configuration.memoryCostLimit)
        self.disk = disk
        self.bundled = bundled
        categoriesTimeToLive = configuration.categoriesTTL.timeInterval
        gamesPageTimeToLive = configuration.gamesPageTTL.timeInterval
        self.clock = clock
        self.logger = logger
        if let pageSize = bundled?.manifest?.pageSize, pageSize != configuration.pageSize {
            logger.info(
                "bundled page size differs from the configuration; bundled pages are replaced as they refresh",
                metadata: ["cache.bundledPageSize": "\(pageSize)", "cache.pageSize": "\(configuration.pageSize)"])
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
    ///   - clock: What "now" is and how to wait.
    ///   - logger: Where the cache logs (at `.info` and below).
    public convenience init(
        configuration: Configuration = .default, upstream: any CatalogUpstream, cacheDirectory: URL?,
        bundleDirectory: URL?, clock: any CacheClock = SystemClock(), logger: Logger
    ) {
        let disk = cacheDirectory.map {
            DiskTier(
                configuration: .init(directory: $0, cacheVersion: configuration.cacheVersion, sizeLimit: configuration.diskSizeLimit),
                logger: logger)
        }
        let bundled = bundleDirectory.map { BundledTier(configuration: .init(directory: $0), logger: logger) }
        self.init(configuration: configuration, upstream: upstream, disk: disk, bundled: bundled, clock: clock, logger: logger)
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

    /// The async reads: a hit answers at once (refreshing in the background unless fresh); a miss
    /// waits for the upstream. `extract` picks the typed value out of the content, so the answer
    /// is built once and not re-wrapped. Inlined, so a hit costs its callers no extra async frame.
    @inline(__always)
    private nonisolated(nonsending) func answer<Value: Sendable>(
        for key: CacheKey, _ extract: (CatalogContent) -> Value
    ) async throws -> CacheResult<Value> {
        let now = clock.now
        if configuration.isCached(key), let found = lookup(key, now: now) {
            if found.answer != .fresh { refreshInBackground(key, current: found.box.entry) }
            return result(found, now: now, extract)
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

    /// The synchronous reads: memory, disk or the bundle, never the network.
    private func cachedAnswer<Value: Sendable>(
        for key: CacheKey, _ extract: (CatalogContent) -> Value
    ) -> CacheResult<Value> {
        let now = clock.now
        guard configuration.isCached(key), let found = lookup(key, now: now) else {
            record { $0.misses += 1 }
            return .miss
        }
        return result(found, now: now, extract)
    }

    // MARK: - Updates and control

    /// A stream of silent updates: new content from the upstream (never for identical content),
    /// and failed refreshes. Each call returns a new subscription; it ends when the cache is released.
    public func updates() -> AsyncStream<CacheUpdate> {
        broadcaster.subscribe()
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
    }

    /// Waits until the background refreshes running now have finished (retries waiting for
    /// their backoff are not waited for).
    public func waitForRefreshes() async {
        while true {
            let running = state.withLock { Array($0.running.values) }
            if running.isEmpty { return }
            for task in running { await task.value }
        }
    }

    /// Waits until every queued disk write has landed.
    public func flush() async {
        await disk?.flush()
    }

    /// Forgets `key` in memory and on disk; the next lookup falls back to the bundle or the upstream.
    public func invalidate(_ key: CacheKey) {
        memory.removeEntry(for: key)
        disk?.removeEntry(for: key)
    }

    /// Forgets everything cached in memory and on disk, and every pending retry.
    public func clear() async {
        state.withLock { $0.generations[nil, default: 0] += 1 }
        cancelRetries { _ in true }
        memory.removeAll(in: nil)
        disk?.removeAll(in: nil)
        await disk?.flush()
    }

    /// Forgets what is cached for `scope` (a user's content on logout); global content stays.
    public func clear(scope: CacheScope) async {
        state.withLock { $0.generations[scope, default: 0] += 1 }
        cancelRetries { $0.scope == scope }
        memory.removeAll(in: scope)
        disk?.removeAll(in: scope)
        await disk?.flush()
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
        return statistics
    }

    // MARK: - Lookup

    /// An answer found in a tier: the memory tier's box (a disk or bundled entry is put in memory
    /// as it is found), the tier, and whether it is fresh, stale or bundled. Holding the box, not a
    /// copy of its entry, keeps a hit to one retain.
    private struct Found {
        var box: MemoryTier.Box
        var tier: CacheMetadata.Tier
        var answer: CacheAnswer
    }

    /// Memory, then disk, then the bundle; the answer is counted in the statistics. A disk entry
    /// older than the bundled snapshot shipped with this app version gives way to the bundle: a new
    /// release must not show months-old data.
    private func lookup(_ key: CacheKey, now: Date) -> Found? {
        let timeToLive = timeToLive(for: key)
        if let hit = memory.hit(for: key, classify: { Self.answer(origin: $0, storedAt: $1, now: now, timeToLive: timeToLive) }) {
            return Found(box: hit.box, tier: .memory, answer: hit.answer)
        }
        guard let (entry, tier) = storedEntryBelowMemory(key) else { return nil }
        let answer = Self.answer(for: entry, now: now, timeToLive: timeToLive)
        state.withLock { $0.answers.count(answer) }
        return Found(box: memory.insert(entry), tier: tier, answer: answer)
    }

    /// What the tiers hold for `key`, for the cache's own decisions (not counted as an answer).
    private func storedEntry(_ key: CacheKey) -> CacheEntry? {
        if let box = memory.box(for: key) { return box.entry }
        guard let (entry, _) = storedEntryBelowMemory(key) else { return nil }
        memory.insert(entry)
        return entry
    }

    /// The disk entry, or the bundled one when there is no disk entry or it is older than the bundle.
    private func storedEntryBelowMemory(_ key: CacheKey) -> (CacheEntry, CacheMetadata.Tier)? {
        if let disk, let entry = disk.entry(for: key) {
            if let generatedAt = bundled?.generatedAt, entry.storedAt < generatedAt, let newer = bundled?.entry(for: key) {
                return (newer, .bundled)
            }
            return (entry, .disk)
        }
        if let entry = bundled?.entry(for: key) { return (entry, .bundled) }
        return nil
    }

    /// The typed answer for what was found.
    private func result<Value: Sendable>(
        _ found: Found, now: Date, _ extract: (CatalogContent) -> Value
    ) -> CacheResult<Value> {
        let box = found.box
        let metadata = CacheMetadata(
            tier: found.tier, origin: box.entry.origin, storedAt: box.entry.storedAt,
            age: max(now.timeIntervalSince(box.entry.storedAt), 0), snapshotGeneratedAt: bundled?.generatedAt)
        let value = extract(box.entry.content)
        switch found.answer {
        case .fresh: return .fresh(value, metadata)
        case .stale: return .stale(value, metadata)
        case .bundled: return .bundled(value, metadata)
        }
    }

    /// Bundled content is answered as bundled; network content as fresh within its time to live,
    /// stale after, and stale when it was stored in the future: the clock moved backwards since,
    /// so its true age is unknown. One second of slack absorbs disk entries' whole-second times.
    private static func answer(origin: CacheOrigin, storedAt: Date, now: Date, timeToLive: TimeInterval) -> CacheAnswer {
        if origin == .bundled { return .bundled }
        let age = now.timeIntervalSince(storedAt)
        return age >= -1 && age < timeToLive ? .fresh : .stale
    }

    private static func answer(for entry: CacheEntry, now: Date, timeToLive: TimeInterval) -> CacheAnswer {
        answer(origin: entry.origin, storedAt: entry.storedAt, now: now, timeToLive: timeToLive)
    }

    /// Whether `entry` is network content within its time to live (not counted: for the cache's
    /// own decisions, not for answers).
    private func isFresh(_ entry: CacheEntry, now: Date) -> Bool {
        Self.answer(for: entry, now: now, timeToLive: timeToLive(for: entry.key)) == .fresh
    }

    private func timeToLive(for key: CacheKey) -> TimeInterval {
        switch key.content {
        case .categories: categoriesTimeToLive
        case .gamesPage: gamesPageTimeToLive
        }
    }

    private func metadata(_ entry: CacheEntry, tier: CacheMetadata.Tier, now: Date) -> CacheMetadata {
        CacheMetadata(
            tier: tier, origin: entry.origin, storedAt: entry.storedAt, age: max(now.timeIntervalSince(entry.storedAt), 0),
            snapshotGeneratedAt: bundled?.generatedAt)
    }

    // MARK: - Fetching

    /// Fetches `key` from the upstream, joining a call already in flight for it. The call runs in
    /// its own task: a caller that is cancelled stops waiting, the others still get the result and
    /// the cache is still filled.
    private nonisolated(nonsending) func fetch(_ key: CacheKey, current: CacheEntry?) async throws -> CacheEntry {
        let task: Task<CacheEntry, any Error> = state.withLock { state in
            if let running = state.inflight[key] {
                state.statistics.coalescedRequests += 1
                return running
            }
            let task = Task { try await self.performFetch(key, current: current) }
            state.inflight[key] = task
            return task
        }
        return try await Self.value(of: task)
    }

    /// The task's value; a caller that is cancelled stops waiting at once with
    /// `CancellationError`, while the task itself runs on for the other callers.
    private nonisolated(nonsending) static func value(of task: Task<CacheEntry, any Error>) async throws -> CacheEntry {
        let waiter = Locked<OnceResumer<CacheEntry>?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let resumer = OnceResumer(continuation)
                waiter.withLock { $0 = resumer }
                Task { resumer.resume(with: await task.result) }
                if Task.isCancelled { resumer.resume(with: .failure(CancellationError())) }
            }
        } onCancel: {
            waiter.withLock { $0 }?.resume(with: .failure(CancellationError()))
        }
    }

    private func performFetch(_ key: CacheKey, current: CacheEntry?) async throws -> CacheEntry {
        defer { state.withLock { _ = $0.inflight.removeValue(forKey: key) } }
        let generation = state.withLock { state -> [Int] in
            state.statistics.upstreamCalls += 1
            return [state.generations[nil] ?? 0, state.generations[key.scope] ?? 0]
        }
        let response: UpstreamResponse<CatalogContent>
        do {
            response = try await withTimeout(key) { try await self.callUpstream(key, etag: current?.etag) }
        } catch let error as CacheError {
            throw error
        } catch {
            throw CacheError(.upstreamFailed, key: key, "the upstream failed: \(error)", cause: error)
        }
        let now = clock.now
        switch response {
        case .notModified:
            guard var entry = current, entry.origin == .network else {
                throw CacheError(.notModifiedWithoutEntry, key: key, "the upstream answered not modified, but nothing is cached")
            }
            // RFC 9111 §4.3.4: a 304 freshens the stored response; the payload stays as it is.
            entry.storedAt = now
            record { $0.notModified += 1 }
            store(entry, ifStill: generation)
            return entry
        case .modified(let content, let etag):
            try check(content, for: key)
            let entry = CacheEntry(key: key, content: content, storedAt: now, etag: etag, origin: .network)
            if configuration.isCached(key) { store(entry, ifStill: generation) }
            if let current, current.content == content { return entry }
            let changes = ContentChanges(from: current?.content, to: content)
            if current != nil || configuration.isCached(key) {
                record { $0.updatesEmitted += 1 }
                broadcaster.publish(CacheUpdate(key: key, event: .updated(content, changes)))
            }
            return entry
        }
    }

    private func callUpstream(_ key: CacheKey, etag: String?) async throws -> UpstreamResponse<CatalogContent> {
        switch key.content {
        case .categories(let edition):
            switch try await upstream.categories(edition: edition, etag: etag) {
            case .modified(let list, let etag): .modified(.categories(list), etag: etag)
            case .notModified: .notModified
            }
        case .gamesPage(let edition, let categoryId, let offset):
            switch try await upstream.gamesPage(
                edition: edition, categoryId: categoryId, offset: offset, limit: configuration.pageSize, etag: etag)
            {
            case .modified(let page, let etag): .modified(.gamesPage(page), etag: etag)
            case .notModified: .notModified
            }
        }
    }

    /// Refuses upstream content that breaks the schema or is not the page that was asked for.
    private func check(_ content: CatalogContent, for key: CacheKey) throws {
        if case .gamesPage(_, let categoryId, let offset) = key.content, case .gamesPage(let page) = content {
            guard page.categoryId == categoryId, page.offset == offset, page.limit == configuration.pageSize else {
                throw CacheError(
                    .invalidContent, key: key,
                    "the upstream answered page \(page.categoryId)@\(page.offset) limit \(page.limit) for \(categoryId)@\(offset) limit \(configuration.pageSize)")
            }
        }
        if let violation = content.violations().first {
            throw CacheError(.invalidContent, key: key, "the upstream answered invalid content: \(violation)")
        }
    }

    /// Stores a fetched entry, unless ``clear()`` or ``clear(scope:)`` ran since its fetch started
    /// (`generation`): content fetched before a logout must not come back after it.
    private func store(_ entry: CacheEntry, ifStill generation: [Int]) {
        let current = state.withLock { [$0.generations[nil] ?? 0, $0.generations[entry.key.scope] ?? 0] }
        guard current == generation else { return }
        memory.store(entry)
        disk?.store(entry)
    }

    /// Runs `operation`, failing with `.timedOut` after ``Configuration/upstreamTimeout`` on the
    /// cache's clock even if the operation ignores cancellation.
    private func withTimeout<Value: Sendable>(
        _ key: CacheKey, _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let timeout = configuration.upstreamTimeout
        let clock = self.clock
        return try await withCheckedThrowingContinuation { continuation in
            let outcome = OnceResumer(continuation)
            let work = Task {
                do { outcome.resume(with: .success(try await operation())) } catch { outcome.resume(with: .failure(error)) }
            }
            let timer = Task {
                try? await clock.sleep(for: timeout)
                guard !Task.isCancelled else { return }
                if outcome.resume(with: .failure(CacheError(.timedOut, key: key, "the upstream did not answer within \(timeout)"))) {
                    work.cancel()
                }
            }
            Task {
                _ = await work.result
                timer.cancel()  // no sleeping timer outlives its call
            }
        }
    }

    // MARK: - Background refresh

    /// Starts a refresh of `key` unless one is running or waiting to retry.
    @discardableResult
    private func refreshInBackground(_ key: CacheKey, current: CacheEntry) -> Task<Void, Never>? {
        let now = clock.now
        return state.withLock { state -> Task<Void, Never>? in
            if let until = state.cooldowns[key] {
                guard now >= until else { return nil }
                state.cooldowns[key] = nil
            }
            guard state.refreshing.insert(key).inserted else { return nil }
            return self.startRunning(&state) { try? await self.refresh(key, current: current) }
        }
    }

    /// One refresh attempt; on failure, reports it and schedules the next attempt.
    private func refresh(_ key: CacheKey, current: CacheEntry) async throws {
        do {
            _ = try await fetch(key, current: current)
            state.withLock { state in
                state.refreshing.remove(key)
                state.failures[key] = nil
            }
        } catch {
            let cacheError = error as? CacheError ?? CacheError(.upstreamFailed, key: key, "\(error)")
            let (attempt, delay) = state.withLock { state -> (Int, Duration?) in
                let attempt = (state.failures[key] ?? 0) + 1
                state.failures[key] = attempt
                state.statistics.refreshFailures += 1
                var delay = configuration.retry.delay(afterAttempt: attempt, unit: Double.random(in: 0..<1))
                // A server that said when to come back (429/503 `Retry-After`) is not asked sooner.
                if let current = delay, let retryAfter = (cacheError.cause as? UpstreamError)?.retryAfter,
                    retryAfter > current.timeInterval
                {
                    delay = .milliseconds(Int64((min(retryAfter, RetryAfter.maxSeconds) * 1000).rounded()))
                }
                if let delay {
                    state.retries[key] = Task {
                        do { try await self.clock.sleep(for: delay) } catch { return }
                        let retry = self.state.withLock { state -> Task<Void, Never>? in
                            guard state.retries.removeValue(forKey: key) != nil else { return nil }
                            return self.startRunning(&state) {
                                let latest = self.memory.entry(for: key) ?? current
                                try? await self.refresh(key, current: latest)
                            }
                        }
                        await retry?.value
                    }
                } else {
                    // Out of attempts: rest for the longest backoff, then a later lookup starts
                    // a new round (``refreshStale()`` ends the rest at once).
                    state.refreshing.remove(key)
                    state.failures[key] = nil
                    state.cooldowns[key] = clock.now.addingTimeInterval(configuration.retry.maxDelay.timeInterval)
                }
                return (attempt, delay)
            }
            logger.info(
                "background refresh failed",
                metadata: ["cache.key": "\(key)", "cache.attempt": "\(attempt)", "cache.error": "\(cacheError.message)"])
            broadcaster.publish(CacheUpdate(key: key, event: .refreshFailed(cacheError, attempt: attempt, retryIn: delay)))
            throw cacheError
        }
    }

    /// Registers and starts a background task, so ``waitForRefreshes()`` can wait for it; the task
    /// unregisters itself when done (it takes the lock the caller holds, so it cannot finish first).
    private func startRunning(_ state: inout State, _ body: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        state.nextTaskID += 1
        let id = state.nextTaskID
        let task = Task {
            await body()
            self.state.withLock { _ = $0.running.removeValue(forKey: id) }
        }
        state.running[id] = task
        return task
    }

    private func cancelRetries(where shouldCancel: (CacheKey) -> Bool) {
        let cancelled = state.withLock { state -> [Task<Void, Never>] in
            let keys = state.retries.keys.filter(shouldCancel)
            let tasks = keys.compactMap { state.retries.removeValue(forKey: $0) }
            for key in keys {
                state.refreshing.remove(key)
                state.failures[key] = nil
            }
            for key in state.cooldowns.keys.filter(shouldCancel) { state.cooldowns[key] = nil }
            return tasks
        }
        for task in cancelled { task.cancel() }
    }

    private func record(_ change: (inout CacheStatistics) -> Void) {
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
