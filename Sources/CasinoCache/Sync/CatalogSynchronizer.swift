@_spi(CatalogTools) import CasinoCatalog
import Logging
@_spi(CatalogTools) import ProviderAPI

/// Bulk validation (``CatalogCache/synchronize()``): one request tells the cache which of the
/// entries it holds are still current, instead of one refresh per key as each is next seen.
///
/// Reads what memory and the disk hold (``CatalogSynchronizer/HeldSource``), sends it a batch at a
/// time, and acts on each verdict through the collaborators the cache wires: renewals and installs
/// through ``CacheWriter``, refetches through ``CatalogFetcher``, the fallback through
/// ``RefreshScheduler``. Holds no state of its own: the queue of batched refreshes is the
/// scheduler's, whose batch timer calls ``validateQueued()``.
final class CatalogSynchronizer: Sendable {
    let upstream: any CatalogUpstream
    /// The deadline of each validation request.
    let deadline: UpstreamDeadline
    let tiers: CacheTiers
    let writer: CacheWriter
    let fetcher: CatalogFetcher
    let scheduler: RefreshScheduler
    /// Whose queued changes are sent meanwhile.
    let players: PlayerLists
    /// The withdrawals a validation answer carries are applied here, and announced through `answers`.
    let filter: GameFilter
    let answers: CacheAnswers
    let statistics: StatisticsCounter
    let clock: any CacheClock
    let logger: Logger

    init(
        upstream: any CatalogUpstream, deadline: UpstreamDeadline, tiers: CacheTiers, writer: CacheWriter,
        fetcher: CatalogFetcher, scheduler: RefreshScheduler, players: PlayerLists, filter: GameFilter,
        answers: CacheAnswers, statistics: StatisticsCounter, clock: any CacheClock, logger: Logger
    ) {
        self.upstream = upstream
        self.deadline = deadline
        self.tiers = tiers
        self.writer = writer
        self.fetcher = fetcher
        self.scheduler = scheduler
        self.players = players
        self.filter = filter
        self.answers = answers
        self.statistics = statistics
        self.clock = clock
        self.logger = logger
    }

    var configuration: CatalogCache.Configuration { tiers.configuration }

    /// ``CatalogCache/synchronize()``: validates what memory and the disk hold, sends the players'
    /// queued changes meanwhile, and waits for the writes both caused.
    func synchronize() async -> SynchronizationReport {
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
        if let disk = tiers.disk {
            if let listing = await disk.globalListing(within: configuration.diskWaitLimit) {
                source.diskNames = listing.names[...]
                for stored in listing.queued { source.add(heldOnDisk(stored)) }
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

    /// Waits, at most ``CatalogCache/Configuration/diskWaitLimit`` in all, until the writes a synchronize caused
    /// have landed: the verdicts' on disk (unless the disk did not answer its reads), the withdrawal
    /// list it received, the queues of the players whose changes it sent.
    private func waitForWrites(disk waitsForDisk: Bool, withdrawals: Bool, playerQueues: Bool) async {
        let end = ContinuousClock.now + configuration.diskWaitLimit
        let waits: [(name: String, drained: (Duration) async -> Bool)?] = [
            waitsForDisk ? tiers.disk.map { disk in ("the disk tier", disk.flush(within:)) } : nil,
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

    /// ``CatalogCache/Configuration/validationBatchSize`` within `1...CacheValidation.maxKeys`.
    private var validationBatchSize: Int {
        min(max(configuration.validationBatchSize, 1), CacheValidation.maxKeys)
    }

    /// Validates the keys that stale and bundled answers queued (``CatalogCache/Configuration/refreshBatchWindow``)
    /// in one request: what the batch timer and ``CatalogCache/waitForRefreshes()`` call.
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

    /// Sends what `source` holds in requests of at most
    /// ``CatalogCache/Configuration/validationBatchSize`` keys, reading the disk's headers a batch at
    /// a time, and acts on the verdicts (see ``CatalogCache/synchronize()``); `releasing` (keys taken
    /// from the queue) stop counting as refreshing once the verdicts are in.
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
                let pageSize = tiers.pageSize
                let withdrawalSequence = filter.withdrawalSequence
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
                statistics.record {
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
                statistics.record { $0.upstreamCalls += 1 }
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
                    statistics.record { $0.validatedCurrent += 1 }
                case .changed(let content?, let etag)? where (try? fetcher.check(content, for: key)) != nil:
                    _ = writer.install(
                        content, etag: etag, for: key, replacing: held.entry ?? heldEntry(key),
                        ifStill: generation, inMemory: inMemory)
                    report.installed += 1
                    statistics.record { $0.validatedInline += 1 }
                case .changed?:
                    refetch.append((key, held.entry))
                case .removed?:
                    tiers.memory.removeEntry(for: key)  // as ``CatalogCache/invalidate(_:)``
                    tiers.disk?.removeEntry(for: key)
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
                group.addTask { [fetcher] in (try? await fetcher.fetch(key, current: current)) != nil }
            }
            for await fetched in group {
                report.refetched += 1
                if !fetched { report.failedFetches += 1 }
            }
        }
        statistics.record { $0.validatedRefetched += report.refetched }
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
            // As ``CatalogCache/applyWithdrawals(_:)``.
            report.withdrawnFrom += answers.publish(
                try filter.changeWithdrawals { withdrawals throws(WithdrawalListError) in
                    try withdrawals.replace(with: list)
                })
            report.withdrawalSequence = list.sequence
        } catch  where error.code == .notNewer {
            filter.confirmWithdrawals()  // another batch's answer, or a push, brought it already
        } catch {
            logger.warning("the provider's withdrawal list was refused", metadata: ["cache.error": "\(error)"])
        }
    }

    /// Refreshes `keys` one request each (the fallback when bulk validation cannot answer) and
    /// waits for them; returns how many refreshes started.
    private func refreshKeyByKey(_ keys: [CacheKey]) async -> Int {
        var attempts: [RefreshScheduler.Attempt] = []
        for key in keys {
            guard let entry = tiers.entry(key),
                let attempt = scheduler.refresh(key, current: entry, batching: false, refreshWork)
            else {
                continue
            }
            attempts.append(attempt)
        }
        for attempt in attempts { await attempt.landed() }
        return attempts.count
    }

    /// What every background refresh runs, the cache's and this key-by-key fallback's: a key's fetch,
    /// started without a task of its own (its flight's is the one), a player's list through
    /// ``PlayerLists`` and the catalogue through ``CatalogFetcher``; a retry starts from what memory
    /// holds by then; queued keys are validated here.
    var refreshWork: RefreshScheduler.Work {
        RefreshScheduler.Work(
            start: { [players, fetcher] key, current, landed in
                if key.playerList != nil {
                    players.start(key, current: current, landed: landed)
                } else {
                    fetcher.start(key, current: current, landed: landed)
                }
            },
            latest: { [tiers] in tiers.memory.entry(for: $0) },
            validateQueued: { await self.validateQueued() })
    }
}
