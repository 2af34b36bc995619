@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation

/// The in-memory tier: a least-recently-used map bounded by entry count and by approximate cost.
///
/// A `Dictionary` under one lock (`Locked`), not an actor and not `NSCache` (about 10× slower on
/// Linux). Each entry carries the tick of its last use; the least recently used is found by a scan
/// only when an insert goes over a limit (at most ``countLimit`` entries).
///
/// An entry with a game the cache's ``GameFilter`` may withhold keeps what it shows (``ShownContent``)
/// from its first hit until the territory or the withdrawals change, so a hit on such a page copies
/// no game.
@_spi(CatalogTools) public final class MemoryTier: Sendable {
    /// The most entries kept: 500 by default.
    public let countLimit: Int
    /// The most approximate bytes kept (``CatalogContent/approximateCost``): 8 MiB by default.
    public let costLimit: Int

    private struct Slot {
        let entry: CacheEntry
        let cost: Int
        var lastUse: UInt64
        /// Whether the filter may withhold a game of the entry: decided when it is stored and when
        /// the withdrawals change.
        var isFiltered: Bool
        /// What the entry shows, once answered: only for a filtered entry.
        var shown: ShownContent?
    }

    private struct State {
        var slots: [CacheKey: Slot] = [:]
        var tick: UInt64 = 0
        var totalCost = 0
        var evictions = 0
        /// The cache's rule of withheld games; its lock is taken inside this tier's, never the
        /// other way round.
        var filter: GameFilter?

        /// Marks the slot at `index` as just used.
        mutating func touch(_ index: Dictionary<CacheKey, Slot>.Index) {
            tick &+= 1
            slots.values[index].lastUse = tick
        }

        mutating func remove(_ key: CacheKey) {
            guard let slot = slots.removeValue(forKey: key) else { return }
            totalCost -= slot.cost
        }

        /// The keys, least recently used first.
        var keysByRecency: [CacheKey] {
            slots.sorted { $0.value.lastUse < $1.value.lastUse }.map(\.key)
        }
    }

    private let state = Locked(State())

    /// - Parameters:
    ///   - countLimit: The most entries kept (500 by default).
    ///   - costLimit: The most approximate bytes kept (8 MiB by default).
    public init(countLimit: Int = 500, costLimit: Int = 8 << 20) {
        self.countLimit = max(countLimit, 1)
        self.costLimit = max(costLimit, 1)
    }

    /// Withholds games through `filter` from now on (the cache's rule, set once).
    func filter(by filter: GameFilter) {
        state.withLock { state in
            state.filter = filter
            for index in state.slots.indices {
                state.slots.values[index].isFiltered = filter.filters(state.slots.values[index].entry)
            }
        }
    }

    /// The entry for `key`, marked as just used.
    public func entry(for key: CacheKey) -> CacheEntry? {
        state.withLock { state in
            guard let index = state.slots.index(forKey: key) else { return nil }
            state.touch(index)
            return state.slots.values[index].entry
        }
    }

    /// A read's hit: the entry for `key`, marked as just used, and what it shows when the filter
    /// withholds any of its games (`nil`: all of it).
    func hit(_ key: CacheKey) -> (entry: CacheEntry, shown: ShownContent?)? {
        state.withLock { state in
            guard let index = state.slots.index(forKey: key) else { return nil }
            state.touch(index)
            let slot = state.slots.values[index]
            guard slot.isFiltered, let filter = state.filter else { return (slot.entry, nil) }
            if let shown = slot.shown { return (slot.entry, shown) }
            let shown = filter.withholding(slot.entry.content)
            state.slots.values[index].shown = shown
            return (slot.entry, shown)
        }
    }

    /// The entry for `key`, without marking it used.
    func peek(_ key: CacheKey) -> CacheEntry? {
        state.withLock { $0.slots[key]?.entry }
    }

    /// Forgets what each entry showed: the territory changed (``CatalogCache/setTerritory(_:)``).
    func forgetShownContent() {
        state.withLock { state in
            for index in state.slots.indices { state.slots.values[index].shown = nil }
        }
    }

    /// Decides again which entries are filtered and forgets what they showed: the withdrawals changed.
    func refilter() {
        state.withLock { state in
            guard let filter = state.filter else { return }
            for index in state.slots.indices {
                state.slots.values[index].isFiltered = filter.filters(state.slots.values[index].entry)
                state.slots.values[index].shown = nil
            }
        }
    }

    /// Every entry held now, without marking them used.
    func allEntries() -> [CacheEntry] {
        state.withLock { state in state.slots.values.map(\.entry) }
    }

    /// The entries of `scope` held now, without marking them used: what bulk validation checks.
    public func entries(in scope: CacheScope) -> [CacheEntry] {
        state.withLock { state in state.slots.values.compactMap { $0.entry.key.scope == scope ? $0.entry : nil } }
    }

    /// Stores `entry`, evicting the least recently used entries past the count or cost limit (never
    /// `entry` itself).
    public func store(_ entry: CacheEntry) {
        let cost = entry.content.approximateCost
        state.withLock { state in
            state.remove(entry.key)
            state.tick &+= 1
            let isFiltered = state.filter?.filters(entry) ?? entry.restrictsTerritories
            state.slots[entry.key] = Slot(entry: entry, cost: cost, lastUse: state.tick, isFiltered: isFiltered)
            state.totalCost += cost
            while state.slots.count > countLimit || (state.totalCost > costLimit && state.slots.count > 1) {
                guard let oldest = state.slots.min(by: { $0.value.lastUse < $1.value.lastUse })?.key,
                    oldest != entry.key
                else { break }
                state.remove(oldest)
                state.evictions += 1
            }
        }
    }

    public func removeEntry(for key: CacheKey) {
        state.withLock { $0.remove(key) }
    }

    public func removeAll(in scope: CacheScope?) {
        state.withLock { state in
            guard let scope else {
                state.slots.removeAll()
                state.totalCost = 0
                return
            }
            for key in state.slots.keys where key.scope == scope { state.remove(key) }
        }
    }

    /// Drops every entry, as on a memory warning. Disk and bundled tiers still hold them.
    public func trim() {
        removeAll(in: nil)
    }

    /// Drops every entry but the `count` most recently used (read or stored): what is on screen.
    /// Returns how many were dropped.
    @discardableResult
    public func trim(keepingMostRecent count: Int) -> Int {
        state.withLock { state in
            guard state.slots.count > max(count, 0) else { return 0 }
            let victims = state.keysByRecency.dropLast(max(count, 0))
            for key in victims { state.remove(key) }
            return victims.count
        }
    }

    /// Entries held now.
    public var count: Int { state.withLock { $0.slots.count } }
    /// Approximate bytes held now.
    public var totalCost: Int { state.withLock { $0.totalCost } }
    /// Entries evicted for the count or cost limit so far.
    public var evictions: Int { state.withLock { $0.evictions } }
    /// The keys from least to most recently used (for tests and debugging).
    public var keysByRecency: [CacheKey] { state.withLock { $0.keysByRecency } }
}
