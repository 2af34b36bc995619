@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation

/// Held updates ("new games available"): refreshed content that waits for the app
/// instead of replacing what is on screen (``Configuration/heldUpdates``).
extension CatalogCache {
    /// Shows the content held for `key`: stores it and announces it as `.updated` (with what it
    /// changed against what was shown). Call it when the player taps "new games available".
    ///
    /// - Returns: `false` when nothing was held for `key`.
    @discardableResult
    public func applyPendingUpdate(for key: CacheKey) -> Bool {
        writer.applyHeld(for: key)
    }

    /// What showing the content held for `key` would change, or `nil` when nothing is held.
    public func pendingUpdate(for key: CacheKey) -> ContentChanges? {
        guard let held = writer.held(for: key) else { return nil }
        return answers.changes(from: tiers.shownEntry(key)?.content, to: held.content)
    }
}
