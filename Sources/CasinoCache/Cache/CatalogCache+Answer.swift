@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Logging

/// How a read is answered: memory (asked once), then disk and the bundle, then the upstream; a
/// stale or bundled answer starts a background refresh.
extension CatalogCache {
    /// The async reads: a hit answers at once (refreshing in the background unless fresh); a miss
    /// waits for the upstream. `extract` picks the typed value out of the content.
    nonisolated(nonsending) func answer<Value: Sendable>(
        for key: CacheKey, _ extract: (CatalogContent) -> Value
    ) async throws -> CacheResult<Value> {
        let now = currentDate()
        guard tiers.isCached(key), let found = tiers.find(key, now: now) else {
            return try await fetchAnswer(for: key, extract)
        }
        if found.isTooOld { return try await tooOldAnswer(found, for: key, extract) }
        if found.state != .fresh {
            // A player's expired rows are not served while the upstream can answer.
            if found.state == .stale, key.scope != .global {
                return try await expiredPlayerAnswer(found, for: key, now: now, extract)
            }
            refreshInBackground(key, current: found.entry)
        }
        return tiers.result(found, now: now, extract)
    }

    /// The synchronous reads: memory, disk or the bundle, never the network.
    func cachedAnswer<Value: Sendable>(for key: CacheKey, _ extract: (CatalogContent) -> Value) -> CacheResult<Value> {
        let now = currentDate()
        if tiers.isCached(key), let found = tiers.find(key, now: now) {
            return found.isTooOld ? .miss : tiers.result(found, now: now, extract)
        }
        statisticsCounter.record { $0.misses += 1 }
        return .miss
    }

    /// A miss of the async reads: counted, then fetched (joining a fetch in flight).
    private nonisolated(nonsending) func fetchAnswer<Value: Sendable>(
        for key: CacheKey, _ extract: (CatalogContent) -> Value
    ) async throws -> CacheResult<Value> {
        if case .gamesPage(_, _, let offset) = key.content, !(0...CatalogRules.maxGamesTotal).contains(offset) {
            throw CacheError(
                .invalidRequest, key: key,
                "offset \(offset) is outside 0...\(CatalogRules.maxGamesTotal); no such page exists")
        }
        statisticsCounter.record { $0.misses += 1 }
        let entry = try await fetch(key, current: nil)
        try Task.checkCancellation()
        return answers.result(entry, tier: .upstream, state: .fresh, now: clock.now, extract: extract)
    }

    /// The answer for content older than the maximum age: a fetch, or an error saying why nothing
    /// is shown.
    private nonisolated(nonsending) func tooOldAnswer<Value: Sendable>(
        _ found: CacheTiers.Found, for key: CacheKey, _ extract: (CatalogContent) -> Value
    ) async throws -> CacheResult<Value> {
        let entry: CacheEntry
        do {
            entry = try await fetch(key, current: found.entry)
        } catch let error as CacheError where error.code != .invalidRequest {
            let age = max(clock.now.timeIntervalSince(found.entry.storedAt), 0)
            throw CacheError(
                .contentTooOld, key: key,
                "the \(found.tier) copy is \(Int(age / 3600)) hours old, over the maximum content age, and the upstream could not answer; connect to update",
                cause: error)
        }
        try Task.checkCancellation()
        return answers.result(entry, tier: .upstream, state: .fresh, now: clock.now, extract: extract)
    }

    /// The answer for a player's expired entry: a fresh fetch, or the old rows as `.stale` when
    /// the upstream cannot answer (offline). A refused session, or a cancelled caller, throws.
    private nonisolated(nonsending) func expiredPlayerAnswer<Value: Sendable>(
        _ found: CacheTiers.Found, for key: CacheKey, now: Date, _ extract: (CatalogContent) -> Value
    ) async throws -> CacheResult<Value> {
        do {
            let entry = try await fetch(key, current: found.entry)
            try Task.checkCancellation()
            return answers.result(entry, tier: .upstream, state: .fresh, now: clock.now, extract: extract)
        } catch let error as CacheError where !PlayerLists.isUnauthorized(error) {
            logger.info(
                "player content expired and the upstream failed; serving it stale", metadata: ["cache.key": "\(key)"])
            answers.publish(CacheUpdate(key: key, event: .refreshFailed(error, attempt: 1, retryIn: nil)))
            return tiers.result(found, now: now, extract)
        }
    }

    // MARK: - Fetching

    /// Fetches `key` from the upstream, joining a fetch already in flight for it: a player's list
    /// through ``PlayerLists``, the catalogue through ``CatalogFetcher``.
    nonisolated(nonsending) func fetch(_ key: CacheKey, current: CacheEntry?) async throws -> CacheEntry {
        if key.playerList != nil { return try await players.fetch(key, current: current) }
        return try await fetcher.fetch(key, current: current)
    }

    // MARK: - Refreshing

    /// Starts a background refresh of `key` (``RefreshScheduler``); `nil` when none started (one
    /// runs, waits, rests, or the key was queued for a bulk validation).
    @discardableResult
    func refreshInBackground(_ key: CacheKey, current: CacheEntry) -> RefreshScheduler.Attempt? {
        scheduler.refresh(key, current: current, synchronizer.refreshWork)
    }
}
