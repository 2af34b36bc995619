@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Dispatch
public import Foundation
public import Logging

/// The disk tier: one file per key in a directory the app chooses (``DiskTierFormat``: a header,
/// then the content's gzip'd JSON), surviving relaunches, bounded by a total size with
/// least-recently-used eviction.
///
/// Reads are synchronous (a file read, a gunzip and a JSON decode). Writes return at once and run
/// in call order on a private serial queue, each as a temporary file renamed into place, so a reader
/// sees the old file or the new one, never half of one; until a write lands, reads answer from the
/// pending change, and a later store, removal or clear of the key supersedes it. A file that is
/// corrupt, truncated, too large, from another schema or ``Configuration/cacheVersion``, or stored
/// for another key is a miss: counted in ``corruptEntries``, logged and deleted, never served. Files
/// the tier did not name are never touched. An unwritable or full directory makes writes fail
/// (counted in ``writeFailures``); reads keep working.
///
/// ```swift
/// let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
/// let disk = DiskTier(
///     configuration: .init(directory: caches.appendingPathComponent("CasinoCache"), cacheVersion: 3),
///     logger: logger)
/// disk.store(entry)                 // returns at once
/// let again = disk.entry(for: entry.key)
/// ```
///
/// One tier per directory: two live tiers on one directory work but keep separate size accounting.
@_spi(CatalogTools) public final class DiskTier: Sendable {
    /// Where the disk tier keeps its files and how much it may keep.
    public struct Configuration: Sendable, Hashable {
        /// The directory entries live in, e.g. `Caches/CasinoCache`; created on the first write.
        /// Files in it that the tier did not name are left alone.
        public var directory: URL
        /// The app's cache "buster": entries written with another value are misses and are
        /// deleted when read. `1` by default.
        public var cacheVersion: Int = 1
        /// The most bytes the entry files may take in all; least recently used entries are
        /// evicted beyond it. 50 MiB by default.
        public var sizeLimit: Int = 50 << 20
        /// The most bytes of one entry, as decompressed JSON and as a file; larger entries are
        /// not written, and larger files are deleted unread. 16 MiB by default; values outside
        /// `0...SnapshotLimits.ceiling` (1 GiB) count as that range's nearest end.
        public var maxEntryBytes: Int = 16 << 20
        /// The Data Protection class the directory gets at the first write (its files inherit it):
        /// ``CacheFileProtection/completeUntilFirstUserAuthentication`` by default. Apple platforms only.
        public var fileProtection: CacheFileProtection = .default

        public init(
            directory: URL, cacheVersion: Int = 1, sizeLimit: Int = 50 << 20, maxEntryBytes: Int = 16 << 20,
            fileProtection: CacheFileProtection = .default
        ) {
            self.directory = directory
            self.cacheVersion = cacheVersion
            self.sizeLimit = sizeLimit
            self.maxEntryBytes = maxEntryBytes
            self.fileProtection = fileProtection
        }
    }

    /// A global entry on disk as bulk validation needs it: its header, without its content.
    public struct Stored: Sendable, Hashable {
        public var key: CacheKey
        public var storedAt: Date
        public var etag: String?
        public var origin: CacheOrigin
        /// ``CatalogContent/contentHash()`` of the entry's content.
        public var contentHash: String
        /// The tier's change count when this was read: ``DiskTier/renew(_:at:)`` leaves a key alone
        /// that was stored, removed or cleared since. Not part of equality.
        var readAt: UInt64 = 0

        public init(key: CacheKey, storedAt: Date, etag: String?, origin: CacheOrigin, contentHash: String) {
            self.key = key
            self.storedAt = storedAt
            self.etag = etag
            self.origin = origin
            self.contentHash = contentHash
        }

        /// What a scan would answer for `entry`, whose content hash is `contentHash`.
        public init(_ entry: CacheEntry, contentHash: String) {
            self.init(
                key: entry.key, storedAt: entry.storedAt, etag: entry.etag, origin: entry.origin,
                contentHash: contentHash)
        }

