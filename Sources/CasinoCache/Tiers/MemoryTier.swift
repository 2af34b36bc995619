@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation

/// The in-memory tier: a least-recently-used map bounded by entry count and by approximate cost.
///
/// Guarded by an OS lock (`os_unfair_lock` or `pthread_mutex_t`), not an actor and not `NSCache`
/// (`NSCache` is about 10× slower on Linux). The entries sit in one array, each with its key's
/// hash and parts (``MemoryTierKey``) and the tick of its last use; the tier's own hash table
/// (``MemoryTierIndex``) maps hashes to places. A hit hashes its key outside the lock, compares the
/// stored key's parts in place (the stored ``CacheKey`` compared made a hit 1.5× the plain LRU's),
/// writes a tick only when the entry was not already the most recently used, and hands out one
/// reference (``HeldEntry``). The least recently used entry is found by a scan only when an insert
/// goes over a limit (at most ``countLimit`` entries).
@_spi(CatalogTools) public final class MemoryTier: Sendable {
    /// The most entries kept: 500 by default.
    public let countLimit: Int
    /// The most approximate bytes kept (``CatalogContent/approximateCost``): 8 MiB by default.
    public let costLimit: Int
    /// The seed of this tier's key hashes (``KeyHasher``), drawn once per tier.
    private let seed = Int.random(in: .min ... .max)

    /// One stored entry, its key's hash and parts, and when it was last used.
    private struct Slot {
        /// The entry and what it shows: computed on its first hit under the filter's rule, forgotten
        /// when the territory or the withdrawals change (a new ``HeldEntry`` each time).
        var held: HeldEntry
        let key: MemoryTierKey
        let hash: Int
        let cost: Int
        var lastUse: UInt64
        /// Whether the entry has a restricted or withdrawn game (``GameFilter/filters(_:)``), beside
        /// the key: a hit reads it without touching the entry. Decided when stored and when the
        /// withdrawals change.
        var isFiltered: Bool

        /// A copy of the entry, for the paths that are not a hit.
        var entry: CacheEntry { held.entry }

        /// Where `key` lies in a slot, for lookups that compare it through a pointer. Computed, so
        /// the optimizer folds it to a constant: a `static let` is a lazy global, and every hit
        /// called `swift_once` to read it.
        @inline(__always)
        static var keyOffset: Int { MemoryLayout<Slot>.offset(of: \.key).unsafelyUnwrapped }
    }

    private struct State {
        /// How an entry with a restricted or withdrawn game is shown, and which entries are (the
        /// cache's ``GameFilter``), set once; read under the lock, so a hit pays nothing to reach it.
        var show: (@Sendable (CatalogContent) -> ShownContent)?
        var filters: (@Sendable (borrowing CacheEntry) -> Bool)?
        var index = MemoryTierIndex()
        var slots: [Slot] = []
        var tick: UInt64 = 0
        var totalCost = 0
        var evictions = 0
        var answers = AnswerCounts()

        /// The bucket and place of `key`'s entry (its hash: `hash`), its key compared where it lies.
        @inline(__always)
        func find(_ key: CacheKey, hash: Int) -> (bucket: Int, place: Int)? {
            slots.withUnsafeBufferPointer { slots in
                let base = UnsafeRawPointer(slots.baseAddress.unsafelyUnwrapped)
                return index.find(hash: hash) { place in
                    let stored = base + place * MemoryLayout<Slot>.stride + Slot.keyOffset
                    return stored.assumingMemoryBound(to: MemoryTierKey.self).isKey(key)
                }
            }
        }

        /// Marks the slot at `place` as just used; nothing is written when it already is the most
        /// recently used (a screen reading one page again and again, or two threads reading it).
        @inline(__always)
        mutating func touch(_ place: Int) {
            if slots[place].lastUse != tick {
                tick &+= 1
                slots[place].lastUse = tick
            }
        }

        /// Removes the slot at `place` (found in `bucket`); the last slot moves into its place.
        mutating func remove(bucket: Int, place: Int) {
            index.remove(bucket: bucket)
            totalCost -= slots[place].cost
            let last = slots.count - 1
            if place != last {
                index.move(hash: slots[last].hash, from: last, to: place)
                slots.swapAt(place, last)
            }
            slots.removeLast()
        }

        mutating func remove(_ key: CacheKey, hash: Int) {
            if let (bucket, place) = find(key, hash: hash) { remove(bucket: bucket, place: place) }
        }

        /// The keys, least recently used first.
        var keysByRecency: [CacheKey] {
            slots.sorted { $0.lastUse < $1.lastUse }.map(\.entry.key)
        }
    }

    /// The hash of `key` in this tier: the fields that tell keys apart in practice (a page's
    /// category and offset, a category list's language, a user's id); `==` compares the rest.
    /// Strings are hashed in their NFC form, as `==` compares them.
    @inline(__always)
    private func hash(_ key: CacheKey) -> Int {
        var hasher = KeyHasher(seed: seed)
        switch key.content {
        case .categories(let edition):
            hasher.combine(edition.language)
        case .gamesPage(_, let categoryId, let offset):
            hasher.combine(categoryId)
            hasher.combine(offset)
        }
        if case .user(let id) = key.scope { hasher.combine(id) }
        return hasher.finalize()
    }

    private let state = Locked(State())

    /// - Parameters:
    ///   - countLimit: The most entries kept (500 by default).
    ///   - costLimit: The most approximate bytes kept (8 MiB by default).
    public init(countLimit: Int = 500, costLimit: Int = 8 << 20) {
        self.countLimit = max(countLimit, 1)
        self.costLimit = max(costLimit, 1)
    }

