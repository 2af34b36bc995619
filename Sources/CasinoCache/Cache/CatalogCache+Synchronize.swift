@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation
import Logging
@_spi(CatalogTools) import ProviderAPI

/// Bulk validation: one request tells the cache which of the entries it holds are
/// still current, instead of one refresh per key as each is next seen.
extension CatalogCache {
    /// Validates every catalogue entry held in memory (the bundled content the app has shown
    /// among it) and on disk in one upstream request (more above 500 keys), then acts on each
    /// verdict:
    ///
    /// - current: the entry becomes fresh without a fetch (its age renewed, its content kept);
    /// - changed, with content inline: the content is checked like any upstream answer, stored
    ///   and announced on ``updates()``;
    /// - changed without content: fetched through the usual coalesced path;
    /// - removed at the provider: forgotten in memory and on disk;
    /// - unknown, or no verdict: left to the usual refresh.
    ///
    /// An upstream without bulk validation, or a failing request (offline, 429, 500), falls back
    /// to refreshing the entries that are not fresh key by key; nothing held is lost. Call it at
    /// launch and when the app returns to the foreground.
    ///
    /// When it returns, what it wrote is on disk: what its verdicts changed, a withdrawal list it
    /// received, the queues of the players whose changes it sent. It waits for the disk at most
    /// 10 seconds at a time, for a file system that hangs. Cancelling the
    /// calling task stops it early: the request in flight is abandoned and nothing more is sent,
    /// fetched or refreshed (``SynchronizationReport/isCancelled``); the verdicts already acted on
    /// stay, written. A fetch of changed content already under way finishes as any fetch whose
    /// caller left: it fills the cache when it lands.
    ///
    /// Players' queued changes (those an earlier launch left, once the player's lists or queue have
    /// been read) are sent meanwhile, as ``sendPendingMutations()`` sends them; it returns when both
    /// are done.
    ///
    /// - Returns: What was sent and what each verdict did.
    @discardableResult
    public func synchronize() async -> SynchronizationReport {
        let (report, diskAnswered): (SynchronizationReport, Bool)
        let sendsMutations = players.hasPending
        if sendsMutations {
            async let mutationsSent: Void = players.sendPending()
            (report, diskAnswered) = await validateHeld()
            await mutationsSent
        } else {
            (report, diskAnswered) = await validateHeld()  // most launches: no task for the players' changes
        }
        await waitForWrites(
            disk: diskAnswered, withdrawals: report.withdrawalSequence != nil, playerQueues: sendsMutations)
        return report
    }

    /// Validates every catalogue entry held in memory and on disk (``synchronize()``); `diskAnswered`
    /// is false when a read of the disk was abandoned (at the limit, or on the caller's cancellation):
    /// the writes are not waited for on a disk that hangs.
    private func validateHeld() async -> (report: SynchronizationReport, diskAnswered: Bool) {
        let queued = scheduler.takeQueued()
        var held = heldInMemory()
        for key in queued where held[key] == nil {
            if let entry = heldEntry(key) { hold(entry, inMemory: true, in: &held) }
        }
        var source = HeldSource(held)
        // The first disk batch is read with the listing: one turn of the disk's queue fewer.
        let firstRead = validationBatchSize - held.count % validationBatchSize
        if let disk {
            if let listing = await disk.globalListing(readingFirst: firstRead, within: configuration.diskWaitLimit) {
                source.diskNames = listing.names[...]
                for stored in listing.queued { source.add(heldOnDisk(stored)) }
                for stored in listing.read where !source.hasSeen(stored.key) { source.add(heldOnDisk(stored)) }
            } else {
                source.diskDidNotAnswer()
            }
        }
        let report = await validate(&source, releasing: queued)
        if source.isDiskAbandoned && !Task.isCancelled {
            logger.warning(
                "synchronize: the disk did not answer within the limit; what it holds and was not sent is refreshed as read",
                metadata: ["cache.limit": "\(configuration.diskWaitLimit)"])
        }
        return (report, !source.isDiskAbandoned)
    }

    /// Waits, at most ``Configuration/diskWaitLimit`` in all, until the writes a synchronize caused
    /// have landed: the verdicts' on disk (unless the disk did not answer its reads), the withdrawal
    /// list it received, the queues of the players whose changes it sent.
    private func waitForWrites(disk waitsForDisk: Bool, withdrawals: Bool, playerQueues: Bool) async {
        let end = ContinuousClock.now + configuration.diskWaitLimit
        let waits: [(name: String, drained: (Duration) async -> Bool)?] = [
            waitsForDisk ? disk.map { disk in ("the disk tier", disk.flush(within:)) } : nil,
            withdrawals ? ("the withdrawal list", { [filter] in await filter.flush(within: $0) }) : nil,
            playerQueues ? players.queue.map { queue in ("the players' queues", queue.flush(within:)) } : nil,
        ]
        var late: [String] = []
        for case (let name, let drained)? in waits where !(await drained(max(end - .now, .zero))) { late.append(name) }
        if !late.isEmpty {
            logger.warning(
                "synchronize: its writes did not land within the limit; they land later",
                metadata: [
                    "cache.limit": "\(configuration.diskWaitLimit)", "cache.stores": "\(late.joined(separator: ", "))",
                ])
        }
    }

