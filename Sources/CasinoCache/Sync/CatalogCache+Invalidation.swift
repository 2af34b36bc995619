@_spi(CatalogTools) import CasinoCatalog
import Logging

/// Push invalidation: the provider names what changed; the cache stops calling it fresh.
extension CatalogCache {
    /// Marks the catalogue entries a push names as stale, in memory and on disk, and refreshes
    /// the ones in memory (what the app has been showing) now, in one bulk validation with
    /// ``Configuration/refreshBatchWindow`` set; the others refresh when next read.
    ///
    /// Stale, not forgotten: until the refresh lands, and offline, the entry is still answered
    /// (as `.stale`). Keys of editions or categories the cache does not hold match nothing;
    /// unrelated entries are not touched. Retries resting after failures are started again.
    ///
    /// - Returns: How many entries matched and how many refreshes ran.
    @discardableResult
    public func markStale(_ invalidation: CatalogInvalidation) async -> InvalidationReport {
        var report = InvalidationReport(patterns: invalidation.patterns.count, rejected: invalidation.rejected)
        if invalidation.rejected > 0 {
            logger.info(
                "push invalidation entries skipped",
                metadata: ["cache.rejected": "\(invalidation.rejected)", "cache.problems": "\(invalidation.problems)"])
        }
        report.withdrawalError = invalidation.withdrawalError
        if let push = invalidation.withdrawals {
            do throws(WithdrawalListError) {
                report.withdrawnFrom = try addWithdrawals(push)
            } catch {
                report.withdrawalError = error
            }
        }
        if let error = report.withdrawalError {
            logger.warning("push withdrawals refused", metadata: ["cache.error": "\(error)"])
        }
        guard !invalidation.patterns.isEmpty else { return report }
        var keys = Set<SnapshotKey>()
        var categories = Set<CategoryPages>()
        for pattern in invalidation.patterns {
            switch pattern {
            case .key(let key): keys.insert(key)
            case .categoryPages(let edition, let categoryId):
                categories.insert(CategoryPages(edition: edition, categoryId: categoryId))
            }
        }
        func matches(_ key: CacheKey) -> Bool {
            guard key.scope == .global else { return false }
            if keys.contains(key.content) { return true }
            guard case .gamesPage(let edition, let categoryId, _) = key.content else { return false }
            return categories.contains(CategoryPages(edition: edition, categoryId: categoryId))
        }

        let now = clock.now
        let shown = memory.entries(in: .global).filter { matches($0.key) }
        let shownKeys = Set(shown.map(\.key))
        let onDiskOnly = (disk?.storedGlobalKeys() ?? []).filter { matches($0) && !shownKeys.contains($0) }
        let matched = Set(shownKeys).union(onDiskOnly)
        report.matched = matched.count
        scheduler.endRests(of: matched)
        for key in onDiskOnly {
            guard let (entry, _) = tiers.entryBelowMemory(key), entry.origin == .network else { continue }
            disk?.store(tiers.expired(entry, now: now))
        }
        var attempts: [RefreshScheduler.Attempt] = []
        for entry in shown {
            let marked = entry.origin == .network ? tiers.expired(entry, now: now) : entry
            if marked != entry {
                memory.store(marked)
                disk?.store(marked)
            }
            if let attempt = refreshInBackground(entry.key, current: marked) {
                attempts.append(attempt)
                report.refreshed += 1
            } else if scheduler.isQueued(entry.key) {
                report.refreshed += 1
            }
        }
        // With batched refreshes the shown keys were queued: one bulk request for all, now.
        await synchronizer.validateQueued()
        for attempt in attempts { await attempt.landed() }
        return report
    }

    private struct CategoryPages: Hashable {
        var edition: Edition
        var categoryId: String
    }
}