        public static func == (lhs: Stored, rhs: Stored) -> Bool {
            lhs.key == rhs.key && lhs.storedAt == rhs.storedAt && lhs.etag == rhs.etag && lhs.origin == rhs.origin
                && lhs.contentHash == rhs.contentHash
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(key)
            hasher.combine(contentHash)
        }
    }

    /// The global entry files on disk, for ``storedGlobalEntries(named:within:)`` to read a batch at
    /// a time, and the stores of global entries still queued (a read answers them; their files may
    /// not exist yet).
    public struct GlobalListing: Sendable {
        public var names: [String]
        public var queued: [Stored]
    }

    /// A change of one key not on disk yet.
    private enum Change {
        case store(CacheEntry)
        case removal
        case renewal(Renewal)

        var storedEntry: CacheEntry? {
            if case .store(let entry) = self { entry } else { nil }
        }
    }

    /// A new age and ETag for the file of one content (network content, the upstream confirmed it).
    private struct Renewal {
        var contentHash: String
        var storedAt: Date
        var etag: String?

        func applied(to entry: CacheEntry) -> CacheEntry {
            guard entry.knownContentHash == contentHash else { return entry }
            var renewed = entry
            renewed.storedAt = storedAt
            renewed.etag = etag
            renewed.origin = .network
            return renewed
        }

        func applied(to stored: Stored) -> Stored {
            guard stored.contentHash == contentHash else { return stored }
            var renewed = stored
            renewed.storedAt = storedAt
            renewed.etag = etag
            renewed.origin = .network
            return renewed
        }
    }

    private struct State {
        /// Counts every change: each store, removal, renewal and clear gets the next number.
        var sequence: UInt64 = 0
        /// The change of each key not on disk yet, and its number: what reads answer meanwhile.
        var pending: [CacheKey: (sequence: UInt64, change: Change)] = [:]
        /// Clears not on disk yet: number → scope (`nil`: every scope).
        var pendingClears: [UInt64: CacheScope?] = [:]
        /// The number of the last store or removal of each key, and of the last clear of each scope
        /// (`nil`: every scope): a renewal or a deletion decided on an older read leaves the key alone.
        var lastChange: [CacheKey: UInt64] = [:]
        var lastClear: [CacheScope?: UInt64] = [:]
        var index = Index()
        var corruptEntries = 0
        var evictions = 0
        var writeFailures = 0

        /// Queues `change` of `key` and returns its number.
        mutating func queue(_ change: Change, of key: CacheKey) -> UInt64 {
            sequence += 1
            pending[key] = (sequence, change)
            if case .renewal = change {} else { lastChange[key] = sequence }
            return sequence
        }

        /// Whether `key` was stored, removed or cleared after change number `readAt`.
        func hasChanged(_ key: CacheKey, since readAt: UInt64) -> Bool {
            max(lastChange[key] ?? 0, lastClear[nil] ?? 0, lastClear[key.scope] ?? 0) > readAt
        }

        /// Drops the pending change of `key` if it is still the one numbered `sequence`.
        mutating func settle(_ key: CacheKey, sequence: UInt64) {
            if pending[key]?.sequence == sequence { pending[key] = nil }
        }
    }

    private let configuration: Configuration
    /// ``Configuration/maxEntryBytes`` within `0...SnapshotLimits.ceiling`.
    private let maxEntryBytes: Int
    private let logger: Logger
    private let files: DiskTierFiles
    private let preparation: StoragePreparation
    /// Every write, removal, renewal, eviction and deletion runs here, in call order.
    private let queue = DispatchQueue(label: "CasinoCache.DiskTier", qos: .utility)
    private let state = Locked(State())