    /// ``Configuration/validationBatchSize`` within `1...CacheValidation.maxKeys`.
    private var validationBatchSize: Int {
        min(max(configuration.validationBatchSize, 1), CacheValidation.maxKeys)
    }

    /// Validates the keys that stale and bundled answers queued (``Configuration/refreshBatchWindow``)
    /// in one request: what the batch timer and ``waitForRefreshes()`` call.
    func validateQueued() async {
        let queued = scheduler.takeQueued()
        guard !queued.isEmpty else { return }
        var held: [CacheKey: Held] = [:]
        for key in queued {
            if let entry = heldEntry(key) { hold(entry, inMemory: true, in: &held) }
        }
        var source = HeldSource(held)
        await validate(&source, releasing: queued)
    }

    /// Sends what `source` holds in requests of at most ``Configuration/validationBatchSize`` keys,
    /// reading the disk's headers a batch at a time, and acts on the verdicts (see
    /// ``synchronize()``); `releasing` (keys taken from the queue) stop counting as refreshing once
    /// the verdicts are in.
    @discardableResult
    private func validate(_ source: inout HeldSource, releasing: Set<CacheKey>) async -> SynchronizationReport {
        var report = SynchronizationReport()
        let generation = writer.generation(of: .global)
        let batchSize = validationBatchSize
        let inlineBytes = max(configuration.validationInlineBytes, 0)
        // What is decided later: keys to fetch (with the entry memory held), and keys to refresh
        // one by one, those not fresh.
        var refetch: [(key: CacheKey, entry: CacheEntry?)] = []
        var fallback: [CacheKey] = []
        func fallBack(_ held: some Sequence<Held>) {
            let now = clock.now
            fallback += held.lazy.filter { !self.tiers.isFresh($0.stored, now: now) }.map(\.stored.key)
        }
        while true {
            if Task.isCancelled { report.isCancelled = true }
            if report.isCancelled { break }
            let batch = await nextBatch(of: batchSize, from: &source)
            guard let first = batch.first else { break }
            report.keys += batch.count
            let hashes = Dictionary(uniqueKeysWithValues: batch.map { ($0.stored.key.content, $0.stored.contentHash) })
            let verdicts: [SnapshotKey: UpstreamVerdict]
            do {
                let upstream = self.upstream
                let pageSize = self.pageSize
                let withdrawalSequence = self.withdrawalSequence
                guard
                    let answered = try await deadline.run(
                        first.stored.key,
                        {
                            try await upstream.validate(
                                contentHashes: hashes, pageSize: pageSize, inlineBytes: inlineBytes,
                                withdrawalSequence: withdrawalSequence)
                        })
                else {
                    report.isSupported = false
                    scheduler.stopBatching()
                    fallBack(batch)
                    continue
                }
                verdicts = answered.verdicts
                report.requests += 1
                receiveWithdrawals(answered.withdrawals, into: &report)
                statisticsCounter.record {
                    $0.upstreamCalls += 1
                    $0.validationRequests += 1
                }
            } catch is CancellationError where Task.isCancelled {
                // The caller's own cancellation, not an upstream failure: no fallback.
                report.requests += 1
                report.isCancelled = true
                break
            } catch {
                report.requests += 1
                report.failedRequests += 1
                statisticsCounter.record { $0.upstreamCalls += 1 }
                logger.info(
                    "bulk validation failed; refreshing key by key",
                    metadata: ["cache.keys": "\(batch.count)", "cache.error": "\(error)"])
                fallBack(batch)
                continue
            }
            var renewals: [(stored: DiskTier.Stored, etag: String?)] = []  // disk-only entries: one call
            for held in batch {
                let stored = held.stored
                let key = stored.key
                let inMemory = held.inMemory
                switch verdicts[key.content] {
                case .current(let etag)?:
                    let etag = etag ?? (stored.origin == .network ? stored.etag : nil)
                    if let entry = held.entry {
                        _ = writer.renew(entry, etag: etag, ifStill: generation, inMemory: inMemory)
                    } else {
                        renewals.append((stored, etag))
                    }
                    report.current += 1
                    statisticsCounter.record { $0.validatedCurrent += 1 }
                case .changed(let content?, let etag)? where (try? check(content, for: key)) != nil:
                    _ = writer.install(
                        content, etag: etag, for: key, replacing: held.entry ?? heldEntry(key),
                        ifStill: generation, inMemory: inMemory)
                    report.installed += 1
                    statisticsCounter.record { $0.validatedInline += 1 }
                case .changed?:
                    refetch.append((key, held.entry))
                case .removed?:
                    invalidate(key)
                    report.removed += 1
                case .unknown?, nil:
                    report.unanswered += 1
                    fallBack(CollectionOfOne(held))
                }
            }
            writer.renewOnDisk(renewals, ifStill: generation)
        }
        scheduler.release(releasing)
        if Task.isCancelled { report.isCancelled = true }
        if report.isCancelled {
            // Nothing more starts; the entries left undecided keep their age for the usual refresh.
            return report
        }
        await withTaskGroup(of: Bool.self) { group in
            for (key, entry) in refetch {
                let current = entry ?? heldEntry(key)
                group.addTask { (try? await self.fetch(key, current: current)) != nil }
            }
            for await fetched in group {
                report.refetched += 1
                if !fetched { report.failedFetches += 1 }
            }
        }
        statisticsCounter.record { $0.validatedRefetched += report.refetched }
        if Task.isCancelled {
            report.isCancelled = true
            return report
        }
        report.refreshedKeyByKey = await refreshKeyByKey(fallback)
        return report
    }

