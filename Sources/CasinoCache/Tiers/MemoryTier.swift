@_spi(Internals) import CasinoCatalog
import Foundation

/// The in-memory tier: a least-recently-used map bounded by entry count and by approximate cost.
///
/// Guarded by an OS lock (`os_unfair_lock` or `pthread_mutex_t`), not an actor and not `NSCache`
/// (`NSCache` is about 10× slower on Linux). A hit is one dictionary lookup and a tick
/// written into the entry's box; recency is kept as that tick, and the least recently used entry
/// is found by a scan only when an insert goes over a limit (at most ``countLimit`` entries).
@_spi(Tiers) public final class MemoryTier: Sendable {
    /// The most entries kept: 500 by default.
    public let countLimit: Int
    /// The most approximate bytes kept (``CatalogContent/approximateCost``): 8 MiB by default.
    public let costLimit: Int

    /// One stored entry; a class so a hit retains one reference instead of copying the entry's
    /// fields, and so recency can be updated in place.
    final class Box: @unchecked Sendable {
        // @unchecked: `lastUse` is only read and written under the tier's lock; the rest is immutable.
        let entry: CacheEntry
        let cost: Int
        var lastUse: UInt64

        init(entry: CacheEntry, cost: Int, lastUse: UInt64) {
            self.entry = entry
            self.cost = cost
            self.lastUse = lastUse
        }
    }

    private struct State {
        var boxes: [CacheKey: Box] = [:]
        var tick: UInt64 = 0
        var totalCost = 0
        var evictions = 0
        var answers = AnswerCounts()

        /// The box for `key`, marked as just used.
        mutating func touch(_ key: CacheKey) -> Box? {
            guard let box = boxes[key] else { return nil }
            tick &+= 1
            box.lastUse = tick
            return box
        }

        mutating func remove(_ key: CacheKey) {
            if let box = boxes.removeValue(forKey: key) { totalCost -= box.cost }
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

    public func entry(for key: CacheKey) -> CacheEntry? {
        box(for: key)?.entry
    }

    /// The stored box for `key`, marked as just used.
    func box(for key: CacheKey) -> Box? {
        state.withLock { $0.touch(key) }
    }

    /// A memory hit: the stored box and how the cache answered with it.
    struct Hit {
        let box: Box
        let answer: CacheAnswer
    }

    /// The cache's hot path: the stored box for `key`, marked as just used, answered as `classify`
    /// says from the entry's origin and storage date, and counted in ``answers``, all under one
    /// lock. (`classify` takes two fields, not the entry: passing the entry would copy it.)
    func hit(for key: CacheKey, classify: (CacheOrigin, Date) -> CacheAnswer) -> Hit? {
        state.withLock { state -> Hit? in
            guard let box = state.touch(key) else { return nil }
            let answer = classify(box.entry.origin, box.entry.storedAt)
            state.answers.count(answer)
            return Hit(box: box, answer: answer)
        }
    }

    /// The entry for `key`, without marking it used.
    func peek(_ key: CacheKey) -> CacheEntry? {
        state.withLock { $0.boxes[key]?.entry }
    }

    /// The entries of `scope` held now, without marking them used: what bulk validation checks.
    public func entries(in scope: CacheScope) -> [CacheEntry] {
        state.withLock { state in state.boxes.values.compactMap { $0.entry.key.scope == scope ? $0.entry : nil } }
    }

    /// The answers ``hit(for:classify:)`` counted so far.
    var answers: AnswerCounts { state.withLock { $0.answers } }

    public func store(_ entry: CacheEntry) {
        insert(entry)
    }

    /// Stores `entry` and returns its box.
    @discardableResult
    func insert(_ entry: CacheEntry) -> Box {
        let cost = entry.content.approximateCost
        return state.withLock { state in
            state.remove(entry.key)
            state.tick &+= 1
            let box = Box(entry: entry, cost: cost, lastUse: state.tick)
            state.boxes[entry.key] = box
            state.totalCost += cost
            while state.boxes.count > countLimit || (state.totalCost > costLimit && state.boxes.count > 1) {
                guard let oldest = state.boxes.min(by: { $0.value.lastUse < $1.value.lastUse })?.key,
                    oldest != entry.key
                else { break }
                state.remove(oldest)
                state.evictions += 1
            }
            return box
        }
    }

    public func removeEntry(for key: CacheKey) {
        state.withLock { $0.remove(key) }
    }

    public func removeAll(in scope: CacheScope?) {
        state.withLock { state in
            for key in state.boxes.keys where scope == nil || key.scope == scope {
                state.remove(key)
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
            guard state.boxes.count > max(count, 0) else { return 0 }
            let victims = state.boxes.sorted { $0.value.lastUse > $1.value.lastUse }.dropFirst(max(count, 0)).map(\.key)
            for key in victims { state.remove(key) }
            return victims.count
        }
    }

    /// Entries held now.
    public var count: Int { state.withLock { $0.boxes.count } }
    /// Approximate bytes held now.
    public var totalCost: Int { state.withLock { $0.totalCost } }
    /// Entries evicted for the count or cost limit so far.
    public var evictions: Int { state.withLock { $0.evictions } }
    /// The keys from least to most recently used (for tests and debugging).
    public var keysByRecency: [CacheKey] {
        state.withLock { state in
            state.boxes.sorted { $0.value.lastUse < $1.value.lastUse }.map(\.key)
        }
    }
}