    /// Creates a tier on `configuration.directory`. Touches no file: the directory is scanned on the
    /// writer queue before the first write.
    public init(configuration: Configuration, logger: Logger = .casinoCacheDisabled) {
        self.configuration = configuration
        maxEntryBytes = min(max(configuration.maxEntryBytes, 0), SnapshotLimits.ceiling)
        self.logger = logger
        files = DiskTierFiles(directory: configuration.directory)
        preparation = StoragePreparation(
            .cacheEntries, protection: configuration.fileProtection, directory: configuration.directory, logger: logger)
    }

    // MARK: - Reads

    public func entry(for key: CacheKey) -> CacheEntry? {
        let (pending, readAt) = lookUp(key)
        var renewal: Renewal?
        switch pending {
        case .answer(let entry): return entry
        case .file(let queued): renewal = queued
        }
        let name = DiskTierFormat.name(for: key)
        let file: DiskTierFiles.Contents?
        do {
            file = try files.read(name, limit: maxEntryBytes)
        } catch  where error.isOversized {
            condemn(key, readAt: readAt, reason: error.description)
            return nil
        } catch {
            // Unreadable (Data Protection, a link, a directory): a miss, but the file is not ours to judge.
            logger.debug(
                "Disk cache entry unreadable",
                metadata: ["cache.key": "\(key)", "cache.file": "\(name)", "cache.error": "\(error)"])
            return nil
        }
        guard let file else { return nil }
        do throws(DiskTierFormat.Rejection) {
            let entry = try DiskTierFormat.decode(
                file, for: key, cacheVersion: configuration.cacheVersion, maxBytes: maxEntryBytes)
            state.withLock { $0.index.recordAccess(name) }
            return renewal?.applied(to: entry) ?? entry
        } catch {
            condemn(key, readAt: readAt, reason: error.reason)
            return nil
        }
    }

    /// What a read of `key` finds queued: an answer (a store, a removal, a clear of its scope), or
    /// that the file decides (with a renewal to apply to it); and the change count it read at.
    private enum Pending {
        case answer(CacheEntry?)
        case file(renewal: Renewal?)
    }

    private func lookUp(_ key: CacheKey) -> (Pending, readAt: UInt64) {
        state.withLock { state in
            var renewal: Renewal?
            switch state.pending[key]?.change {
            case .store(let entry)?: return (.answer(entry), state.sequence)
            case .removal?: return (.answer(nil), state.sequence)
            case .renewal(let queued)?: renewal = queued
            case nil: break
            }
            if state.pendingClears.values.contains(where: { $0 == nil || $0 == key.scope }) {
                return (.answer(nil), state.sequence)
            }
            return (.file(renewal: renewal), state.sequence)
        }
    }

    // MARK: - Changes

    public func store(_ entry: CacheEntry) {
        let sequence = state.withLock { $0.queue(.store(entry), of: entry.key) }
        queue.async { self.write(entry, sequence: sequence) }
    }

    public func removeEntry(for key: CacheKey) {
        let sequence = state.withLock { $0.queue(.removal, of: key) }
        queue.async { self.delete(key, sequence: sequence) }
    }

    public func removeAll(in scope: CacheScope?) {
        let sequence = state.withLock { state in
            state.sequence += 1
            // Queued changes of the scope are skipped; the clear deletes what is already on disk.
            state.pending = state.pending.filter { scope != nil && $0.key.scope != scope }
            state.pendingClears[state.sequence] = .some(scope)
            state.lastClear[scope] = state.sequence
            return state.sequence
        }
        queue.async { self.clear(scope, sequence: sequence) }
    }

