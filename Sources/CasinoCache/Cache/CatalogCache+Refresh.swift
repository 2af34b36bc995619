@_spi(Internals) import CasinoCatalog
import CatalogSupport
import Foundation
import Logging
import ProviderAPI

/// Background refreshes of stale and bundled content, and the retries of failed ones.
extension CatalogCache {
    /// Starts a refresh of `key` unless one is running, waiting to retry or queued. With
    /// ``Configuration/refreshBatchWindow`` set (and `batching`), a global key is queued for the
    /// next batched validation instead, and `nil` is returned.
    @discardableResult
    func refreshInBackground(_ key: CacheKey, current: CacheEntry, batching: Bool = true) -> Task<Void, Never>? {
        let now = clock.now
        return state.withLock { state -> Task<Void, Never>? in
            if let until = state.cooldowns[key] {
                guard now >= until else { return nil }
                state.cooldowns[key] = nil
            }
            guard state.refreshing.insert(key).inserted else { return nil }
            if batching, key.scope == .global, !state.validationUnsupported, let window = configuration.refreshBatchWindow {
                queueForValidation(key, window: window, &state)
                return nil
            }
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
                // A server that said when to come back (429/503 `Retry-After`) is not asked sooner.
                let delay = configuration.retry.delay(
                    afterAttempt: attempt, unit: Double.random(in: 0..<1),
                    retryAfter: (cacheError.cause as? UpstreamError)?.retryAfter)
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
    func startRunning(_ state: inout State, _ body: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        state.nextTaskID += 1
        let id = state.nextTaskID
        let task = Task {
            await body()
            self.state.withLock { _ = $0.running.removeValue(forKey: id) }
        }
        state.running[id] = task
        return task
    }

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
}
