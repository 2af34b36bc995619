/// The in-memory tier: a least-recently-used map bounded by entry count and by approximate cost.
///
/// Guarded by an OS lock (`os_unfair_lock` or `pthread_mutex_t`), not an actor and not `NSCache`: a hit costs about one
/// dictionary lookup plus a list splice (BASELINES.md: `NSCache` is 10× slower on Linux).
public final class MemoryTier: CacheStorage {
    /// The most entries kept: 500 by default.
    public let countLimit: Int
    /// The most approximate bytes kept (``CatalogContent/approximateCost``): 8 MiB by default.
    public let costLimit: Int

    private struct Node {
        var entry: CacheEntry
        var cost: Int
        var older: CacheKey?
        var newer: CacheKey?
    }

    private struct State {
        var nodes: [CacheKey: Node] = [:]
        var newest: CacheKey?
        var oldest: CacheKey?
        var totalCost = 0
        var evictions = 0

        mutating func unlink(_ key: CacheKey) {
            guard let node = nodes[key] else { return }
            if let older = node.older { nodes[older]?.newer = node.newer } else { oldest = node.newer }
            if let newer = node.newer { nodes[newer]?.older = node.older } else { newest = node.older }
        }

        mutating func linkAsNewest(_ key: CacheKey) {
            nodes[key]?.older = newest
            nodes[key]?.newer = nil
            if let newest { nodes[newest]?.newer = key }
            newest = key
            if oldest == nil { oldest = key }
        }

        mutating func remove(_ key: CacheKey) {
            guard let node = nodes[key] else { return }
            unlink(key)
            nodes[key] = nil
            totalCost -= node.cost
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
        state.withLock { state in
            guard let node = state.nodes[key] else { return nil }
            if state.newest != key {
                state.unlink(key)
                state.linkAsNewest(key)
            }
            return node.entry
        }
    }

    public func store(_ entry: CacheEntry) {
        let cost = entry.content.approximateCost
        state.withLock { state in
            state.remove(entry.key)
            state.nodes[entry.key] = Node(entry: entry, cost: cost)
            state.totalCost += cost
            state.linkAsNewest(entry.key)
            while state.nodes.count > countLimit || (state.totalCost > costLimit && state.nodes.count > 1) {
                guard let oldest = state.oldest, oldest != entry.key else { break }
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
            for key in state.nodes.keys where scope == nil || key.scope == scope {
                state.remove(key)
            }
        }
    }

    /// Drops every entry, as on a memory warning. Disk and bundled tiers still hold them.
    public func trim() {
        removeAll(in: nil)
    }

    /// Entries held now.
    public var count: Int { state.withLock { $0.nodes.count } }
    /// Approximate bytes held now.
    public var totalCost: Int { state.withLock { $0.totalCost } }
    /// Entries evicted for the count or cost limit so far.
    public var evictions: Int { state.withLock { $0.evictions } }
    /// The keys from least to most recently used (for tests and debugging).
    public var keysByRecency: [CacheKey] {
        state.withLock { state in
            var keys: [CacheKey] = []
            var cursor = state.oldest
            while let key = cursor {
                keys.append(key)
                cursor = state.nodes[key]?.newer
            }
            return keys
        }
    }
}