    /// Marks each entry `stored` (as a scan found it) stored at `storedAt` with its `etag`, as
    /// network content: the upstream confirmed its content. The content is not written again: when
    /// the file's header already says that ETag, only its modification time moves (one system call);
    /// else a new header is written before the same compressed bytes. A key stored, removed or
    /// cleared since the scan, or whose file no longer holds that content, is left alone: that is newer.
    public func renew(_ renewals: [(stored: Stored, etag: String?)], at storedAt: Date) {
        let queued = state.withLock { state in
            renewals.compactMap { stored, etag -> (key: CacheKey, renewal: Renewal, sequence: UInt64)? in
                let key = stored.key
                switch state.pending[key]?.change {
                case .store?, .removal?: return nil  // newer than the scan
                case .renewal?, nil: break
                }
                guard !state.hasChanged(key, since: stored.readAt) else { return nil }
                let renewal = Renewal(contentHash: stored.contentHash, storedAt: storedAt, etag: etag)
                return (key, renewal, state.queue(.renewal(renewal), of: key))
            }
        }
        guard !queued.isEmpty else { return }
        queue.async {
            self.buildIndexIfNeeded()
            for (key, renewal, sequence) in queued { self.write(renewal, of: key, sequence: sequence) }
        }
    }

    // MARK: - Bulk validation

    /// The ``CacheScope/global`` keys held on disk, read from the files' headers (names do not say
    /// them), and those of queued stores: what ``CatalogCache/markStale(_:)`` looks through. Files
    /// that do not read are skipped here and dealt with when their key is read. Reads every global
    /// entry file: not for lookups.
    public func storedGlobalKeys() -> [CacheKey] {
        var keys = Set(globalEntryNames().compactMap { globalHeader(named: $0)?.key })
        let queued = state.withLock { $0.pending.values.compactMap { $0.change.storedEntry?.key } }
        keys.formUnion(queued.filter { $0.scope == .global })
        return keys.sorted(byDescriptionOf: \.self)
    }

    /// Lists the global entry files (their names only) and the queued stores of global entries,
    /// after every change queued before: what ``CatalogCache/synchronize()`` validates besides
    /// memory, reading the headers a batch at a time.
    ///
    /// Waits at most `limit` (real time: a file system that hangs holds the tier's queue, not the
    /// caller); `nil` when the limit or the caller's cancellation comes first.
    public func globalListing(within limit: Duration) async -> GlobalListing? {
        let listed = await queue.result(within: limit) { () -> ([String], [CacheEntry], UInt64) in
            let names = self.globalEntryNames()
            return self.state.withLock { state in
                let queued = state.pending.values.compactMap { $0.change.storedEntry }
                return (names, queued.filter { $0.key.scope == .global }, state.sequence)
            }
        }
        guard let (names, queued, readAt) = listed else { return nil }
        return GlobalListing(names: names, queued: queued.compactMap { Self.stored($0, readAt: readAt) })
    }

    /// The entries in the files `names` (of a ``globalListing(within:)``), in no order, each read as
    /// far as its header, as ``entry(for:)`` would answer them (a queued change wins over the file).
    /// Files that do not read, or are gone, are skipped here and dealt with when their key is read.
    ///
    /// The files are read on the tier's queue, so no change lands between reading a file and deciding
    /// whether a queued one wins over it. Waits at most `limit`, as ``globalListing(within:)`` does;
    /// `nil` when the limit or a cancellation comes first.
    public func storedGlobalEntries(named names: [String], within limit: Duration) async -> [Stored]? {
        await queue.result(within: limit) { names.compactMap(self.storedGlobalEntry(named:)) }
    }

    /// Every global entry on disk (``globalListing(within:)``, then ``storedGlobalEntries(named:within:)``),
    /// one per key: a queued store stands for a key whose file does not read. Empty when the disk
    /// does not answer within `limit` (10 seconds by default).
    public func storedGlobalEntries(within limit: Duration = .seconds(10)) async -> [Stored] {
        guard let listing = await globalListing(within: limit),
            let found = await storedGlobalEntries(named: listing.names, within: limit)
        else { return [] }
        var stored: [CacheKey: Stored] = [:]
        for entry in found { stored[entry.key] = entry }
        for queued in listing.queued where stored[queued.key] == nil { stored[queued.key] = queued }
        return Array(stored.values)
    }

