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
        /// Starts the fetch of `key` (the single-flight path, which stores what it answers) and calls
        /// `landed` with its result; the fetch's flight is the one task a refresh starts.
        var start:
            @Sendable (CacheKey, CacheEntry, _ landed: @escaping @Sendable (Result<CacheEntry, any Error>) -> Void) ->
                Void
        /// The latest entry for `key`, for a retry.
        var latest: @Sendable (CacheKey) -> CacheEntry?
        /// Validates the keys ``takeQueued()`` returns, in one request (``CatalogSynchronizer/validateQueued()``).
        var validateQueued: @Sendable () async -> Void
    }

    /// One refresh attempt in flight: ``landed()`` returns once its fetch has answered.
    final class Attempt: Sendable {
        private let state = Locked<(isLanded: Bool, waiters: [@Sendable (Result<Void, any Error>) -> Void])>(
            (false, []))

        /// Waits until the attempt's fetch has answered, which its flight's deadline bounds.
        func landed() async {
            _ = try? await Deadline.wait(within: nil, isCancellable: false) { settle in
                let isLanded = self.state.withLock { state in
                    if !state.isLanded { state.waiters.append(settle) }
                    return state.isLanded
                }
                if isLanded { settle(.success(())) }
                return nil
            }
        }

        fileprivate func land() {
            let waiters = state.withLock { state in
                defer { (state.isLanded, state.waiters) = (true, []) }
                return state.waiters
            }
            for settle in waiters { settle(.success(())) }
        }
    }

    private struct State {
        /// Keys with a refresh running, waiting to retry or queued: no second one is started.
        var refreshing: Set<CacheKey> = []
        /// Background tasks (``run(_:)``) and refresh attempts in flight: ``waitForRunning()``'s.
        var running: [UInt64: Task<Void, Never>] = [:]
        var nextTaskID: UInt64 = 0
        var attempts: [CacheKey: Attempt] = [:]
        var retries: [CacheKey: Deadline.Alarm] = [:]
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
    func refresh(_ key: CacheKey, current: CacheEntry, batching: Bool = true, _ work: Work) -> Attempt? {
        let now = clock.now
        let attempt = state.withLock { state -> Attempt? in
            if let until = state.cooldowns[key] {
                guard now >= until else { return nil }
                state.cooldowns[key] = nil
            }
            guard state.refreshing.insert(key).inserted else { return nil }
            if batching, key.scope == .global, !state.validationUnsupported, let window = batchWindow {
                queue(key, window: window, work, &state)
                return nil
            }
            return begin(key, &state)
        }
        if let attempt { launch(attempt, key, current: current, work) }
        return attempt
    }

    /// Registers an attempt for `key`, to be launched once the lock is released (a flight that has
    /// already landed calls back at once).
    private func begin(_ key: CacheKey, _ state: inout State) -> Attempt {
        let attempt = Attempt()
        state.attempts[key] = attempt
        return attempt
    }

    private func launch(_ attempt: Attempt, _ key: CacheKey, current: CacheEntry, _ work: Work) {
        work.start(key, current) { result in self.landed(attempt, key, result, current: current, work) }
    }

    /// An attempt's fetch answered: the key is done, or the failure is reported and the next
    /// attempt scheduled (an alarm, not a task).
    private func landed(
        _ attempt: Attempt, _ key: CacheKey, _ result: Result<CacheEntry, any Error>, current: CacheEntry, _ work: Work
    ) {
        defer { attempt.land() }  // after the state says it is over, for ``waitForRunning()``
        guard case .failure(let error) = result else {
            state.withLock { state in
                if state.attempts[key] === attempt { state.attempts[key] = nil }
                state.refreshing.remove(key)
                state.failures[key] = nil
            }
            return
        }
        let cacheError = error as? CacheError ?? CacheError(.upstreamFailed, key: key, "\(error)")
        statistics.record { $0.refreshFailures += 1 }
        let (attemptNumber, delay) = state.withLock { state -> (Int, Duration?) in
            if state.attempts[key] === attempt { state.attempts[key] = nil }
            let number = (state.failures[key] ?? 0) + 1
            state.failures[key] = number
            // A server that said when to come back (429/503 `Retry-After`) is not asked sooner.
            let delay = retry.delay(
                afterAttempt: number, unit: Double.random(in: 0..<1),
                retryAfter: (cacheError.cause as? UpstreamError)?.retryAfter)
            if let delay {
                state.retries[key] = Deadline.schedule(after: delay, on: clock) {
                    self.retry(key, current: current, work)
                }
            } else {
                // Out of attempts: rest for the longest backoff, then a later read starts a new
                // round (``CatalogCache/refreshStale()`` ends the rest at once).
                state.refreshing.remove(key)
                state.failures[key] = nil
                state.cooldowns[key] = clock.now.addingTimeInterval(retry.maxDelay.timeInterval)
            }
            return (number, delay)
        }
        logger.info(
            "background refresh failed",
            metadata: [
                "cache.key": "\(key)", "cache.attempt": "\(attemptNumber)", "cache.error": "\(cacheError.message)",
            ])
        answers.publish(
            CacheUpdate(key: key, event: .refreshFailed(cacheError, attempt: attemptNumber, retryIn: delay)))
    }

    /// A retry's backoff has passed: the next attempt, from what memory holds by now.
    private func retry(_ key: CacheKey, current: CacheEntry, _ work: Work) {
        let attempt = state.withLock { state -> Attempt? in
            guard state.retries.removeValue(forKey: key) != nil else { return nil }  // ended or cancelled
            return begin(key, &state)
        }
        guard let attempt else { return }
        launch(attempt, key, current: work.latest(key) ?? current, work)
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

    /// Waits until the tasks and attempts running now, and those they start, have finished
    /// (retries waiting for their backoff are not waited for).
    func waitForRunning() async {
        while true {
            let (tasks, attempts) = state.withLock { (Array($0.running.values), Array($0.attempts.values)) }
            if tasks.isEmpty && attempts.isEmpty { return }
            for task in tasks { await task.value }
            for attempt in attempts { await attempt.landed() }
        }
    }

    // MARK: - Retries and rests

    /// Ends every wait: retries waiting for their backoff and rests after failures. Returns the
    /// keys that were waiting, no longer refreshing, so they can be refreshed now.
    func endWaits() -> [CacheKey] {
        let (keys, retries) = state.withLock { state -> ([CacheKey], [Deadline.Alarm]) in
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
        let cancelled = state.withLock { state -> [Deadline.Alarm] in
            let keys = state.retries.keys.filter(shouldCancel)
            let tasks = keys.compactMap { state.retries.removeValue(forKey: $0) }
            for key in keys {
                state.refreshing.remove(key)
                state.failures[key] = nil
            }
            for key in state.cooldowns.keys.filter(shouldCancel) { state.cooldowns[key] = nil }
            return tasks
        }
        for alarm in cancelled { alarm.cancel() }
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
