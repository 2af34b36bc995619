@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Dispatch
public import Foundation
public import Logging

/// The disk tier: one file per key in a directory the app chooses (a header line, then the
/// content's gzip'd JSON: ``DiskTierEnvelope``), surviving relaunches, bounded by a total size with
/// least-recently-used eviction.
///
/// Reads are synchronous (a page costs a file read, a gunzip and a JSON decode); writes return
/// at once and happen on a private serial queue, as a temporary file renamed into place, so a
/// reader sees the old file or the new one, never half of one. Until a write lands, reads
/// answer from the pending entry. A file that is corrupt, truncated, from another schema or
/// ``Configuration/cacheVersion``, or stored for another key is a miss: it is deleted, counted
/// in ``corruptEntries`` and logged, never served. An unwritable or full directory makes writes
/// fail (counted in ``writeFailures``); reads keep working.
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
/// One tier per directory: two live tiers on one directory work but keep separate size
/// accounting.
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

    /// A store, removal or renewal not yet on disk.
    private struct Pending {
        var sequence: UInt64
        var change: Change

        /// The entry a read answers while this is queued; `nil` for a removal or a renewal.
        var entry: CacheEntry? {
            if case .store(let entry) = change { entry } else { nil }
        }
    }

    private enum Change {
        case store(CacheEntry)
        case removal
        case renewal(Renewal)
    }

    /// A new age (and ETag) for the file of one content: the rest of the file is kept.
    private struct Renewal {
        var contentHash: String
        var storedAt: Date
        var etag: String?
        /// The file's header already says all but the age (its ETag, network content): only its
        /// modification time moves, if the file is still the write the scan read (`fileGeneration`)
        /// when the renewal runs.
        var keepsHeader: Bool
        var fileGeneration: UInt64

        /// `entry` renewed, if it holds the renewed content.
        func applied(to entry: CacheEntry) -> CacheEntry {
            guard entry.knownContentHash == contentHash else { return entry }
            var renewed = entry
            renewed.storedAt = storedAt
            renewed.etag = etag
            renewed.origin = .network
            return renewed
        }

        /// `stored` renewed, if it holds the renewed content.
        func applied(to stored: Stored) -> Stored {
            guard stored.contentHash == contentHash else { return stored }
            var renewed = stored
            renewed.storedAt = storedAt
            renewed.etag = etag
            renewed.origin = .network
            return renewed
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
        /// Which write of this tier the scan found in the file, and which store of content (0: none
        /// since the tier started): a renewal does not apply to content stored since, and moves
        /// only the modification time of a file whose header is as the scan read it. Not part of
        /// equality.
        var fileGeneration: UInt64 = 0
        var contentGeneration: UInt64 = 0
        /// The file the scan read it from (`nil` for a queued write): a renewal needs no name built
        /// again. Not part of equality.
        var fileName: String?

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

    private struct State {
        var sequence: UInt64 = 0
        var pending: [CacheKey: Pending] = [:]
        /// `removeAll(in:)` calls not yet on disk: sequence → scope (`nil`: everything).
        var pendingClears: [UInt64: CacheScope?] = [:]
        var index = DiskTierIndex()
        /// For each file name, the sequence of the last write renamed into place. A corrupt
        /// file is deleted only if no write replaced it since it was read.
        var writeGenerations: [String: UInt64] = [:]
        /// For each file name, the sequence of the last store renamed into place (a renewal's new
        /// header is a write, not a store).
        var contentGenerations: [String: UInt64] = [:]
        /// Files found unusable whose deletion is queued: name → write generation read.
        var condemned: [String: UInt64] = [:]
        var corruptEntries = 0
        var evictions = 0
        var writeFailures = 0

        mutating func nextSequence() -> UInt64 {
            sequence += 1
            return sequence
        }

        /// Drops the pending operation for `key` if it is still the one numbered `sequence`.
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
    /// Every write, removal, eviction and deletion runs here, in call order.
    private let queue = DispatchQueue(label: "CasinoCache.DiskTier", qos: .utility)
    private let state = Locked(State())

    /// Creates a tier on `configuration.directory`. Touches no file: the directory is scanned
    /// on the writer queue before the first write.
    public init(configuration: Configuration, logger: Logger = .casinoCacheDisabled) {
        self.configuration = configuration
        maxEntryBytes = min(max(configuration.maxEntryBytes, 0), SnapshotLimits.ceiling)
        self.logger = logger
        files = DiskTierFiles(directory: configuration.directory)
        preparation = StoragePreparation(
            .cacheEntries, protection: configuration.fileProtection, directory: configuration.directory, logger: logger)
    }

    // MARK: - Entries

    public func entry(for key: CacheKey) -> CacheEntry? {
        let name = DiskTierFileName.name(for: key)
        let generation: UInt64
        let renewal: Renewal?
        switch plan(for: key, name: name) {
        case .answer(let entry): return entry
        case .read(let read, _, let queued):
            generation = read
            renewal = queued
        }

        let file: DiskTierFiles.Contents?
        do {
            file = try files.read(name, limit: maxEntryBytes)
        } catch  where error.isOversized {
            condemn(name, generation: generation, key: key, reason: error.description)
            return nil
        } catch {
            logger.debug(
                "Disk cache entry unreadable",
                metadata: ["cache.key": "\(key)", "cache.file": "\(name)", "cache.error": "\(error)"])
            return nil
        }
        guard let file else { return nil }
        do throws(DiskTierEnvelope.Rejection) {
            let entry = try DiskTierEnvelope.decode(
                file, for: key, cacheVersion: configuration.cacheVersion, maxBytes: maxEntryBytes)
            state.withLock { $0.index.recordAccess(name) }
            return renewal?.applied(to: entry) ?? entry
        } catch {
            condemn(name, generation: generation, key: key, reason: error.reason)
            return nil
        }
    }

    /// How to answer for `key`: from what is queued or being cleared, or by reading its file (and
    /// renewing what it holds, when a renewal is queued).
    private enum Plan {
        case answer(CacheEntry?)
        /// `generation`: the file's last write; `contentGeneration`: its last store of content.
        case read(generation: UInt64, contentGeneration: UInt64, renewal: Renewal?)
    }

    private func plan(for key: CacheKey, name: String) -> Plan {
        state.withLock { state -> Plan in
            var renewal: Renewal?
            switch state.pending[key]?.change {
            case .store(let entry)?: return .answer(entry)
            case .removal?: return .answer(nil)
            case .renewal(let queued)?: renewal = queued
            case nil: break
            }
            if state.pendingClears.values.contains(where: { $0 == nil || $0 == key.scope }) { return .answer(nil) }
            let generation = state.writeGenerations[name] ?? 0
            if state.condemned[name] == generation { return .answer(nil) }
            return .read(
                generation: generation, contentGeneration: state.contentGenerations[name] ?? 0, renewal: renewal)
        }
    }

    public func store(_ entry: CacheEntry) {
        let sequence = state.withLock { state in
            let sequence = state.nextSequence()
            state.pending[entry.key] = Pending(sequence: sequence, change: .store(entry))
            return sequence
        }
        queue.async { self.write(entry, sequence: sequence) }
    }

    public func removeEntry(for key: CacheKey) {
        let sequence = state.withLock { state in
            let sequence = state.nextSequence()
            state.pending[key] = Pending(sequence: sequence, change: .removal)
            return sequence
        }
        queue.async { self.delete(key, sequence: sequence) }
    }

    /// Marks each entry `stored` (as a scan found it) stored at `storedAt` with its `etag`, as
    /// network content: the upstream confirmed its content. The content's file is not written
    /// again: when only the age changes, its modification time moves (one system call); else its
    /// header is written again before the same compressed bytes, if the file still holds that
    /// content. An entry whose store, removal or clear is queued, or whose file was written again
    /// since the scan, is left alone: that is newer.
    public func renew(_ renewals: [(stored: Stored, etag: String?)], at storedAt: Date) {
        let names = renewals.map { $0.stored.fileName ?? DiskTierFileName.name(for: $0.stored.key) }  // off the lock
        let queued = state.withLock { state -> [(key: CacheKey, name: String, renewal: Renewal, sequence: UInt64)] in
            var queued: [(key: CacheKey, name: String, renewal: Renewal, sequence: UInt64)] = []
            queued.reserveCapacity(renewals.count)
            for ((stored, etag), name) in zip(renewals, names) {
                let key = stored.key
                switch state.pending[key]?.change {
                case .store?, .removal?: continue
                case .renewal?, nil: break
                }
                if state.pendingClears.values.contains(where: { $0 == nil || $0 == key.scope }) { continue }
                guard state.contentGenerations[name] ?? 0 == stored.contentGeneration else { continue }
                // Whether the file is still the write the scan read is decided when the renewal runs.
                let renewal = Renewal(
                    contentHash: stored.contentHash, storedAt: storedAt, etag: etag,
                    keepsHeader: etag == stored.etag && stored.origin == .network,
                    fileGeneration: stored.fileGeneration)
                let sequence = state.nextSequence()
                state.pending[key] = Pending(sequence: sequence, change: .renewal(renewal))
                queued.append((key, name, renewal, sequence))
            }
            return queued
        }
        guard !queued.isEmpty else { return }
        queue.async {
            self.buildIndexIfNeeded()
            self.files.withOpenDirectory { directory in
                for (key, name, renewal, sequence) in queued {
                    self.write(renewal, of: key, named: name, sequence: sequence, in: directory)
                }
            }
        }
    }

    public func removeAll(in scope: CacheScope?) {
        let sequence = state.withLock { state in
            let sequence = state.nextSequence()
            // Queued writes of the scope are skipped; the clear deletes what is already on disk.
            state.pending = state.pending.filter { scope != nil && $0.key.scope != scope }
            state.pendingClears[sequence] = .some(scope)
            return sequence
        }
        queue.async { self.clear(scope, sequence: sequence) }
    }

    /// The ``CacheScope/global`` keys held on disk, read from inside the files (names do not say
    /// them; only each file's header is decoded): what ``CatalogCache/markStale(_:)`` looks
    /// through. Files that do not read are skipped here and dealt with when their key is read.
    /// Reads every global entry file: not for lookups.
    public func storedGlobalKeys() -> [CacheKey] {
        let scope = CacheScope.global
        let prefix = DiskTierFileName.prefix(for: scope)
        var keys = Set<CacheKey>()
        for name in files.entryNames(where: { $0.hasPrefix(prefix) }) {
            if let file = try? files.read(name, limit: maxEntryBytes),
                let (key, _) = globalHeader(of: file, named: name)
            {
                keys.insert(key)
            }
        }
        let pending = state.withLock { state in
            state.pending.values.compactMap { $0.entry?.key }.filter { $0.scope == scope }
        }
        keys.formUnion(pending)
        return keys.sorted(byDescriptionOf: \.self)
    }

    /// The ``CacheScope/global`` entry files on disk, listed for ``storedGlobalEntries(named:)`` to
    /// read a batch at a time (`read`: those read with the listing), and the stores of global
    /// entries still queued (a read would answer them; their files may not exist yet).
    public struct GlobalListing: Sendable {
        /// The files not read yet.
        public var names: [String]
        /// ``storedGlobalEntries(named:)`` of the files listed first.
        public var read: [Stored]
        public var queued: [Stored]
    }

    /// Lists the global entry files (their names only) and the queued stores, and reads the first
    /// `count` files as ``storedGlobalEntries(named:)`` does, in the same turn of the tier's queue:
    /// what ``CatalogCache/synchronize()`` validates besides memory, reading the headers batch by
    /// batch. A relaunched tier lists its directory once, for its index and for this, and reads
    /// those files in its scan (their `fstat` standing in for the scan's).
    ///
    /// Waits at most `limit` (real time: a file system that hangs holds the tier's queue, not the
    /// caller); `nil` when the limit or the caller's cancellation comes first.
    public func globalListing(readingFirst count: Int = 0, within limit: Duration) async -> GlobalListing? {
        let answer = await queue.result(within: limit) { () -> ([String], [Stored], [CacheEntry]) in
            let isGlobal = { (name: String) in name.hasPrefix(DiskTierFileName.prefix(for: .global)) }
            var names: [String]
            var read: [Stored] = []
            var readInScan: [String] = []  // in the scan's order
            var firstFormat: [String] = []  // upgraded after the scan: an upgrade writes into the directory listed
            if let scanned = self.buildIndexIfNeeded(
                reading: count, where: isGlobal,
                { name, file in
                    readInScan.append(name)
                    switch self.globalEntry(named: name, in: file, upgrading: false) {
                    case .found(let found): read.append(found)
                    case .firstFormat: firstFormat.append(name)
                    case .nothing: break
                    }
                })
            {
                // The files read are in `scanned` too, in the same order: passed over in one walk.
                var nextRead = readInScan.startIndex
                names = scanned.compactMap { file in
                    guard nextRead == readInScan.endIndex || readInScan[nextRead] != file.name else {
                        nextRead += 1
                        return nil
                    }
                    return isGlobal(file.name) ? file.name : nil
                }
                read += self.scanGlobalEntries(named: firstFormat)
            } else {
                names = self.files.entryNames(where: isGlobal)
                let first = Array(names.prefix(max(count, 0)))
                names.removeFirst(first.count)
                read = self.scanGlobalEntries(named: first)
            }
            let queued = self.state.withLock { state in
                state.pending.values.compactMap(\.entry).filter { $0.key.scope == .global }
            }
            return (names, read, queued)
        }
        guard let (names, read, queued) = answer else { return nil }
        return GlobalListing(names: names, read: read, queued: queued.compactMap(Self.stored))
    }

    /// The entries in the files `names` (of a ``globalListing(readingFirst:within:)``), in no order, as ``entry(for:)``
    /// would answer them (a queued write or clear wins over the file), each read as far as its
    /// header. A file of the first format (no content hash) is decoded, hashed and written again in
    /// the current one, once. Files that do not read, or are gone, are skipped here and dealt with
    /// when their key is read.
    ///
    /// The files are read on the tier's write queue, so no write, removal or clear lands between
    /// reading a file and deciding whether a queued change wins over it. Waits at most `limit`, as
    /// ``globalListing(readingFirst:within:)`` does; `nil` when the limit or a cancellation comes first.
    public func storedGlobalEntries(named names: [String], within limit: Duration) async -> [Stored]? {
        await queue.result(within: limit) { self.scanGlobalEntries(named: names) }
    }

    /// Every global entry on disk (``globalListing(readingFirst:within:)``, then
    /// ``storedGlobalEntries(named:within:)`` of all of it), one per key: a queued store stands for
    /// a key whose file does not read. Empty when the disk does not answer within `limit` (10
    /// seconds by default).
    public func storedGlobalEntries(within limit: Duration = .seconds(10)) async -> [Stored] {
        guard let listing = await globalListing(within: limit),
            let found = await storedGlobalEntries(named: listing.names, within: limit)
        else { return [] }
        var stored: [CacheKey: Stored] = [:]
        for entry in found + listing.read { stored[entry.key] = entry }
        for queued in listing.queued where stored[queued.key] == nil { stored[queued.key] = queued }
        return Array(stored.values)
    }

    /// ``storedGlobalEntries(named:)``'s reads; called on `queue`.
    private func scanGlobalEntries(named names: [String]) -> [Stored] {
        files.withOpenDirectory { directory in scanGlobalEntries(named: names, in: directory) }
    }

    private func scanGlobalEntries(named names: [String], in directory: DiskTierFiles.OpenDirectory?) -> [Stored] {
        var stored: [Stored] = []
        stored.reserveCapacity(names.count)
        for name in names {
            guard let file = try? files.read(name, limit: maxEntryBytes, in: directory) else { continue }
            if case .found(let found) = globalEntry(named: name, in: file, upgrading: true) { stored.append(found) }
        }
        return stored
    }

    /// What the file `name`, whose bytes are `file`, holds for bulk validation, as ``entry(for:)``
    /// would answer it (a queued write or clear wins over the file). A file of the first format (no
    /// content hash) is decoded, hashed and written again in the current one, once, when `upgrading`.
    /// Called on `queue`.
    private func globalEntry(named name: String, in file: DiskTierFiles.Contents, upgrading: Bool) -> GlobalEntry {
        guard let (key, parsed) = globalHeader(of: file, named: name) else { return .nothing }
        switch plan(for: key, name: name) {
        case .answer(let queued):
            return queued.flatMap(Self.stored).map(GlobalEntry.found) ?? .nothing
        case .read(let generation, let contentGeneration, let renewal):
            var header = parsed.header
            if parsed.payloadStart == nil {
                // The first format: hash the content once and keep the hash from now on.
                guard upgrading else { return .firstFormat }
                guard
                    let entry = try? DiskTierEnvelope.entry(in: file.data, parsed, for: key, maxBytes: maxEntryBytes),
                    let written = upgrade(entry, named: name)
                else { return .nothing }
                header.contentHash = written
            }
            guard let contentHash = header.contentHash else { return .nothing }
            var found = Stored(
                key: key, storedAt: parsed.storedAt, etag: header.etag, origin: header.origin, contentHash: contentHash)
            found.fileGeneration = generation
            found.contentGeneration = contentGeneration
            found.fileName = name
            return .found(renewal?.applied(to: found) ?? found)
        }
    }

    /// ``globalEntry(named:in:upgrading:)``'s answer.
    private enum GlobalEntry {
        case found(Stored)
        /// Nothing to validate: the file does not read, or a queued removal or clear wins over it.
        case nothing
        /// A file of the first format, not upgraded.
        case firstFormat
    }

    /// The global key the file `name` (its bytes, `file`) holds and its parsed header; `nil` when it is
    /// not an entry of this tier's cache version, or holds a key whose file has another name.
    private func globalHeader(
        of file: DiskTierFiles.Contents, named name: String
    ) -> (key: CacheKey, parsed: DiskTierEnvelope.Parsed)? {
        guard
            let parsed = try? DiskTierEnvelope.parse(
                file, cacheVersion: configuration.cacheVersion, maxBytes: maxEntryBytes),
            let key = DiskTierEnvelope.globalKey(of: parsed.header), DiskTierFileName.name(for: key) == name
        else { return nil }
        return (key, parsed)
    }

    private static func stored(_ entry: CacheEntry) -> Stored? {
        (try? entry.contentHash()).map { Stored(entry, contentHash: $0) }
    }

    /// Writes `entry`, read from a file of the first format, in the current format; returns its
    /// content hash. Called on `queue`, so no other write lands meanwhile.
    private func upgrade(_ entry: CacheEntry, named name: String) -> String? {
        guard
            let (data, contentHash) = try? DiskTierEnvelope.encode(
                entry, cacheVersion: configuration.cacheVersion, maxBytes: maxEntryBytes)
        else { return nil }
        if (try? files.writeAtomically(data, to: name, modified: entry.storedAt)) != nil {
            state.withLock { $0.index.recordWrite(name, size: data.count) }
        }
        return contentHash
    }

    // MARK: - Extras

    /// Waits until every write and removal queued so far has reached the disk (and the
    /// directory has been scanned, so ``bytesOnDisk`` is current).
    public func flush() async {
        await queue.result { _ = self.buildIndexIfNeeded() }
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

    /// Files found corrupt, truncated, oversized, from another schema or cache version, or
    /// stored for another key, and deleted.
    public var corruptEntries: Int { state.withLock { $0.corruptEntries } }
    /// Entries evicted to stay within ``Configuration/sizeLimit``.
    public var evictions: Int { state.withLock { $0.evictions } }
    /// Writes that failed: an unwritable or full directory, or an entry over the limits.
    public var writeFailures: Int { state.withLock { $0.writeFailures } }
    /// The bytes the entry files take, as of the last write, removal or ``flush()``.
    public var bytesOnDisk: Int { state.withLock { $0.index.totalBytes } }

    // MARK: - Writer queue

    /// Scans the directory for the index unless it is built; returns the entry files the scan found
    /// (`nil` when the index was built before): the index's own array, not a copy. The scan reads the first `count` files that
    /// `isRead` selects, and gives each to `body` (``DiskTierFiles/scan(maxEntryBytes:now:reading:where:_:)``).
    @discardableResult
    private func buildIndexIfNeeded(
        reading count: Int = 0, where isRead: (String) -> Bool = { _ in false },
        _ body: (String, DiskTierFiles.Contents) -> Void = { _, _ in }
    ) -> [DiskTierIndex.ScannedFile]? {
        guard !state.withLock({ $0.index.isBuilt }) else { return nil }
        let files = files.scan(maxEntryBytes: maxEntryBytes, reading: count, where: isRead, body)
        var scanned = DiskTierIndex(scanned: files)
        state.withLock { $0.index.adopt(&scanned) }  // `scanned`, now the index before, is released off the lock
        return files
    }

    private func write(_ entry: CacheEntry, sequence: UInt64) {
        buildIndexIfNeeded()
        let key = entry.key
        // A later store, a removal or a clear superseded this one: skip the work.
        guard state.withLock({ $0.pending[key]?.sequence == sequence }) else { return }
        let name = DiskTierFileName.name(for: key)

        let data: Data
        do {
            // Content the file already holds (a renewed entry) keeps its compressed bytes.
            data =
                try renewedFile(named: name, for: entry)
                ?? DiskTierEnvelope.encode(entry, cacheVersion: configuration.cacheVersion, maxBytes: maxEntryBytes)
                .data
            guard data.count <= configuration.sizeLimit else {
                throw DiskTierEnvelope.Rejection(
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

        place(data, named: name, storedAt: entry.storedAt, key: key, sequence: sequence, isStore: true)
    }

    /// The file `name` with `entry`'s age, ETag and origin in its header, when the file holds
    /// `entry`'s content (its known hash); `nil` otherwise.
    private func renewedFile(named name: String, for entry: CacheEntry) -> Data? {
        guard let contentHash = entry.knownContentHash else { return nil }
        return renewedFile(
            named: name, key: entry.key, contentHash: contentHash, storedAt: entry.storedAt, etag: entry.etag,
            origin: entry.origin)
    }

    /// The file `name` with a new age, ETag and origin in its header, when it holds `key`'s content
    /// whose hash is `contentHash`; `nil` otherwise (other content, or no such file).
    private func renewedFile(
        named name: String, key: CacheKey, contentHash: String, storedAt: Date, etag: String?, origin: CacheOrigin
    ) -> Data? {
        guard let file = try? files.read(name, limit: maxEntryBytes) else { return nil }
        return DiskTierEnvelope.renewed(
            file, key: key, contentHash: contentHash, storedAt: storedAt, etag: etag, origin: origin,
            cacheVersion: configuration.cacheVersion, maxBytes: maxEntryBytes)
    }

    /// Renews the file `name` of `key` (its age, or its header); called on `queue`, the index built.
    private func write(
        _ renewal: Renewal, of key: CacheKey, named name: String, sequence: UInt64,
        in directory: DiskTierFiles.OpenDirectory?
    ) {
        let writeGeneration = state.withLock { state -> UInt64? in
            state.pending[key]?.sequence == sequence ? state.writeGenerations[name] ?? 0 : nil
        }
        guard let writeGeneration else { return }
        // Checked here, in the writes' order, not when it was queued: an earlier renewal's new header
        // may have landed since, and only a new header then says this renewal's ETag.
        if renewal.keepsHeader, writeGeneration == renewal.fileGeneration {
            // Gone meanwhile (a condemned file): nothing to renew.
            files.setModified(name, to: renewal.storedAt, in: directory)
            state.withLock { $0.settle(key, sequence: sequence) }
            return
        }
        guard
            let data = renewedFile(
                named: name, key: key, contentHash: renewal.contentHash, storedAt: renewal.storedAt,
                etag: renewal.etag, origin: .network)
        else {
            // The file holds other content now, or none: nothing to renew.
            state.withLock { $0.settle(key, sequence: sequence) }
            return
        }
        place(data, named: name, storedAt: renewal.storedAt, key: key, sequence: sequence, isStore: false)
    }

    /// Writes `data` as the file `name` for the queued change `sequence` of `key` (a store of
    /// content, else a renewal's new header), then evicts what no longer fits.
    private func place(
        _ data: Data, named name: String, storedAt: Date, key: CacheKey, sequence: UInt64, isStore: Bool
    ) {
        preparation.prepareOnce()  // the directory's Data Protection class (Configuration.fileProtection)
        do {
            try files.writeAtomically(data, to: name, modified: storedAt)
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
            state.writeGenerations[name] = sequence
            if isStore { state.contentGenerations[name] = sequence }
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
        let name = DiskTierFileName.name(for: key)
        files.delete(name)
        state.withLock { state in
            state.index.remove(name)
            state.settle(key, sequence: sequence)
        }
    }

    private func clear(_ scope: CacheScope?, sequence: UInt64) {
        buildIndexIfNeeded()
        let prefix = scope.map(DiskTierFileName.prefix(for:))
        let isMatch = { (name: String) in prefix.map { name.hasPrefix($0) } ?? true }
        for name in files.entryNames(where: isMatch) {
            files.delete(name)
        }
        state.withLock { state in
            _ = state.index.removeAll(where: isMatch)
            state.pendingClears[sequence] = nil
        }
    }

    // MARK: - Unusable files

    /// Counts and logs an unusable file once, and queues its deletion.
    private func condemn(_ name: String, generation: UInt64, key: CacheKey, reason: String) {
        let isNew = state.withLock { state in
            guard state.condemned[name] != generation else { return false }
            state.condemned[name] = generation
            state.corruptEntries += 1
            return true
        }
        guard isNew else { return }
        logger.info(
            "Disk cache entry unusable, deleting it",
            metadata: ["cache.key": "\(key)", "cache.file": "\(name)", "cache.reason": "\(reason)"])
        queue.async { self.deleteCondemned(name, generation: generation) }
    }

    /// Deletes a file found unusable unless a write replaced it since it was read.
    private func deleteCondemned(_ name: String, generation: UInt64) {
        let isUnchanged = state.withLock { ($0.writeGenerations[name] ?? 0) == generation }
        if isUnchanged { files.delete(name) }
        state.withLock { state in
            if isUnchanged { state.index.remove(name) }
            if state.condemned[name] == generation { state.condemned[name] = nil }
        }
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
