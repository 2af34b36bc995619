@_spi(Internals) import CasinoCatalog
import Foundation

/// The in-memory tier: a least-recently-used map bounded by entry count and by approximate cost.
///
/// Guarded by an OS lock (`os_unfair_lock` or `pthread_mutex_t`), not an actor and not `NSCache`
/// (`NSCache` is about 10× slower on Linux). The entries sit in one array, each with the tick of its
/// last use, and a dictionary maps each key to its place: a hit is one dictionary lookup and a tick
/// written in place, and retains nothing but the value it answers. The least recently used entry is
/// found by a scan only when an insert goes over a limit (at most ``countLimit`` entries).
@_spi(Tiers) public final class MemoryTier: Sendable {
    /// The most entries kept: 500 by default.
    public let countLimit: Int
    /// The most approximate bytes kept (``CatalogContent/approximateCost``): 8 MiB by default.
    public let costLimit: Int

    /// One stored entry and when it was last used.
    private struct Slot {
        let entry: CacheEntry
        let cost: Int
        var lastUse: UInt64
    }

    /// A key as the tier's dictionary hashes it: the fields ``CacheKey/hash(into:)`` combines, through
    /// ``KeyHasher`` (eight bytes at a time, seeded by the dictionary) instead of SipHash, which was a
    /// fifth of a memory hit. Swift's dictionaries hash through `_rawHashValue(seed:)`; implementing
    /// it is how a type chooses its hash function, and it is kept to this private key, so every other
    /// set or dictionary of ``CacheKey`` hashes as usual. Equal keys hash equal: strings are hashed
    /// in their NFC form, as `==` compares them.
    struct TierKey: Hashable {
        let key: CacheKey

        @inline(__always)
        init(_ key: CacheKey) { self.key = key }

        @inline(__always)
        static func == (lhs: TierKey, rhs: TierKey) -> Bool { lhs.key == rhs.key }

        func hash(into hasher: inout Hasher) { hasher.combine(_rawHashValue(seed: 0)) }

        func _rawHashValue(seed: Int) -> Int {
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
    }

    private struct State {
        /// Where each key's slot is in `slots`.
        var places: [TierKey: Int] = [:]
        var slots: [Slot] = []
        var tick: UInt64 = 0
        var totalCost = 0
        var evictions = 0
        var answers = AnswerCounts()

        /// The place of `key`'s slot, marked as just used.
        @inline(__always)
        mutating func touch(_ key: CacheKey) -> Int? {
            guard let place = places[TierKey(key)] else { return nil }
            tick &+= 1
            slots[place].lastUse = tick
            return place
        }

        /// Removes `key`'s slot; the last slot moves into its place.
        mutating func remove(_ key: CacheKey) {
            guard let place = places.removeValue(forKey: TierKey(key)) else { return }
            totalCost -= slots[place].cost
            if place != slots.count - 1 {
                slots.swapAt(place, slots.count - 1)
                places[TierKey(slots[place].entry.key)] = place
            }
            slots.removeLast()
        }

        /// The keys, least recently used first.
        var keysByRecency: [CacheKey] {
            slots.sorted { $0.lastUse < $1.lastUse }.map(\.entry.key)
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

    /// The entry for `key`, marked as just used.
    public func entry(for key: CacheKey) -> CacheEntry? {
        state.withLock { state in state.touch(key).map { state.slots[$0].entry } }
    }

    /// The cache's hot path: the entry for `key`, marked as just used, answered as `classify` says
    /// from its origin and storage date, counted in ``answers``, and read by `read`, all under one
    /// lock. `read` builds the caller's answer from the entry in place: a hit copies out only what
    /// `read` returns. (`classify` takes two fields, not the entry: passing the entry would copy it.)
    @inline(__always)
    func hit<Answer>(
        for key: CacheKey, classify: (CacheOrigin, Date) -> CacheAnswer,
        read: (borrowing CacheEntry, CacheAnswer) -> Answer
    ) -> Answer? {
        state.withLock { state -> Answer? in
            guard let place = state.touch(key) else { return nil }
            let answer = classify(state.slots[place].entry.origin, state.slots[place].entry.storedAt)
            state.answers.count(answer)
            return read(state.slots[place].entry, answer)
        }
    }

    /// The entry for `key`, without marking it used.
    func peek(_ key: CacheKey) -> CacheEntry? {
        state.withLock { state in state.places[TierKey(key)].map { state.slots[$0].entry } }
    }

    /// The entries of `scope` held now, without marking them used: what bulk validation checks.
    public func entries(in scope: CacheScope) -> [CacheEntry] {
        state.withLock { state in state.slots.compactMap { $0.entry.key.scope == scope ? $0.entry : nil } }
    }

    /// The answers ``hit(for:classify:read:)`` counted so far.
    var answers: AnswerCounts { state.withLock { $0.answers } }

    public func store(_ entry: CacheEntry) {
        let cost = entry.content.approximateCost
        state.withLock { state in
            state.remove(entry.key)
            state.tick &+= 1
            state.places[TierKey(entry.key)] = state.slots.count
            state.slots.append(Slot(entry: entry, cost: cost, lastUse: state.tick))
            state.totalCost += cost
            while state.slots.count > countLimit || (state.totalCost > costLimit && state.slots.count > 1) {
                guard let oldest = state.slots.min(by: { $0.lastUse < $1.lastUse })?.entry.key, oldest != entry.key
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
            for place in state.places.keys where scope == nil || place.key.scope == scope {
                state.remove(place.key)
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
