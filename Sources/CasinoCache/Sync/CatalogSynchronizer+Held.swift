@_spi(CatalogTools) import CasinoCatalog

/// What bulk validation holds and sends: the entries memory holds, with their content hashes, then
/// the disk's, known by their headers, read a batch at a time.
extension CatalogSynchronizer {
    /// The catalogue entries in memory to validate, with their content hashes: every global key
    /// there that the cache keeps (without counting an answer).
    func heldInMemory() -> [CacheKey: Held] {
        var held: [CacheKey: Held] = [:]
        for entry in tiers.memory.entries(in: .global) { hold(entry, inMemory: true, in: &held) }
        return held
    }

    /// What validation holds for the disk entry `stored` (known by its header, its content not
    /// decoded), as a lookup would find it: `nil` when the cache does not keep its key, the bundle's
    /// entry when that is newer (``CacheTiers/bundledEntry(_:newerThan:)``, as `entryBelowMemory`).
    func heldOnDisk(_ stored: DiskTier.Stored) -> Held? {
        guard tiers.isCached(stored.key) else { return nil }
        guard let newer = tiers.bundledEntry(stored.key, newerThan: stored.storedAt) else {
            return Held(stored: stored, entry: nil, inMemory: false)
        }
        return held(newer, inMemory: false)
    }

    /// The next batch of at most `size` entries from `source`: those memory held first, then the
    /// disk's, whose headers are read here, a batch at a time, so that a synchronize of thousands of
    /// entries never holds all their headers at once. Empty when `source` is spent.
    func nextBatch(of size: Int, from source: inout HeldSource) async -> [Held] {
        var batch = source.take(size)
        while batch.count < size, let disk = tiers.disk, !source.diskNames.isEmpty {
            let names = source.diskNames.prefix(size - batch.count)
            source.diskNames.removeFirst(names.count)
            guard let read = await disk.storedGlobalEntries(named: Array(names), within: configuration.diskWaitLimit)
            else {
                source.diskDidNotAnswer()
                break
            }
            for stored in read where !source.hasSeen(stored.key) {
                if let held = heldOnDisk(stored) { batch.append(held) }
            }
        }
        return batch
    }

    /// What the tiers hold for `key`, as a lookup would find it, without counting an answer or
    /// marking it used.
    func heldEntry(_ key: CacheKey) -> CacheEntry? {
        tiers.shownEntry(key)
    }

    func hold(_ entry: CacheEntry, inMemory: Bool, in held: inout [CacheKey: Held]) {
        if let found = self.held(entry, inMemory: inMemory) { held[entry.key] = found }
    }

    /// What validation holds for `entry`, with its content hash; `nil` when the cache does not keep its key.
    func held(_ entry: CacheEntry, inMemory: Bool) -> Held? {
        guard tiers.isCached(entry.key), let hash = try? entry.contentHash() else { return nil }
        return Held(stored: DiskTier.Stored(entry, contentHash: hash), entry: entry, inMemory: inMemory)
    }

    /// An entry held: what validation sends and decides on (`stored`), the entry itself unless
    /// only the disk's header was read, and whether memory holds it (else only the disk does).
    struct Held {
        var stored: DiskTier.Stored
        var entry: CacheEntry?
        var inMemory: Bool
    }

    /// What a validation has still to send: entries in hand (memory's, and queued stores), then the
    /// disk's files not read yet. A key is sent once: a disk file of a key in hand is passed over.
    struct HeldSource {
        private var entries: [Held]
        private var seen: Set<CacheKey>
        /// The disk's global entry files whose headers are not read yet (``DiskTier/globalListing(within:)``).
        var diskNames: ArraySlice<String> = []
        /// A read of the disk was abandoned: it did not end within the limit, or the caller left first.
        private(set) var isDiskAbandoned = false

        /// The disk did not answer a read within the limit, or the caller left first: its entries
        /// not read are not sent; they are left to the usual refresh, as any read finds them.
        mutating func diskDidNotAnswer() {
            diskNames = []
            isDiskAbandoned = true
        }

        init(_ held: [CacheKey: Held]) {
            entries = Array(held.values)
            seen = Set(held.keys)
        }

        /// Adds `held` to the entries in hand, unless its key is there already.
        mutating func add(_ held: Held?) {
            guard let held, seen.insert(held.stored.key).inserted else { return }
            entries.append(held)
        }

        /// Takes up to `count` of the entries in hand.
        mutating func take(_ count: Int) -> [Held] {
            let taken = Array(entries.suffix(count))
            entries.removeLast(taken.count)
            return taken
        }

        func hasSeen(_ key: CacheKey) -> Bool { seen.contains(key) }
    }
}
