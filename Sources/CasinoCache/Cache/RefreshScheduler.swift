@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation
import Logging
@_spi(CatalogTools) import ProviderAPI

/// Background refreshes of stale and bundled content: at most one per key, retried with capped
/// exponential backoff (``CatalogCache/RetryPolicy``), resting after the last attempt, and batched
/// into one bulk validation when ``CatalogCache/Configuration/refreshBatchWindow`` is set.
///
/// Owns every piece of refresh state; what a refresh does is the cache's (``Work``).
final class RefreshScheduler: Sendable {
    /// What a refresh runs, given with each request: by the cache, or by ``CatalogSynchronizer`` for its
    /// key-by-key fallback.
    struct Work: Sendable {
        /// Fetches `key` (the single-flight path) and stores what it answers.
        var fetch: @Sendable (CacheKey, CacheEntry) async throws -> Void
        /// The latest entry for `key`, for a retry.
        var latest: @Sendable (CacheKey) -> CacheEntry?
        /// Validates the keys ``takeQueued()`` returns, in one request (``CatalogSynchronizer/validateQueued()``).
        var validateQueued: @Sendable () async -> Void
    }

    private struct State {
        /// Keys with a refresh running, waiting to retry or queued: no second one is started.
        var refreshing: Set<CacheKey> = []
        var running: [UInt64: Task<Void, Never>] = [:]
        var nextTaskID: UInt64 = 0
        var retries: [CacheKey: Task<Void, Never>] = [:]
        var failures: [CacheKey: Int] = [:]
        /// Keys whose retries ran out: no new refresh before this time (or ``CatalogCache/refreshStale()``).
        var cooldowns: [CacheKey: Date] = [:]
        /// Keys waiting for the next batched validation, and the window's timer.
        var queued: Set<CacheKey> = []
        var batchTimer: Task<Void, Never>?
        /// Set once the upstream answered that it has no bulk validation: no more batching.
        var validationUnsupported = false
    }

    private let state = Locked(State())
    private let retry: CatalogCache.RetryPolicy
    private let batchWindow: Duration?
    private let clock: any CacheClock
    private let answers: CacheAnswers
    private let statistics: StatisticsCounter
    private let logger: Logger

    init(
        configuration: CatalogCache.Configuration, clock: any CacheClock, answers: CacheAnswers,
        statistics: StatisticsCounter, logger: Logger
    ) {
        retry = configuration.retry
        batchWindow = configuration.refreshBatchWindow
        self.clock = clock
        self.answers = answers
        self.statistics = statistics
        self.logger = logger
    }

    /// Starts a refresh of `key` unless one is running, waiting to retry, queued or resting. With a
    /// batch window (and `batching`), a global key is queued for the next bulk validation instead,
    /// and `nil` is returned.
    @discardableResult
    func refresh(_ key: CacheKey, current: CacheEntry, batching: Bool = true, _ work: Work) -> Task<Void, Never>? {
        let now = clock.now
        return state.withLock { state -> Task<Void, Never>? in
            if let until = state.cooldowns[key] {
                guard now >= until else { return nil }
                state.cooldowns[key] = nil
            }
            guard state.refreshing.insert(key).inserted else { return nil }
            if batching, key.scope == .global, !state.validationUnsupported, let window = batchWindow {
                queue(key, window: window, work, &state)
                return nil
            }
            return start(&state) { await self.attempt(key, current: current, work) }
        }
    }