    /// Applies the withdrawal list a validation answer carried; a successful answer without one
    /// confirms the list held (and ends the conservative policy of a lost one).
    private func receiveWithdrawals(_ list: WithdrawalList?, into report: inout SynchronizationReport) {
        guard let list else {
            filter.confirmWithdrawals()
            return
        }
        do throws(WithdrawalListError) {
            report.withdrawnFrom += try applyWithdrawals(list)
            report.withdrawalSequence = list.sequence
        } catch  where error.code == .notNewer {
            filter.confirmWithdrawals()  // another batch's answer, or a push, brought it already
        } catch {
            logger.warning("the provider's withdrawal list was refused", metadata: ["cache.error": "\(error)"])
        }
    }

    /// The catalogue entries in memory to validate, with their content hashes: every global key
    /// there that the cache keeps (without counting an answer).
    private func heldInMemory() -> [CacheKey: Held] {
        var held: [CacheKey: Held] = [:]
        for entry in memory.entries(in: .global) { hold(entry, inMemory: true, in: &held) }
        return held
    }

    /// What validation holds for the disk entry `stored` (known by its header, its content not
    /// decoded), as a lookup would find it: `nil` when the cache does not keep its key, the bundle's
    /// entry when that is newer (``CacheTiers/bundledEntry(_:newerThan:)``, as `entryBelowMemory`).
    private func heldOnDisk(_ stored: DiskTier.Stored) -> Held? {
        guard tiers.isCached(stored.key) else { return nil }
        guard let newer = tiers.bundledEntry(stored.key, newerThan: stored.storedAt) else {
            return Held(stored: stored, entry: nil, inMemory: false)
        }
        return held(newer, inMemory: false)
    }

    /// The next batch of at most `size` entries from `source`: those memory held first, then the
    /// disk's, whose headers are read here, a batch at a time, so that a synchronize of thousands of
    /// entries never holds all their headers at once. Empty when `source` is spent.
    private func nextBatch(of size: Int, from source: inout HeldSource) async -> [Held] {
        var batch = source.take(size)
        while batch.count < size, let disk, !source.diskNames.isEmpty {
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
    private func heldEntry(_ key: CacheKey) -> CacheEntry? {
        tiers.shownEntry(key)
    }

    private func hold(_ entry: CacheEntry, inMemory: Bool, in held: inout [CacheKey: Held]) {
        if let found = self.held(entry, inMemory: inMemory) { held[entry.key] = found }
    }

    /// What validation holds for `entry`, with its content hash; `nil` when the cache does not keep its key.
    private func held(_ entry: CacheEntry, inMemory: Bool) -> Held? {
        guard tiers.isCached(entry.key), let hash = try? entry.contentHash() else { return nil }
        return Held(stored: DiskTier.Stored(entry, contentHash: hash), entry: entry, inMemory: inMemory)
    }

    /// An entry held: what validation sends and decides on (`stored`), the entry itself unless
    /// only the disk's header was read, and whether memory holds it (else only the disk does).
    private struct Held {
        var stored: DiskTier.Stored
        var entry: CacheEntry?
        var inMemory: Bool
    }

    /// What a validation has still to send: entries in hand (memory's, and queued stores), then the
    /// disk's files not read yet. A key is sent once: a disk file of a key in hand is passed over.
    private struct HeldSource {
        private var entries: [Held]
        private var seen: Set<CacheKey>
        /// The disk's global entry files whose headers are not read yet (``DiskTier/globalListing(readingFirst:within:)``).
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

    /// Refreshes `keys` one request each (the fallback when bulk validation cannot answer) and
    /// waits for them; returns how many refreshes started.
    private func refreshKeyByKey(_ keys: [CacheKey]) async -> Int {
        var tasks: [Task<Void, Never>] = []
        for key in keys {
            guard let entry = tiers.entry(key), let task = refreshInBackground(key, current: entry, batching: false)
            else {
                continue
            }
            tasks.append(task)
        }
        for task in tasks { await task.value }
        return tasks.count
    }
}
