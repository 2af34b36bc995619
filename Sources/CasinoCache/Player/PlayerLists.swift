@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation
import Logging
@_spi(CatalogTools) import ProviderAPI

/// A player's own lobby rows (recently played, favourites): fetched through the single-flight
/// path, shown with the player's changes not yet settled on top, and those changes sent, in order,
/// by a sender per player, kept in a durable queue while the upstream cannot be reached.
///
/// Owns the overlay (``PlayerOverlay``: pending changes, the server's last word per list, senders,
/// retries, waiting callers) behind its own lock, apart from the fetch state, so a change never
/// waits for the hot read path and the reverse. What the tiers hold is written through
/// ``CacheWriter``.
final class PlayerLists: Sendable {
    let upstream: any CatalogUpstream
    /// Where unsent changes survive a restart, when the cache persists.
    let queue: PlayerMutationQueue?
    let overlay = Locked(PlayerOverlay())
    let tiers: CacheTiers
    let writer: CacheWriter
    let flights: FetchFlights
    let scheduler: RefreshScheduler
    /// The deadline of a change's request.
    let deadline: UpstreamDeadline
    let statistics: StatisticsCounter
    let clock: any CacheClock
    let logger: Logger

    init(
        upstream: any CatalogUpstream, queue: PlayerMutationQueue?, tiers: CacheTiers, writer: CacheWriter,
        flights: FetchFlights, scheduler: RefreshScheduler, deadline: UpstreamDeadline, statistics: StatisticsCounter,
        clock: any CacheClock, logger: Logger
    ) {
        self.upstream = upstream
        self.queue = queue
        self.tiers = tiers
        self.writer = writer
        self.flights = flights
        self.scheduler = scheduler
        self.deadline = deadline
        self.statistics = statistics
        self.clock = clock
        self.logger = logger
    }

    var configuration: CatalogCache.Configuration { tiers.configuration }

    // MARK: - Fetching

    /// Fetches a player list through the single-flight path (``FetchFlights``, which holds it to
    /// its deadline), joining a fetch in flight for it.
    nonisolated(nonsending) func fetch(_ key: CacheKey, current: CacheEntry?) async throws -> CacheEntry {
        try await flights.entry(for: key) { gate in try await self.fetchList(key, current: current, gate: gate) }
    }

    /// ``fetch(_:current:)`` for a caller that does not wait: `landed` is called with its result.
    func start(
        _ key: CacheKey, current: CacheEntry?, landed: @escaping @Sendable (Result<CacheEntry, any Error>) -> Void
    ) {
        flights.start(
            for: key, fetch: { gate in try await self.fetchList(key, current: current, gate: gate) }, landed: landed)
    }

    /// One fetch of a player list: through the ``PlayerUpstream``, checked against the list's
    /// rules, then installed under the player's pending changes
    /// (``installList(_:current:generation:settled:)``).
    private func fetchList(_ key: CacheKey, current: CacheEntry?, gate: CommitGate) async throws -> CacheEntry {
        guard let list = key.playerList, case .gamesPage(let edition, _, _) = key.content, let player = key.player
        else {
            throw CacheError(.invalidRequest, key: key, "not a player list key")
        }
        guard let upstream = upstream as? any PlayerUpstream else {
            throw CacheError(
                .invalidRequest, key: key, "the upstream serves no player lists: give the cache a PlayerUpstream")
        }
        let generation = writer.generation(of: key.scope)
        statistics.record { $0.upstreamCalls += 1 }
        let settled = overlay.withLock { $0.confirmed[key]?.settled ?? 0 }
        let limit = listLimit
        let response: UpstreamResponse<GamesPage>
        do {
            response = try await upstream.playerList(
                list, player: player, edition: edition, limit: limit, etag: current?.etag)
        } catch let error as CacheError {
            throw error
        } catch {
            let cacheError = CacheError(.upstreamFailed, key: key, "the upstream failed: \(error)", cause: error)
            if Self.isUnauthorized(cacheError) { dropRows(player, reason: cacheError) }
            throw cacheError
        }
        let fetched: CacheEntry
        switch response {
        case .notModified:
            guard let current, current.origin == .network, current.etag != nil else {
                throw CacheError(
                    .notModifiedWithoutEntry, key: key, "the upstream answered not modified, but nothing is cached")
            }
            statistics.record { $0.notModified += 1 }
            fetched = CacheEntry(
                key: key, content: current.content, storedAt: clock.now, etag: current.etag, origin: .network)
        case .modified(let page, let etag):
            if let problem = page.playerListProblem(list, limit: limit) {
                throw CacheError(
                    .invalidContent, key: key, "the upstream answered an unusable \(list) list: \(problem)")
            }
            fetched = CacheEntry(key: key, content: .gamesPage(page), storedAt: clock.now, etag: etag, origin: .network)
        }
        guard gate.commit() else { throw CancellationError() }
        let shown = installList(fetched, current: current, generation: generation, settled: settled)
        // The upstream answers: send what waits.
        startSender(for: player, force: true)
        return shown
    }

