@_spi(CatalogTools) public import CasinoCatalog

/// Refreshing on the app's cue: ahead of time, when the network is back, and waiting for refreshes.
extension CatalogCache {
    /// Fetches the first page of each category ahead of time when it is missing, stale or bundled.
    public func prefetch(edition: Edition, categoryIds: [String]) async {
        await withTaskGroup(of: Void.self) { group in
            for categoryId in categoryIds {
                group.addTask {
                    let key = CacheKey.gamesPage(edition, categoryId: categoryId, offset: 0)
                    let current = self.tiers.entry(key)
                    if let current, self.tiers.isFresh(current, now: self.clock.now) { return }
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
        let failedKeys = scheduler.endWaits()
        var attempts: [RefreshScheduler.Attempt] = []
        for key in Set(memory.keysByRecency).union(failedKeys) {
            guard let entry = tiers.entry(key), !tiers.isFresh(entry, now: now) else { continue }
            if let attempt = refreshInBackground(key, current: entry) { attempts.append(attempt) }
        }
        for attempt in attempts { await attempt.landed() }
        await sendPendingMutations()
    }

    /// Waits until the background refreshes running now have finished (retries waiting for
    /// their backoff are not waited for); keys queued for a batched validation are sent at once.
    public func waitForRefreshes() async {
        await synchronizer.validateQueued()
        await scheduler.waitForRunning()
    }
}
