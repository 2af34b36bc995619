@_spi(CatalogTools) import CasinoCatalog
import Foundation

/// The tiers in lookup order (memory → disk → bundle) and how what they hold is classified: fresh
/// within its time to live, stale after, bundled when it came from the snapshot. Holds no state of
/// its own: each tier owns its entries.
///
/// A disk entry older than the bundled snapshot shipped with this app version gives way to the
/// bundle: a new release must not show months-old data.
///
/// A class: every read goes through it, and a struct of this many references would be copied
/// (each reference retained and released) on every hit.
final class CacheTiers: Sendable {
    let memory: MemoryTier
    let disk: DiskTier?
    let bundled: BundledTier?
    let answers: CacheAnswers
    let images: ImagePrefetcher
    let statistics: StatisticsCounter
    let configuration: CatalogCache.Configuration
    let pageSize: Int
    /// The configuration's times to live in seconds: read on every hit.
    let categoriesTimeToLive: TimeInterval
    let gamesPageTimeToLive: TimeInterval
    let playerTimeToLive: TimeInterval
    /// ``CatalogCache/Configuration/maxContentAge`` per kind; infinite without one.
    let categoriesMaxAge: TimeInterval
    let gamesPageMaxAge: TimeInterval

    init(
        memory: MemoryTier, disk: DiskTier?, bundled: BundledTier?, answers: CacheAnswers, images: ImagePrefetcher,
        statistics: StatisticsCounter, configuration: CatalogCache.Configuration, pageSize: Int
    ) {
        self.memory = memory
        self.disk = disk
        self.bundled = bundled
        self.answers = answers
        self.images = images
        self.statistics = statistics
        self.configuration = configuration
        self.pageSize = pageSize
        categoriesTimeToLive = configuration.categoriesTTL.timeInterval
        gamesPageTimeToLive = configuration.gamesPageTTL.timeInterval
        playerTimeToLive = configuration.playerTTL.timeInterval
        // Fresh content is never too old: a limit below the time to live acts as the time to live.
        categoriesMaxAge = max(configuration.maxContentAge.categories?.timeInterval ?? .infinity, categoriesTimeToLive)
        gamesPageMaxAge = max(configuration.maxContentAge.gamesPage?.timeInterval ?? .infinity, gamesPageTimeToLive)
    }

    /// What a read found: the entry and what it shows, the tier that held it, and how it is answered.
    struct Found {
        let held: HeldEntry
        let tier: CacheMetadata.Tier
        let state: CacheState
        /// Older than ``CatalogCache/Configuration/maxContentAge``: not shown; the async reads fetch.
        let isTooOld: Bool

        var entry: CacheEntry { held.entry }
    }

    /// Whether the cache keeps `key` at all (pages past the per-category limit are not kept).
    func isCached(_ key: CacheKey) -> Bool {
        configuration.isCached(key, pageSize: pageSize)
    }

    // MARK: - Answers

    /// Memory, then disk and the bundle: what holds `key`, counted as an answer. An entry found
    /// below memory is put in memory and its images prefetched.
    func find(_ key: CacheKey, now: Date) -> Found? {
        let timeToLive = timeToLive(for: key)
        if let (held, state) = memory.hit(for: key, now: now, timeToLive: timeToLive) {
            let isTooOld = isTooOld(key, storedAt: held.entry.storedAt, state: state, now: now)
            if isTooOld { statistics.record { $0.tooOld += 1 } }
            return Found(held: held, tier: .memory, state: state, isTooOld: isTooOld)
        }
        guard let (entry, tier) = entryBelowMemory(key) else { return nil }
        let state = Self.state(origin: entry.origin, storedAt: entry.storedAt, now: now, timeToLive: timeToLive)
        let isTooOld = isTooOld(key, storedAt: entry.storedAt, state: state, now: now)
        statistics.record {
            AnswerCounts(counting: state).add(to: &$0)
            if isTooOld { $0.tooOld += 1 }
        }
        if !isTooOld { images.prefetch(entry, bundledImages: bundled?.images, filter: answers.filter) }
        memory.store(entry)
        return Found(held: HeldEntry(entry, shown: answers.shown(entry)), tier: tier, state: state, isTooOld: isTooOld)
    }

