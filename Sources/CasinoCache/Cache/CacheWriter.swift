@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation

/// The write path: content from the upstream (or a player's change) becomes what the tiers hold
/// here, and what changed is announced through ``CacheAnswers``.
///
/// Owns the clear generations (a fetch that started before ``CatalogCache/clear()`` or
/// ``CatalogCache/clear(scope:)`` stores nothing) and the refreshed content held back from the
/// screen (``HeldUpdates``).
final class CacheWriter: Sendable {
    /// The clear counters a write for a scope notes when its work starts and checks before storing.
    struct Generation: Equatable, Sendable {
        var all: Int
        var scope: Int
    }

    private struct State {
        /// Bumped by ``clear(_:)``: for every scope under the `nil` key.
        var generations: [CacheScope?: Int] = [:]
        /// Refreshed content held back from the screen, per key.
        var held: [CacheKey: CacheEntry] = [:]

        func generation(of scope: CacheScope) -> Generation {
            Generation(all: generations[nil] ?? 0, scope: generations[scope] ?? 0)
        }
    }

    private let state = Locked(State())
    private let tiers: CacheTiers
    private let clock: any CacheClock

    init(tiers: CacheTiers, clock: any CacheClock) {
        self.tiers = tiers
        self.clock = clock
    }

    /// The generation a write for `scope` notes when its work starts.
    func generation(of scope: CacheScope) -> Generation {
        state.withLock { $0.generation(of: scope) }
    }

    /// Starts a new generation for `scope` (every scope when `nil`): writes begun before store
    /// nothing, and content held for it is dropped.
    func clear(_ scope: CacheScope?) {
        state.withLock { state in
            state.generations[scope, default: 0] += 1
            for key in state.held.keys where scope == nil || key.scope == scope { state.held[key] = nil }
        }
    }

    /// Stores `entry` in the tiers (`inMemory: false` leaves memory as it is), unless `generation`
    /// is past, and prefetches its images.
    func store(_ entry: CacheEntry, ifStill generation: Generation, inMemory: Bool = true) {
        guard self.generation(of: entry.key.scope) == generation else { return }
        if inMemory { tiers.memory.store(entry) }
        tiers.disk?.store(entry)
        tiers.images.prefetch(entry, bundledImages: tiers.bundled?.images, filter: tiers.answers.filter)
    }

    /// Freshens `entry` whose content the upstream confirmed (RFC 9111 §4.3.4: a 304 freshens the
    /// stored response; the payload stays as it is): stored now, as network content.
    func renew(_ entry: CacheEntry, etag: String?, ifStill generation: Generation, inMemory: Bool = true) -> CacheEntry
    {
        var renewed = entry
        renewed.storedAt = clock.now
        renewed.origin = .network
        renewed.etag = etag
        store(renewed, ifStill: generation, inMemory: inMemory)
        return renewed
    }

    /// ``renew(_:etag:ifStill:inMemory:)`` for entries only the disk holds, known by their headers
    /// (one global generation): their files' content is kept as it is.
    func renewOnDisk(_ renewals: [(stored: DiskTier.Stored, etag: String?)], ifStill generation: Generation) {
        guard !renewals.isEmpty, self.generation(of: .global) == generation else { return }
        tiers.disk?.renew(renewals, at: clock.now)
    }

    /// Stores new content from the upstream and announces it, unless it is what `current` already
    /// holds (a first fetch announces every id as inserted); held instead when ``HeldUpdates`` says so.
    func install(
        _ content: CatalogContent, etag: String?, for key: CacheKey, replacing current: CacheEntry?,
        ifStill generation: Generation, inMemory: Bool = true
    ) -> CacheEntry {
        let entry = CacheEntry(key: key, content: content, storedAt: clock.now, etag: etag, origin: .network)
        // Cleared since the fetch began: nothing is stored, held or announced.
        guard self.generation(of: key.scope) == generation else { return entry }
        let isCached = tiers.isCached(key)
        if let current, tiers.configuration.heldUpdates.holds(key), current.origin == .network,
            current.content != content,
            isCached
        {
            return hold(entry, showing: current, ifStill: generation, inMemory: inMemory)
        }
        if isCached { store(entry, ifStill: generation, inMemory: inMemory) }
        if let current, current.content == content { return entry }
        if current != nil || isCached { tiers.answers.publishChange(of: key, from: current?.content, to: content) }
        return entry
    }

    /// Stores `entry` (unless `generation` is past) and announces it when its content differs from
    /// `previous`'s.
    func show(_ entry: CacheEntry, replacing previous: CacheEntry?, ifStill generation: Generation) {
        guard self.generation(of: entry.key.scope) == generation else { return }
        store(entry, ifStill: generation)
        guard previous?.content != entry.content else { return }
        tiers.answers.publishChange(of: entry.key, from: previous?.content, to: entry.content)
    }

    // MARK: - Held updates

    /// Holds `entry` instead of showing it: what is shown stays (renewed, so it is not refetched
    /// again and again), and `.pendingUpdate` announces what changed, once per new content.
    /// Returns what is shown.
    func hold(
        _ entry: CacheEntry, showing shown: CacheEntry, ifStill generation: Generation, inMemory: Bool
    ) -> CacheEntry {
        // Checked under the lock `clear(_:)` drops held content under: a clear either comes first
        // (nothing is held) or drops what this holds.
        let isNew = state.withLock { state -> Bool? in
            guard state.generation(of: entry.key.scope) == generation else { return nil }
            defer { state.held[entry.key] = entry }
            return state.held[entry.key]?.content != entry.content
        }
        guard let isNew else { return shown }
        var renewed = shown
        renewed.storedAt = entry.storedAt
        renewed.etag = nil  // the validator belongs to the held content, not to what is shown
        store(renewed, ifStill: generation, inMemory: inMemory)
        if isNew {
            tiers.answers.publish(
                CacheUpdate(
                    key: entry.key, event: .pendingUpdate(tiers.answers.changes(from: shown.content, to: entry.content))
                ))
        }
        return renewed
    }

    /// Shows the content held for `key`; `false` when nothing was held.
    func applyHeld(for key: CacheKey) -> Bool {
        guard let entry = state.withLock({ $0.held.removeValue(forKey: key) }) else { return false }
        let generation = generation(of: key.scope)
        let shown = tiers.shownEntry(key)
        var applied = entry
        applied.storedAt = max(entry.storedAt, shown?.storedAt ?? entry.storedAt)
        show(applied, replacing: shown, ifStill: generation)
        return true
    }

    /// The content held for `key`, if any.
    func held(for key: CacheKey) -> CacheEntry? {
        state.withLock { $0.held[key] }
    }

    /// Drops what is held for `key`, or for every key of `scope`: a change made since, or a refused
    /// session, makes it outdated.
    func discardHeld(_ key: CacheKey) {
        _ = state.withLock { $0.held.removeValue(forKey: key) }
    }

    func discardHeld(in scope: CacheScope) {
        state.withLock { state in
            for key in state.held.keys where key.scope == scope { state.held[key] = nil }
        }
    }

    /// Forgets `scope`'s rows in memory and on disk and starts a new generation for it, without
    /// dropping what other scopes hold (a refused session).
    func drop(_ scope: CacheScope) {
        state.withLock { $0.generations[scope, default: 0] += 1 }
        discardHeld(in: scope)
        tiers.memory.removeAll(in: scope)
        tiers.disk?.removeAll(in: scope)
    }
}