    /// The names of the global entry files in the directory.
    private func globalEntryNames() -> [String] {
        let prefix = DiskTierFormat.prefix(for: .global)
        return files.names { $0.hasPrefix(prefix) && DiskTierFormat.isEntry($0) }
    }

    /// The header of the global entry file `name`, the key it holds and when the file was modified;
    /// `nil` when it does not read, or holds a key whose file has another name.
    private func globalHeader(
        named name: String
    ) -> (key: CacheKey, header: DiskTierFormat.Header, modifiedSeconds: Int64)? {
        guard let file = try? files.read(name, limit: maxEntryBytes),
            let (header, _) = try? DiskTierFormat.Header.parse(file.data, cacheVersion: configuration.cacheVersion),
            let key = CacheKey(stored: header.key), key.scope == .global, DiskTierFormat.name(for: key) == name
        else { return nil }
        return (key, header, file.modifiedSeconds)
    }

    /// What the global entry file `name` holds for bulk validation, as ``entry(for:)`` would answer it.
    private func storedGlobalEntry(named name: String) -> Stored? {
        guard let (key, header, modifiedSeconds) = globalHeader(named: name) else { return nil }
        let (pending, readAt) = lookUp(key)
        switch pending {
        case .answer(let queued):
            return queued.flatMap { Self.stored($0, readAt: readAt) }
        case .file(let renewal):
            let renewedAt = Date(timeIntervalSince1970: TimeInterval(modifiedSeconds))
            var stored = Stored(
                key: key, storedAt: max(header.storedAt, renewedAt), etag: header.etag, origin: header.origin,
                contentHash: header.contentHash)
            stored.readAt = readAt
            return renewal?.applied(to: stored) ?? stored
        }
    }

    private static func stored(_ entry: CacheEntry, readAt: UInt64) -> Stored? {
        guard let contentHash = try? entry.contentHash() else { return nil }
        var stored = Stored(entry, contentHash: contentHash)
        stored.readAt = readAt
        return stored
    }

    // MARK: - Waits and counts

    /// Waits until every change queued so far has reached the disk (and the directory has been
    /// scanned, so ``bytesOnDisk`` is current).
    public func flush() async {
        await queue.result { self.buildIndexIfNeeded() }
    }

    /// ``flush()``, waiting at most `limit` (real time, on the alarm thread: a file system that hangs
    /// holds the writes, not the caller); `false` when the limit came first and the writes are still
    /// queued. The caller's cancellation does not cut the wait short.
    public func flush(within limit: Duration) async -> Bool {
        await queue.drained(within: limit) { self.buildIndexIfNeeded() }
    }

    /// Holds the tier's queue as a file system that hangs holds it: nothing queued after this runs
    /// (a thread waits) until the returned release is called. For tests of the waits on the disk.
    public func holdQueue() -> @Sendable () -> Void {
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        return { gate.signal() }
    }

    /// Files found corrupt, truncated, oversized, from another schema or cache version, or stored
    /// for another key, and deleted.
    public var corruptEntries: Int { state.withLock { $0.corruptEntries } }
    /// Entries evicted to stay within ``Configuration/sizeLimit``.
    public var evictions: Int { state.withLock { $0.evictions } }
    /// Writes that failed: an unwritable or full directory, or an entry over the limits.
    public var writeFailures: Int { state.withLock { $0.writeFailures } }
    /// The bytes the entry files take, as of the last write, removal or ``flush()``.
    public var bytesOnDisk: Int { state.withLock { $0.index.totalBytes } }

    // MARK: - Writer queue

    /// Scans the directory for the index unless it is built. The new index is built off the lock
    /// (sorting thousands of files must not hold up reads) and swapped in.
    private func buildIndexIfNeeded() {
        guard !state.withLock({ $0.index.isBuilt }) else { return }
        let listed = files.list(entries: DiskTierFormat.isEntry, maxEntryBytes: maxEntryBytes)
        var scanned = Index(scanned: listed)
        state.withLock { $0.index.adopt(&scanned) }  // the index before, now in `scanned`, is released off the lock
    }

