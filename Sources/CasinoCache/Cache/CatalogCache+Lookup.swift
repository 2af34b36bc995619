@_spi(Internals) import CasinoCatalog
import Foundation

/// The tiers in lookup order (memory → disk → bundle) and how an answer is classified.
extension CatalogCache {
    /// An answer found in a tier: the memory tier's box (a disk or bundled entry is put in memory
    /// as it is found), the tier, and whether it is fresh, stale or bundled. Holding the box, not a
    /// copy of its entry, keeps a hit to one retain.
    struct Found {
        var box: MemoryTier.Box
        var tier: CacheMetadata.Tier
        var answer: CacheAnswer
    }

    /// Memory, then disk, then the bundle; the answer is counted in the statistics. A disk entry
    /// older than the bundled snapshot shipped with this app version gives way to the bundle: a new
    /// release must not show months-old data.
    func lookup(_ key: CacheKey, now: Date) -> Found? {
        let timeToLive = timeToLive(for: key)
        if let hit = memory.hit(for: key, classify: { Self.answer(origin: $0, storedAt: $1, now: now, timeToLive: timeToLive) }) {
            return Found(box: hit.box, tier: .memory, answer: hit.answer)
        }
        guard let (entry, tier) = storedEntryBelowMemory(key) else { return nil }
        let answer = Self.answer(for: entry, now: now, timeToLive: timeToLive)
        state.withLock { $0.answers.count(answer) }
        prefetchImages(of: entry)
        return Found(box: memory.insert(entry), tier: tier, answer: answer)
    }

    /// What the tiers hold for `key`, for the cache's own decisions (not counted as an answer).
    func storedEntry(_ key: CacheKey) -> CacheEntry? {
        if let box = memory.box(for: key) { return box.entry }
        guard let (entry, _) = storedEntryBelowMemory(key) else { return nil }
        memory.insert(entry)
        return entry
    }

    /// The disk entry, or the bundled one when there is no disk entry or it is older than the bundle.
    func storedEntryBelowMemory(_ key: CacheKey) -> (CacheEntry, CacheMetadata.Tier)? {
        entryBelowMemory(key, onDisk: disk?.entry(for: key))
    }

    /// `onDisk`, or the bundled entry for `key` when there is none or it is older than the bundle.
    func entryBelowMemory(_ key: CacheKey, onDisk entry: CacheEntry?) -> (CacheEntry, CacheMetadata.Tier)? {
        if let entry {
            if let generatedAt = bundled?.generatedAt, entry.storedAt < generatedAt, let newer = bundled?.entry(for: key) {
                return (newer, .bundled)
            }
            return (entry, .disk)
        }
        if let entry = bundled?.entry(for: key) { return (entry, .bundled) }
        return nil
    }

    /// The typed answer for what was found.
    func result<Value: Sendable>(
        _ found: Found, now: Date, _ extract: (CatalogContent) -> Value
    ) -> CacheResult<Value> {
        let box = found.box
        let metadata = CacheMetadata(
            tier: found.tier, origin: box.entry.origin, storedAt: box.entry.storedAt,
            age: max(now.timeIntervalSince(box.entry.storedAt), 0), snapshotGeneratedAt: bundled?.generatedAt)
        let value = extract(box.entry.content)
        switch found.answer {
        case .fresh: return .fresh(value, metadata)
        case .stale: return .stale(value, metadata)
        case .bundled: return .bundled(value, metadata)
        }
    }

    /// Bundled content is answered as bundled; network content as fresh within its time to live,
    /// stale after, and stale when it was stored in the future: the clock moved backwards since,
    /// so its true age is unknown. One second of slack absorbs disk entries' whole-second times.
    private static func answer(origin: CacheOrigin, storedAt: Date, now: Date, timeToLive: TimeInterval) -> CacheAnswer {
        if origin == .bundled { return .bundled }
        let age = now.timeIntervalSince(storedAt)
        return age >= -1 && age < timeToLive ? .fresh : .stale
    }

    private static func answer(for entry: CacheEntry, now: Date, timeToLive: TimeInterval) -> CacheAnswer {
        answer(origin: entry.origin, storedAt: entry.storedAt, now: now, timeToLive: timeToLive)
    }

    /// Whether `entry` is network content within its time to live (not counted: for the cache's
    /// own decisions, not for answers).
    func isFresh(_ entry: CacheEntry, now: Date) -> Bool {
        Self.answer(for: entry, now: now, timeToLive: timeToLive(for: entry.key)) == .fresh
    }

    func timeToLive(for key: CacheKey) -> TimeInterval {
        if case .user = key.scope { return playerTimeToLive }
        return switch key.content {
        case .categories: categoriesTimeToLive
        case .gamesPage: gamesPageTimeToLive
        }
    }

    func metadata(_ entry: CacheEntry, tier: CacheMetadata.Tier, now: Date) -> CacheMetadata {
        CacheMetadata(
            tier: tier, origin: entry.origin, storedAt: entry.storedAt, age: max(now.timeIntervalSince(entry.storedAt), 0),
            snapshotGeneratedAt: bundled?.generatedAt)
    }
}
