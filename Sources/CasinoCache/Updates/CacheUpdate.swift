@_spi(CatalogTools) import CasinoCatalog

/// A silent update: new content from the upstream (a background refresh, a fetch on a miss, a
/// prefetch) or from a player's own change, a background refresh that failed, content held for
/// the app to show when asked, or a player's change that failed.
///
/// Nothing is emitted when the upstream returns the content the cache already had; a first fetch
/// lists every id as inserted.
public struct CacheUpdate: Sendable {
    /// The content concerned.
    public var key: CacheKey
    /// What happened.
    public var event: Event

    public init(key: CacheKey, event: Event) {
        self.key = key
        self.event = event
    }

    /// What happened to the content.
    public enum Event: Sendable {
        /// New content is cached; `changes` says which ids were inserted, removed or updated.
        case updated(CatalogContent, ContentChanges)
        /// A background refresh failed; the previous value stays. `retryIn` is when the cache
        /// tries again (`nil` after the last attempt; ``CatalogCache/refreshStale()`` restarts).
        case refreshFailed(CacheError, attempt: Int, retryIn: Duration?)
        /// Newer content arrived for a key whose updates are held (``HeldUpdates``): what is on
        /// screen stays; `changes` says what showing it would insert, remove and update ("3 new
        /// games"). ``CatalogCache/applyPendingUpdate(for:)`` shows it (then `.updated` follows).
        case pendingUpdate(ContentChanges)
        /// A player's change did not happen: the server refused it, or the offline queue was full
        /// and dropped it (``CacheError/code`` says which). Its effect is already undone on screen
        /// (the `.updated` with the restored list came first).
        case mutationFailed(PlayerMutation, CacheError)
    }
}

/// What changed between two versions of a category list or a page, by id.
public struct ContentChanges: Sendable, Hashable {
    /// Ids only the new version has, in its order.
    public var inserted: [String]
    /// Ids only the old version had, in its order.
    public var removed: [String]
    /// Ids both have whose item differs.
    public var updated: [String]
    /// Whether the order of the ids both have changed.
    public var isReordered: Bool

    public init(inserted: [String] = [], removed: [String] = [], updated: [String] = [], isReordered: Bool = false) {
        self.inserted = inserted
        self.removed = removed
        self.updated = updated
        self.isReordered = isReordered
    }

    /// The changes from `old` (nothing, on a first fetch) to `new`.
    public init(from old: CatalogContent?, to new: CatalogContent) {
        let oldItems = old.map(Self.items) ?? [:]
        let newItems = Self.items(new)
        let oldIDs = old?.ids ?? []
        let newIDs = new.ids
        inserted = newIDs.filter { oldItems[$0] == nil }
        removed = oldIDs.filter { newItems[$0] == nil }
        updated = newIDs.filter { id in oldItems[id].map { $0 != newItems[id] } ?? false }
        let kept = Set(oldIDs).intersection(newIDs)
        isReordered = oldIDs.filter(kept.contains) != newIDs.filter(kept.contains)
    }

    /// Whether nothing changed item by item.
    public var isEmpty: Bool { inserted.isEmpty && removed.isEmpty && updated.isEmpty && !isReordered }

    private static func items(_ content: CatalogContent) -> [String: AnyHashable] {
        switch content {
        case .categories(let list):
            Dictionary(list.items.map { ($0.id, AnyHashable($0)) }, uniquingKeysWith: { first, _ in first })
        case .gamesPage(let page):
            Dictionary(page.items.map { ($0.id, AnyHashable($0)) }, uniquingKeysWith: { first, _ in first })
        }
    }
}
