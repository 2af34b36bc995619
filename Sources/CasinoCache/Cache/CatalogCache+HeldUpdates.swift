@_spi(Internals) import CasinoCatalog
import CatalogSupport
import Foundation

/// Held updates (seed 004's "New posts available"): refreshed content that waits for the app
/// instead of replacing what is on screen (``Configuration/heldUpdates``).
extension CatalogCache {
    /// Shows the content held for `key`: stores it and announces it as `.updated` (with what it
    /// changed against what was shown). Call it when the player taps "new games available".
    ///
    /// - Returns: `false` when nothing was held for `key`.
    @discardableResult
    public func applyPendingUpdate(for key: CacheKey) -> Bool {
        guard let entry = overlay.withLock({ $0.held.removeValue(forKey: key) }) else { return false }
        let generation = state.withLock { $0.generation(of: key.scope) }
        let shown = memory.peek(key) ?? storedEntryBelowMemory(key)?.0
        var applied = entry
        applied.storedAt = max(entry.storedAt, shown?.storedAt ?? entry.storedAt)
        show(applied, replacing: shown, ifStill: generation)
        return true
    }

    /// What showing the content held for `key` would change, or `nil` when nothing is held.
    public func pendingUpdate(for key: CacheKey) -> ContentChanges? {
        guard let held = overlay.withLock({ $0.held[key] }) else { return nil }
        let shown = memory.peek(key) ?? storedEntryBelowMemory(key)?.0
        return ContentChanges(from: shown?.content, to: held.content)
    }

    /// Holds `entry` instead of showing it: what is shown stays (renewed, so it is not refetched
    /// again and again), and `.pendingUpdate` announces what changed, once per new content.
    /// Returns what is shown.
    func hold(_ entry: CacheEntry, showing shown: CacheEntry, ifStill generation: [Int], inMemory: Bool) -> CacheEntry {
        let isNew = overlay.withLock { overlay -> Bool in
            defer { overlay.held[entry.key] = entry }
            return overlay.held[entry.key]?.content != entry.content
        }
        var renewed = shown
        renewed.storedAt = entry.storedAt
        renewed.etag = nil  // the validator belongs to the held content, not to what is shown
        store(renewed, ifStill: generation, inMemory: inMemory)
        if isNew {
            broadcaster.publish(CacheUpdate(key: entry.key, event: .pendingUpdate(ContentChanges(from: shown.content, to: entry.content))))
        }
        return renewed
    }
}