    /// Whether `key`'s entry, stored at `storedAt` and answered as `state`, is past
    /// ``CatalogCache/Configuration/maxContentAge`` (fresh content never is). Takes the fields, not
    /// the entry: passing the entry copied it.
    private func isTooOld(_ key: CacheKey, storedAt: Date, state: CacheState, now: Date) -> Bool {
        state != .fresh && now.timeIntervalSince(storedAt) > maxAge(for: key)
    }

    /// The typed answer for what was found.
    func result<Value: Sendable>(_ found: Found, now: Date, _ extract: (CatalogContent) -> Value) -> CacheResult<Value>
    {
        answers.result(
            found.held.entry, tier: found.tier, state: found.state, now: now, shown: found.held.shown, extract: extract)
    }

    // MARK: - Entries, for the cache's own decisions (not counted as answers)

    /// What the tiers hold for `key`; an entry found below memory is put in memory.
    func entry(_ key: CacheKey) -> CacheEntry? {
        if let entry = memory.entry(for: key) { return entry }
        guard let (entry, _) = entryBelowMemory(key) else { return nil }
        memory.store(entry)
        return entry
    }

    /// What the tiers hold for `key`, as a read would find it, without marking it used or filling
    /// memory: what is shown.
    func shownEntry(_ key: CacheKey) -> CacheEntry? {
        memory.peek(key) ?? entryBelowMemory(key)?.0
    }

    /// The disk entry, or the bundled one when there is no disk entry or it is older than the bundle.
    func entryBelowMemory(_ key: CacheKey) -> (CacheEntry, CacheMetadata.Tier)? {
        entryBelowMemory(key, onDisk: disk?.entry(for: key))
    }

    /// `onDisk`, or the bundled entry for `key` when there is none or it is older than the bundle.
    func entryBelowMemory(_ key: CacheKey, onDisk entry: CacheEntry?) -> (CacheEntry, CacheMetadata.Tier)? {
        if let entry {
            if let newer = bundledEntry(key, newerThan: entry.storedAt) { return (newer, .bundled) }
            return (entry, .disk)
        }
        if let entry = bundled?.entry(for: key) { return (entry, .bundled) }
        return nil
    }

    /// The bundled entry for `key` when the bundle was generated after `storedAt`: it answers
    /// instead of a disk entry stored then.
    func bundledEntry(_ key: CacheKey, newerThan storedAt: Date) -> CacheEntry? {
        guard let generatedAt = bundled?.generatedAt, storedAt < generatedAt else { return nil }
        return bundled?.entry(for: key)
    }

    // MARK: - Classification

    /// Bundled content is answered as bundled; network content as fresh within its time to live,
    /// stale after, and stale when it was stored in the future: the clock moved backwards since,
    /// so its true age is unknown. One second of slack absorbs disk entries' whole-second times.
    @inline(__always)
    static func state(origin: CacheOrigin, storedAt: Date, now: Date, timeToLive: TimeInterval) -> CacheState {
        if origin == .bundled { return .bundled }
        let age = now.timeIntervalSince(storedAt)
        return age >= -1 && age < timeToLive ? .fresh : .stale
    }

    /// Whether `entry` is network content within its time to live.
    func isFresh(_ entry: CacheEntry, now: Date) -> Bool {
        Self.state(origin: entry.origin, storedAt: entry.storedAt, now: now, timeToLive: timeToLive(for: entry.key))
            == .fresh
    }

    /// Whether the disk entry `stored` is network content within its time to live.
    func isFresh(_ stored: DiskTier.Stored, now: Date) -> Bool {
        Self.state(origin: stored.origin, storedAt: stored.storedAt, now: now, timeToLive: timeToLive(for: stored.key))
            == .fresh
    }

    /// ``CatalogCache/Configuration/maxContentAge`` for `key` (infinite: none; player content has none).
    func maxAge(for key: CacheKey) -> TimeInterval {
        if case .user = key.scope { return .infinity }
        return switch key.content {
        case .categories: categoriesMaxAge
        case .gamesPage: gamesPageMaxAge
        }
    }

    func timeToLive(for key: CacheKey) -> TimeInterval {
        if case .user = key.scope { return playerTimeToLive }
        return switch key.content {
        case .categories: categoriesTimeToLive
        case .gamesPage: gamesPageTimeToLive
        }
    }

    /// `entry` with its age at its time to live: stale from now on, its content and validator kept.
    func expired(_ entry: CacheEntry, now: Date) -> CacheEntry {
        var expired = entry
        expired.storedAt = min(entry.storedAt, now.addingTimeInterval(-timeToLive(for: entry.key)))
        return expired
    }
}
