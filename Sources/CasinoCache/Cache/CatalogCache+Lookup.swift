@_spi(Internals) import CasinoCatalog
import CatalogSupport
import Foundation

/// The tiers in lookup order (memory → disk → bundle) and how an answer is classified.
extension CatalogCache {
    /// An answer found in a tier: the entry (a disk or bundled entry is put in memory as it is
    /// found), the tier, and whether it is fresh, stale or bundled. A class, so that a lookup's
    /// optional `Found` is one word: a fresh memory hit has none and must not move an entry's
    /// worth of bytes around for it.
    final class Found: Sendable {
        let entry: CacheEntry
        let tier: CacheMetadata.Tier
        let answer: CacheAnswer

        init(entry: CacheEntry, tier: CacheMetadata.Tier, answer: CacheAnswer) {
            self.entry = entry
            self.tier = tier
            self.answer = answer
        }
    }

    /// Memory, then disk, then the bundle: the typed answer (`extract` picks the value), counted in
    /// the statistics. When `needsFound` and the answer is not a fresh memory hit, `found` is set to
    /// what was found (what a background refresh or a player's expired entry needs). A memory
    /// hit's answer is built under the tier's lock from the entry in place.
    ///
    /// A disk entry older than the bundled snapshot shipped with this app version gives way to the
    /// bundle: a new release must not show months-old data.
    @inline(__always)
    func lookup<Value: Sendable>(
        _ key: CacheKey, now: Date, needsFound: Bool, found: inout Found?, _ extract: (CatalogContent) -> Value
    ) -> CacheResult<Value>? {
        let timeToLive = timeToLive(for: key)
        let snapshotGeneratedAt = bundled?.generatedAt
        let hit = memory.hit(
            for: key, classify: { Self.answer(origin: $0, storedAt: $1, now: now, timeToLive: timeToLive) },
            read: { entry, answer -> CacheResult<Value>? in
                if needsFound, answer != .fresh { found = Found(entry: copy entry, tier: .memory, answer: answer) }
                return Self.result(
                    entry, tier: .memory, answer: answer, now: now, snapshotGeneratedAt: snapshotGeneratedAt, extract)
            })
        if let hit { return hit }
        guard let below = lookupBelowMemory(key, now: now, timeToLive: timeToLive) else { return nil }
        found = below
        return result(below, now: now, extract)
    }

    /// A memory hit on the page at `offset` of `categoryId` in `edition`, found from those parts
    /// (no ``CacheKey`` is built): the app's most frequent read. With `freshOnly`, only a fresh
    /// hit answers; anything else is left uncounted to the full lookup, which starts its refresh.
    @inline(__always)
    func memoryHit<Value: Sendable>(
        gamesPage edition: Edition, categoryId: String, offset: Int, now: Date, freshOnly: Bool,
        _ extract: (CatalogContent) -> Value
    ) -> CacheResult<Value>? {
        let timeToLive = gamesPageTimeToLive
        let snapshotGeneratedAt = bundled?.generatedAt
        return memory.hit(
            gamesPage: edition, categoryId: categoryId, offset: offset, scope: .global,
            classify: { Self.answer(origin: $0, storedAt: $1, now: now, timeToLive: timeToLive) },
            read: { entry, answer -> CacheResult<Value>? in
                if freshOnly, answer != .fresh { return nil }
                return Self.result(
                    entry, tier: .memory, answer: answer, now: now, snapshotGeneratedAt: snapshotGeneratedAt, extract)
            })
    }

    /// Disk, then the bundle: the entry found is counted and put in memory.
    private func lookupBelowMemory(_ key: CacheKey, now: Date, timeToLive: TimeInterval) -> Found? {
        guard let (entry, tier) = storedEntryBelowMemory(key) else { return nil }
        let answer = Self.answer(for: entry, now: now, timeToLive: timeToLive)
        state.withLock { $0.answers.count(answer) }
        prefetchImages(of: entry)
        memory.store(entry)
        return Found(entry: entry, tier: tier, answer: answer)
    }

    /// What the tiers hold for `key`, for the cache's own decisions (not counted as an answer).
    func storedEntry(_ key: CacheKey) -> CacheEntry? {
        if let entry = memory.entry(for: key) { return entry }
        guard let (entry, _) = storedEntryBelowMemory(key) else { return nil }
        memory.store(entry)
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
        Self.result(
            found.entry, tier: found.tier, answer: found.answer, now: now, snapshotGeneratedAt: bundled?.generatedAt,
            extract)
    }

    @inline(__always)
    private static func result<Value: Sendable>(
        _ entry: borrowing CacheEntry, tier: CacheMetadata.Tier, answer: CacheAnswer, now: Date,
        snapshotGeneratedAt: Date?, _ extract: (CatalogContent) -> Value
    ) -> CacheResult<Value> {
        let metadata = CacheMetadata(
            tier: tier, origin: entry.origin, storedAt: entry.storedAt,
            age: max(now.timeIntervalSince(entry.storedAt), 0), snapshotGeneratedAt: snapshotGeneratedAt)
        let value = extract(entry.content)
        switch answer {
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