    /// The entry for `key`, marked as just used.
    public func entry(for key: CacheKey) -> CacheEntry? {
        let hash = hash(key)
        return state.withLock { state in
            guard let (_, place) = state.find(key, hash: hash) else { return nil }
            state.touch(place)
            return state.slots[place].entry
        }
    }

    /// The cache's hot path, under one lock: the entry for `key`, marked as just used, classified
    /// (``CacheTiers/state(origin:storedAt:now:timeToLive:)``), filtered on its first answer under
    /// the filter's rule, and counted in ``answers``.
    func hit(for key: CacheKey, now: Date, timeToLive: TimeInterval) -> (HeldEntry, CacheState)? {
        let hash = hash(key)
        return state.withLock { state -> (HeldEntry, CacheState)? in
            guard let (_, place) = state.find(key, hash: hash) else { return nil }
            state.touch(place)
            var held = state.slots[place].held
            let answer = CacheTiers.state(
                origin: held.entry.origin, storedAt: held.entry.storedAt, now: now, timeToLive: timeToLive)
            if state.slots[place].isFiltered, held.shown == nil, let show = state.show {
                held = HeldEntry(held.entry, shown: show(held.entry.content))
                state.slots[place].held = held
            }
            state.answers.count(answer)
            return (held, answer)
        }
    }

    /// The entry for `key`, without marking it used.
    func peek(_ key: CacheKey) -> CacheEntry? {
        let hash = hash(key)
        return state.withLock { state in state.find(key, hash: hash).map { state.slots[$0.place].entry } }
    }

    /// Shows each entry that `filters` picks through `show` (the cache's ``GameFilter``) from its
    /// first hit until ``forgetShownContent()`` or ``refilter()``. The filter's own lock is taken
    /// inside this tier's, never the other way round.
    func filter(
        by filters: @escaping @Sendable (borrowing CacheEntry) -> Bool,
        showing show: @escaping @Sendable (CatalogContent) -> ShownContent
    ) {
        state.withLock {
            $0.filters = filters
            $0.show = show
        }
    }

    /// Forgets what each entry showed: the territory changed, or a lost withdrawal list ended (``GameFilter``).
    func forgetShownContent() {
        state.withLock { state in
            for place in state.slots.indices where state.slots[place].held.shown != nil {
                state.slots[place].held = HeldEntry(state.slots[place].entry)
            }
        }
    }

    /// Decides again which entries are filtered and forgets what they showed: the withdrawals changed.
    func refilter() {
        state.withLock { state in
            guard let filters = state.filters else { return }
            for place in state.slots.indices {
                let entry = state.slots[place].entry
                state.slots[place].isFiltered = filters(entry)
                if state.slots[place].held.shown != nil { state.slots[place].held = HeldEntry(entry) }
            }
        }
    }

    /// Every entry held now, without marking them used.
    func allEntries() -> [CacheEntry] {
        state.withLock { state in state.slots.map(\.entry) }
    }

    /// The entries of `scope` held now, without marking them used: what bulk validation checks.
    public func entries(in scope: CacheScope) -> [CacheEntry] {
        state.withLock { state in state.slots.compactMap { $0.entry.key.scope == scope ? $0.entry : nil } }
    }

    /// The answers ``hit(for:now:timeToLive:)`` counted so far.
    var answers: AnswerCounts { state.withLock { $0.answers } }

    public func store(_ entry: CacheEntry) {
        let cost = entry.content.approximateCost
        let hash = hash(entry.key)
        state.withLock { state in
            state.remove(entry.key, hash: hash)
            state.tick &+= 1
            state.index.insert(hash: hash, place: state.slots.count)
            state.slots.append(
                Slot(
                    held: HeldEntry(entry), key: MemoryTierKey(entry.key), hash: hash, cost: cost, lastUse: state.tick,
                    isFiltered: state.filters?(entry) ?? entry.restrictsTerritories))
            state.totalCost += cost
            while state.slots.count > countLimit || (state.totalCost > costLimit && state.slots.count > 1) {
                guard let oldest = state.slots.indices.min(by: { state.slots[$0].lastUse < state.slots[$1].lastUse }),
                    state.slots[oldest].entry.key != entry.key
                else { break }
                state.remove(state.slots[oldest].entry.key, hash: state.slots[oldest].hash)
                state.evictions += 1
            }
        }
    }

    public func removeEntry(for key: CacheKey) {
        let hash = hash(key)
        state.withLock { $0.remove(key, hash: hash) }
    }

    public func removeAll(in scope: CacheScope?) {
        state.withLock { state in
            guard let scope else {
                state.index.removeAll()
                state.slots.removeAll()
                state.totalCost = 0
                return
            }
            for (key, hash) in state.slots.map({ ($0.entry.key, $0.hash) }) where key.scope == scope {
                state.remove(key, hash: hash)
            }
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
            let victims = state.slots.sorted { $0.lastUse < $1.lastUse }.dropLast(max(count, 0))
            for victim in victims { state.remove(victim.entry.key, hash: victim.hash) }
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

/// An entry as a read answers it: the entry, and what it shows when the cache's filter withholds
/// some of its games (`nil`: all of it). A class: a memory hit takes one reference out of the
/// tier's lock, where a copy of the entry's fields cost four times the hit.
final class HeldEntry: Sendable {
    let entry: CacheEntry
    let shown: ShownContent?

    init(_ entry: CacheEntry, shown: ShownContent? = nil) {
        self.entry = entry
        self.shown = shown
    }
}