    /// Makes `fetched` the server's word on its list and shows it with the player's pending changes
    /// on top, unless the cache was cleared since the fetch started, or a change's answer (newer
    /// than this fetch) arrived meanwhile. Held like any refresh when ``HeldUpdates`` says so and
    /// no change is pending. Returns what the list shows.
    func installList(
        _ fetched: CacheEntry, current: CacheEntry?, generation: CacheWriter.Generation, settled: Int
    ) -> CacheEntry {
        let key = fetched.key
        let player = key.player ?? ""
        let shownBefore = tiers.shownEntry(key) ?? current
        guard writer.generation(of: key.scope) == generation else { return fetched }
        let outcome = overlay.withLock { overlay -> (shown: CacheEntry, hasPending: Bool)? in
            if let confirmed = overlay.confirmed[key], confirmed.settled != settled { return nil }
            let pending = overlay.pending[player] ?? []
            let hasPending = pending.contains { $0.key == key }
            if hasPending || overlay.confirmed[key] != nil {
                overlay.confirmed[key] = PlayerOverlay.Confirmed(entry: fetched, isVerified: true, settled: settled)
            }
            return (PlayerOverlay.composed(key, confirmed: fetched, pending: pending), hasPending)
        }
        guard let outcome else { return shownBefore ?? fetched }
        if let shownBefore, shownBefore.origin == .network, shownBefore.content != outcome.shown.content,
            !outcome.hasPending,
            configuration.heldUpdates.holds(key)
        {
            return writer.hold(outcome.shown, showing: shownBefore, ifStill: generation, inMemory: true)
        }
        writer.show(outcome.shown, replacing: shownBefore, ifStill: generation)
        return outcome.shown
    }

    // MARK: - Players

    /// Drops a player's cached rows in memory and on disk after the server refused their session
    /// (`401`/`403`): they must not be served to whoever uses the app next. Fetches in flight
    /// store nothing. Their unsent changes stay queued for when they sign in again (logout,
    /// ``clear(scope:)``, drops those).
    func dropRows(_ player: String, reason: CacheError) {
        let scope = CacheScope.user(player)
        overlay.withLock { overlay in
            for key in overlay.confirmed.keys where key.scope == scope { overlay.confirmed[key] = nil }
        }
        writer.drop(scope)
        logger.info(
            "the server refused the player's session; their cached rows are dropped",
            metadata: ["cache.error": "\(reason.message)"])
    }