    private func write(_ entry: CacheEntry, sequence: UInt64) {
        buildIndexIfNeeded()
        let key = entry.key
        // A later store, a removal or a clear superseded this one: skip the work.
        guard state.withLock({ $0.pending[key]?.sequence == sequence }) else { return }
        let name = DiskTierFormat.name(for: key)
        let data: Data
        do {
            data = try DiskTierFormat.encode(entry, cacheVersion: configuration.cacheVersion, maxBytes: maxEntryBytes)
            guard data.count <= configuration.sizeLimit else {
                throw DiskTierFormat.Rejection(
                    reason: "entry of \(data.count) bytes is over sizeLimit \(configuration.sizeLimit)")
            }
        } catch {
            // The entry cannot be kept: keep nothing of it, not even an older version.
            files.delete(name)
            state.withLock { state in
                state.index.remove(name)
                state.writeFailures += 1
                state.settle(key, sequence: sequence)
            }
            logFailedWrite(key: key, name: name, error: error)
            return
        }
        place(data, named: name, modified: entry.storedAt, key: key, sequence: sequence)
    }

    /// Renews the file of `key`, read as it is now: the content a scan found must still be there,
    /// and an earlier renewal may have written a new header since.
    private func write(_ renewal: Renewal, of key: CacheKey, sequence: UInt64) {
        guard state.withLock({ $0.pending[key]?.sequence == sequence }) else { return }
        let name = DiskTierFormat.name(for: key)
        guard let file = try? files.read(name, limit: maxEntryBytes),
            let (header, contentStart) = try? DiskTierFormat.Header.parse(
                file.data, cacheVersion: configuration.cacheVersion),
            header.key == key.description, header.contentHash == renewal.contentHash
        else {
            // Gone, or holding other content: nothing to renew.
            state.withLock { $0.settle(key, sequence: sequence) }
            return
        }
        if header.etag == renewal.etag && header.origin == .network {
            files.setModified(name, to: renewal.storedAt)
            state.withLock { $0.settle(key, sequence: sequence) }
            return
        }
        var renewed = header
        renewed.storedAt = renewal.storedAt
        renewed.etag = renewal.etag
        renewed.origin = .network
        guard var data = try? renewed.encoded(cacheVersion: configuration.cacheVersion) else {
            state.withLock { $0.settle(key, sequence: sequence) }
            return
        }
        data.append(file.data[contentStart...])
        place(data, named: name, modified: renewal.storedAt, key: key, sequence: sequence)
    }

    /// Writes `data` as the file `name` for the queued change `sequence` of `key`, then evicts what
    /// no longer fits.
    private func place(_ data: Data, named name: String, modified: Date, key: CacheKey, sequence: UInt64) {
        preparation.prepareOnce()  // the directory's Data Protection class (Configuration.fileProtection)
        do {
            try files.writeAtomically(data, to: name, modified: modified)
        } catch {
            // Reads fall back to whatever the directory still holds.
            state.withLock { state in
                state.writeFailures += 1
                state.settle(key, sequence: sequence)
            }
            logFailedWrite(key: key, name: name, error: error)
            return
        }
        let victims = state.withLock { state in
            state.index.recordWrite(name, size: data.count)
            state.settle(key, sequence: sequence)
            let victims = state.index.evict(toFit: max(configuration.sizeLimit, 0), keeping: name)
            state.evictions += victims.count
            return victims
        }
        for victim in victims {
            files.delete(victim)
            logger.debug("Disk cache entry evicted", metadata: ["cache.file": "\(victim)"])
        }
    }

    private func delete(_ key: CacheKey, sequence: UInt64) {
        buildIndexIfNeeded()
        let name = DiskTierFormat.name(for: key)
        files.delete(name)
        state.withLock { state in
            state.index.remove(name)
            state.settle(key, sequence: sequence)
        }
    }