    /// One refresh attempt; on failure, reports it and schedules the next attempt.
    private func attempt(_ key: CacheKey, current: CacheEntry, _ work: Work) async {
        do {
            try await work.fetch(key, current)
            state.withLock { state in
                state.refreshing.remove(key)
                state.failures[key] = nil
            }
        } catch {
            let cacheError = error as? CacheError ?? CacheError(.upstreamFailed, key: key, "\(error)")
            statistics.record { $0.refreshFailures += 1 }
            let (attempt, delay) = state.withLock { state -> (Int, Duration?) in
                let attempt = (state.failures[key] ?? 0) + 1
                state.failures[key] = attempt
                // A server that said when to come back (429/503 `Retry-After`) is not asked sooner.
                let delay = retry.delay(
                    afterAttempt: attempt, unit: Double.random(in: 0..<1),
                    retryAfter: (cacheError.cause as? UpstreamError)?.retryAfter)
                if let delay {
                    state.retries[key] = Task {
                        do { try await self.clock.sleep(for: delay) } catch { return }
                        let next = self.state.withLock { state -> Task<Void, Never>? in
                            guard state.retries.removeValue(forKey: key) != nil else { return nil }
                            return self.start(&state) {
                                await self.attempt(key, current: work.latest(key) ?? current, work)
                            }
                        }
                        await next?.value
                    }
                } else {
                    // Out of attempts: rest for the longest backoff, then a later read starts a new
                    // round (``CatalogCache/refreshStale()`` ends the rest at once).
                    state.refreshing.remove(key)
                    state.failures[key] = nil
                    state.cooldowns[key] = clock.now.addingTimeInterval(retry.maxDelay.timeInterval)
                }
                return (attempt, delay)
            }
            logger.info(
                "background refresh failed",
                metadata: [
                    "cache.key": "\(key)", "cache.attempt": "\(attempt)", "cache.error": "\(cacheError.message)",
                ])
            answers.publish(CacheUpdate(key: key, event: .refreshFailed(cacheError, attempt: attempt, retryIn: delay)))
        }
    }

    /// Runs `body` in a background task that ``waitForRunning()`` waits for.
    @discardableResult
    func run(_ body: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        state.withLock { start(&$0, body) }
    }

    /// Registers and starts a background task; it unregisters itself when done (it takes the lock
    /// the caller holds, so it cannot finish first).
    private func start(_ state: inout State, _ body: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        state.nextTaskID += 1
        let id = state.nextTaskID
        let task = Task {
            await body()
            self.state.withLock { _ = $0.running.removeValue(forKey: id) }
        }
        state.running[id] = task
        return task
    }

    /// Waits until the tasks running now, and those they start, have finished (retries waiting
    /// for their backoff are not waited for).
    func waitForRunning() async {
        while true {
            let running = state.withLock { Array($0.running.values) }
            if running.isEmpty { return }
            for task in running { await task.value }
        }
    }

    // MARK: - Retries and rests

    /// Ends every wait: retries waiting for their backoff and rests after failures. Returns the
    /// keys that were waiting, no longer refreshing, so they can be refreshed now.
    func endWaits() -> [CacheKey] {
        let (keys, retries) = state.withLock { state -> ([CacheKey], [Task<Void, Never>]) in
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
        return keys
    }

    /// Ends the rests of `keys`: a push named them, so a refresh may start at once.
    func endRests(of keys: some Sequence<CacheKey>) {
        state.withLock { state in
            for key in keys { state.cooldowns[key] = nil }
        }
    }

    /// Cancels the retries and rests of the keys `shouldCancel` picks (a clear).
    func cancelRetries(where shouldCancel: (CacheKey) -> Bool) {
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

    // MARK: - Batching

    /// Queues `key` for the next batched validation; starts the window's timer for the first.
    private func queue(_ key: CacheKey, window: Duration, _ work: Work, _ state: inout State) {
        state.queued.insert(key)
        guard state.batchTimer == nil else { return }
        let clock = self.clock
        state.batchTimer = Task {
            do { try await clock.sleep(for: window) } catch { return }
            await self.run { await work.validateQueued() }.value
        }
    }

    /// Empties the queue and stops its timer. Its keys still count as refreshing until
    /// ``release(_:)``, so a read meanwhile does not queue them again.
    func takeQueued() -> Set<CacheKey> {
        let (queued, timer) = state.withLock { state -> (Set<CacheKey>, Task<Void, Never>?) in
            defer {
                state.queued = []
                state.batchTimer = nil
            }
            return (state.queued, state.batchTimer)
        }
        timer?.cancel()
        return queued
    }

    /// Whether `key` waits for the next batched validation.
    func isQueued(_ key: CacheKey) -> Bool {
        state.withLock { $0.queued.contains(key) }
    }

    /// `keys` are refreshing no longer: their verdicts are in.
    func release(_ keys: Set<CacheKey>) {
        state.withLock { state in
            for key in keys { state.refreshing.remove(key) }
        }
    }

    /// The upstream has no bulk validation: refreshes go key by key from now on.
    func stopBatching() {
        state.withLock { $0.validationUnsupported = true }
    }
}