    /// Forgets the players of `scope` (every player for `nil`): unsent changes (their callers get
    /// `.mutationDropped`), queue files, held updates, senders and retry timers.
    func forget(in scope: CacheScope?) {
        let isMatch = { (player: String) in scope == nil || scope == .user(player) }
        let (waiters, tasks, players) = overlay.withLock { overlay in
            var players = Set(overlay.pending.keys).union(overlay.loadedPlayers).filter(isMatch)
            if case .user(let id)? = scope { players.insert(id) }
            var waiters: [(CheckedContinuation<MutationOutcome, any Error>, Result<MutationOutcome, CacheError>)] = []
            for player in players {
                for mutation in overlay.pending.removeValue(forKey: player) ?? [] {
                    let error = CacheError(
                        .mutationDropped, key: mutation.key,
                        "the player's data was cleared (logout) before the change was sent")
                    if let waiter = overlay.settle(mutation.id, with: .failure(error)) { waiters.append(waiter) }
                }
                overlay.inFlight[player] = nil
                overlay.parked.remove(player)
                overlay.failedSends[player] = nil
                overlay.loadedPlayers.remove(player)
            }
            var tasks = players.compactMap { overlay.retries.removeValue(forKey: $0) }
            tasks += players.compactMap { overlay.senders.removeValue(forKey: $0)?.task }
            for key in overlay.confirmed.keys where key.player.map(isMatch) ?? false { overlay.confirmed[key] = nil }
            return (waiters, tasks, players)
        }
        for task in tasks { task.cancel() }
        PlayerOverlay.resume(waiters)
        if scope == nil {
            queue?.removeAll()
        } else {
            for player in players { queue?.save([], player: player) }
        }
    }

    /// Reads `player`'s queue file once per process and shows what it holds on their lists (a
    /// previous run's changes, applied again on what the tiers hold: changes are idempotent). It
    /// sends nothing: reads call it, and a read returns what is there. The changes go out on the
    /// next trigger (a change, a fetch of the player's list, ``sendPendingMutations()``,
    /// ``synchronize()``).
    func loadQueueIfNeeded(_ player: String) {
        guard overlay.withLock({ $0.loadedPlayers.insert(player).inserted }) else { return }
        let loaded = queue?.load(player: player) ?? []
        if let queue {
            let corrupt = queue.corruptFiles
            overlay.withLock { $0.statistics.corruptQueueFiles = corrupt }
        }
        guard !loaded.isEmpty else { return }
        let keys = Set(loaded.map(\.key))
        let generation = writer.generation(of: .user(player))
        var bases: [CacheKey: CacheEntry] = [:]
        for key in keys { bases[key] = tiers.entry(key) ?? emptyEntry(key) }
        let shown = overlay.withLock { overlay -> [(CacheEntry, CacheEntry)] in
            overlay.pending[player] = loaded + (overlay.pending[player] ?? [])
            let pending = overlay.pending[player]!
            return keys.map { key in
                let base = overlay.confirmed[key]?.entry ?? bases[key]!
                if overlay.confirmed[key] == nil {
                    overlay.confirmed[key] = PlayerOverlay.Confirmed(entry: base, isVerified: false, settled: 0)
                }
                return (PlayerOverlay.composed(key, confirmed: base, pending: pending), bases[key]!)
            }
        }
        for (entry, previous) in shown { writer.show(entry, replacing: previous, ifStill: generation) }
        logger.info("player changes from a previous run queued again", metadata: ["cache.mutations": "\(loaded.count)"])
    }

    /// An empty list stored long ago: what a change builds on when nothing is cached (a read
    /// still fetches the real list).
    func emptyEntry(_ key: CacheKey) -> CacheEntry {
        CacheEntry(
            key: key, content: .gamesPage(.emptyPlayerList(key.playerList ?? .favourites, limit: listLimit)),
            storedAt: .distantPast, etag: nil, origin: .network)
    }

    /// ``Configuration/listLimit`` within 1...1000.
    var listLimit: Int { min(max(configuration.playerListLimit, 1), CatalogRules.maxPageSize) }

    /// Refuses a request that cannot name a player's list: an unusable player id or an upstream
    /// without player routes.
    func checkRequest(_ key: CacheKey) throws {
        guard let player = key.player, Self.isUsablePlayerID(player) else {
            throw CacheError(
                .invalidRequest, key: key, "a player id must be 1...\(PlayerRequest.maxPlayerIDBytes) bytes")
        }
        guard upstream is any PlayerUpstream else {
            throw CacheError(
                .invalidRequest, key: key, "the upstream serves no player lists: give the cache a PlayerUpstream")
        }
    }

    static func isUsablePlayerID(_ player: String) -> Bool {
        (1...PlayerRequest.maxPlayerIDBytes).contains(player.utf8.count)
    }

    static func isUnauthorized(_ error: CacheError) -> Bool {
        (error.cause as? UpstreamError)?.code == .unauthorized
    }
}