    private func clear(_ scope: CacheScope?, sequence: UInt64) {
        buildIndexIfNeeded()
        let prefix = scope.map(DiskTierFormat.prefix(for:)) ?? ""
        let names = files.names { $0.hasPrefix(prefix) && DiskTierFormat.isEntry($0) }
        for name in names { files.delete(name) }
        state.withLock { state in
            for name in names { state.index.remove(name) }
            state.pendingClears[sequence] = nil
        }
    }

    /// Counts and logs an unusable file of `key`, read at change `readAt`, and queues its removal,
    /// unless a change of the key queued since decides what the file becomes.
    private func condemn(_ key: CacheKey, readAt: UInt64, reason: String) {
        let sequence = state.withLock { state -> UInt64? in
            guard !state.hasChanged(key, since: readAt) else { return nil }
            state.corruptEntries += 1
            return state.queue(.removal, of: key)
        }
        guard let sequence else { return }
        logger.info(
            "Disk cache entry unusable, deleting it",
            metadata: [
                "cache.key": "\(key)", "cache.file": "\(DiskTierFormat.name(for: key))", "cache.reason": "\(reason)",
            ])
        queue.async { self.delete(key, sequence: sequence) }
    }

    private func logFailedWrite(key: CacheKey, name: String, error: any Error) {
        logger.info(
            "Disk cache write failed",
            metadata: [
                "cache.key": "\(key)", "cache.file": "\(name)",
                "cache.directory": "\(configuration.directory.path)", "cache.error": "\(error)",
            ])
    }
}

/// The disk tier's view of its directory: each entry file's size and when it was last used.
///
/// Built from a scan on the writer queue, then kept current by the writer (writes, removals,
/// evictions) and by reads (last use). "When" is a counter, not a clock: files found by the scan
/// rank by modification time, older than anything used since.
private struct Index {
    private(set) var isBuilt = false
    /// The bytes of every entry file known.
    private(set) var totalBytes = 0
    private var sizes: [String: Int] = [:]
    private var lastUsed: [String: Int64] = [:]
    private var tick: Int64 = 0

    init() {}

    /// The index of what a scan found: ranks below every use of this session (ticks are positive).
    init(scanned files: [DiskTierFiles.Listed]) {
        for (rank, file) in files.sorted(by: { ($0.modified, $0.name) < ($1.modified, $1.name) }).enumerated() {
            sizes[file.name] = file.size
            totalBytes += file.size
            lastUsed[file.name] = Int64(rank - files.count)
        }
        isBuilt = true
    }

    /// Takes in an index built from a scan, keeping the uses recorded before it; `scanned` is left
    /// holding this index as it was. The tables are swapped, not copied, under the tier's lock.
    mutating func adopt(_ scanned: inout Index) {
        for (name, used) in lastUsed where scanned.sizes[name] != nil { scanned.lastUsed[name] = used }
        scanned.tick = tick
        swap(&self, &scanned)
    }

    mutating func recordAccess(_ name: String) {
        tick += 1
        if !isBuilt || sizes[name] != nil { lastUsed[name] = tick }
    }

    mutating func recordWrite(_ name: String, size: Int) {
        totalBytes += size - (sizes[name] ?? 0)
        sizes[name] = size
        tick += 1
        lastUsed[name] = tick
    }

    mutating func remove(_ name: String) {
        if let size = sizes.removeValue(forKey: name) { totalBytes -= size }
        lastUsed[name] = nil
    }

    /// Forgets and returns the least recently used files until the total is at most `limit`,
    /// never `keeping`.
    mutating func evict(toFit limit: Int, keeping: String) -> [String] {
        guard totalBytes > limit else { return [] }
        let candidates = sizes.keys.filter { $0 != keeping }
            .sorted { (lastUsed[$0] ?? .min, $0) < (lastUsed[$1] ?? .min, $1) }
        var victims: [String] = []
        for name in candidates {
            guard totalBytes > limit else { break }
            remove(name)
            victims.append(name)
        }
        return victims
    }
}
