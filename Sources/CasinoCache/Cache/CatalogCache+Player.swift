@_spi(Internals) public import CasinoCatalog
import CatalogSupport
import Foundation
import Logging
import ProviderAPI

/// The player's own lobby rows (seed 004): recently played and favourites, cached per player under
/// ``CacheScope/user(_:)``, fresh for ``Configuration/playerTTL`` (45 minutes), dropped on logout.
///
/// ```swift
/// upstream.signIn(player: id, sessionId: session)                        // after login
/// let first = cache.cachedPlayerList(.favourites, edition: edition, player: id)  // first frame
/// let rows = try await cache.playerList(.favourites, edition: edition, player: id)
/// await cache.clear(scope: .user(id))                                    // logout
/// ```
extension CatalogCache {
    /// A player's list from memory or disk, without waiting and without the network: `.fresh`
    /// within ``Configuration/playerTTL``, `.stale` after (show it while ``playerList(_:edition:player:)``
    /// fetches), `.miss` when nothing is cached. Changes not yet sent are shown in it.
    public func cachedPlayerList(_ list: PlayerList, edition: Edition, player: String) -> CacheResult<GamesPage> {
        guard Self.isUsablePlayerID(player) else { return .miss }
        loadQueueIfNeeded(player)
        return cachedContent(for: .playerList(list, edition: edition, player: player)).map(Self.page)
    }

    /// A player's list: fresh from memory or disk within ``Configuration/playerTTL``; after it, or
    /// on a miss, after waiting for the upstream. Old rows are answered (`.stale`) only when the
    /// upstream cannot be reached; a refused session (`401`/`403`) drops the player's rows and throws.
    ///
    /// - Throws: ``CacheError``: `.invalidRequest` for an unusable player id or an upstream that is
    ///   not a ``PlayerUpstream``; `.upstreamFailed` when nothing usable is cached and the upstream fails.
    public nonisolated(nonsending) func playerList(
        _ list: PlayerList, edition: Edition, player: String
    ) async throws -> CacheResult<GamesPage> {
        let key = CacheKey.playerList(list, edition: edition, player: player)
        try checkPlayerRequest(key)
        loadQueueIfNeeded(player)
        return try await content(for: key).map(Self.page)
    }

    /// The answer for a player's expired entry: a fresh fetch, or the old rows as `.stale` when
    /// the upstream cannot answer (offline). A refused session, or a cancelled caller, throws.
    nonisolated(nonsending) func expiredPlayerAnswer<Value: Sendable>(
        _ found: Found, for key: CacheKey, now: Date, _ extract: (CatalogContent) -> Value
    ) async throws -> CacheResult<Value> {
        do {
            let entry = try await fetch(key, current: found.entry)
            try Task.checkCancellation()
            return .fresh(extract(entry.content), metadata(entry, tier: .upstream, now: clock.now))
        } catch let error as CacheError where !Self.isUnauthorized(error) {
            logger.info("player content expired and the upstream failed; serving it stale", metadata: ["cache.key": "\(key)"])
            broadcaster.publish(CacheUpdate(key: key, event: .refreshFailed(error, attempt: 1, retryIn: nil)))
            return result(found, now: now, extract)
        }
    }

    // MARK: - Fetching

    /// Fetches a player list (the player-list branch of the single-flight fetch): through the
    /// ``PlayerUpstream``, checked against the list's rules, then installed under the player's
    /// pending changes (``installPlayerList(_:current:generation:settled:)``).
    func performPlayerListFetch(_ list: PlayerList, _ key: CacheKey, current: CacheEntry?) async throws -> CacheEntry {
        guard case .gamesPage(let edition, _, _) = key.content, let player = key.player else {
            throw CacheError(.invalidRequest, key: key, "not a player list key")
        }
        guard let upstream = upstream as? any PlayerUpstream else {
            throw CacheError(.invalidRequest, key: key, "the upstream serves no player lists: give the cache a PlayerUpstream")
        }
        let generation = state.withLock { state -> [Int] in
            state.statistics.upstreamCalls += 1
            return state.generation(of: key.scope)
        }
        let settled = overlay.withLock { $0.confirmed[key]?.settled ?? 0 }
        let limit = playerListLimit
        let etag = current?.etag
        let response: UpstreamResponse<GamesPage>
        do {
            response = try await withTimeout(key) {
                try await upstream.playerList(list, player: player, edition: edition, limit: limit, etag: etag)
            }
        } catch let error as CacheError {
            throw error
        } catch {
            let cacheError = CacheError(.upstreamFailed, key: key, "the upstream failed: \(error)", cause: error)
            if Self.isUnauthorized(cacheError) { dropPlayerRows(player, reason: cacheError) }
            throw cacheError
        }
        let fetched: CacheEntry
        switch response {
        case .notModified:
            guard let current, current.origin == .network, current.etag != nil else {
                throw CacheError(.notModifiedWithoutEntry, key: key, "the upstream answered not modified, but nothing is cached")
            }
            record { $0.notModified += 1 }
            fetched = CacheEntry(key: key, content: current.content, storedAt: clock.now, etag: current.etag, origin: .network)
        case .modified(let page, let etag):
            if let problem = page.playerListProblem(list, limit: limit) {
                throw CacheError(.invalidContent, key: key, "the upstream answered an unusable \(list) list: \(problem)")
            }
            fetched = CacheEntry(key: key, content: .gamesPage(page), storedAt: clock.now, etag: etag, origin: .network)
        }
        let shown = installPlayerList(fetched, current: current, generation: generation, settled: settled)
        // The upstream answers: send what waits.
        startSender(for: player, force: true)
        return shown
    }

    /// Makes `fetched` the server's word on its list and shows it with the player's pending changes
    /// on top, unless the cache was cleared since the fetch started, or a change's answer (newer
    /// than this fetch) arrived meanwhile. Held like any refresh when ``HeldUpdates`` says so and
    /// no change is pending. Returns what the list shows.
    func installPlayerList(_ fetched: CacheEntry, current: CacheEntry?, generation: [Int], settled: Int) -> CacheEntry {
        let key = fetched.key
        let player = key.player ?? ""
        let shownBefore = memory.peek(key) ?? storedEntryBelowMemory(key)?.0 ?? current
        guard state.withLock({ $0.generation(of: key.scope) }) == generation else { return fetched }
        let outcome = overlay.withLock { overlay -> (shown: CacheEntry, hasPending: Bool)? in
            if let confirmed = overlay.confirmed[key], confirmed.settled != settled { return nil }
            let pending = overlay.pending[player] ?? []
            let hasPending = pending.contains { $0.key == key }
            if hasPending || overlay.confirmed[key] != nil {
                overlay.confirmed[key] = Confirmed(entry: fetched, isVerified: true, settled: settled)
            }
            return (Self.composed(key, confirmed: fetched, pending: pending), hasPending)
        }
        guard let outcome else { return shownBefore ?? fetched }
        if let shownBefore, shownBefore.origin == .network, shownBefore.content != outcome.shown.content, !outcome.hasPending,
            configuration.heldUpdates.holds(key)
        {
            return hold(outcome.shown, showing: shownBefore, ifStill: generation, inMemory: true)
        }
        show(outcome.shown, replacing: shownBefore, ifStill: generation)
        return outcome.shown
    }

    /// Stores `entry` (unless the scope was cleared since `generation`) and announces it when its
    /// content differs from `previous`'s (a first fetch announces every id as inserted).
    func show(_ entry: CacheEntry, replacing previous: CacheEntry?, ifStill generation: [Int]) {
        guard state.withLock({ $0.generation(of: entry.key.scope) }) == generation else { return }
        store(entry, ifStill: generation)
        guard previous?.content != entry.content else { return }
        record { $0.updatesEmitted += 1 }
        broadcaster.publish(CacheUpdate(key: entry.key, event: .updated(entry.content, ContentChanges(from: previous?.content, to: entry.content))))
    }

    // MARK: - Players

    /// Drops a player's cached rows in memory and on disk after the server refused their session
    /// (`401`/`403`): they must not be served to whoever uses the app next. Fetches in flight
    /// store nothing. Their unsent changes stay queued for when they sign in again (logout,
    /// ``clear(scope:)``, drops those).
    func dropPlayerRows(_ player: String, reason: CacheError) {
        let scope = CacheScope.user(player)
        state.withLock { $0.generations[scope, default: 0] += 1 }
        overlay.withLock { overlay in
            for key in overlay.confirmed.keys where key.scope == scope { overlay.confirmed[key] = nil }
            for key in overlay.held.keys where key.scope == scope { overlay.held[key] = nil }
        }
        memory.removeAll(in: scope)
        disk?.removeAll(in: scope)
        logger.info("the server refused the player's session; their cached rows are dropped", metadata: ["cache.error": "\(reason.message)"])
    }

    /// Forgets the players of `scope` (every player for `nil`): unsent changes (their callers get
    /// `.mutationDropped`), queue files, held updates, senders and retry timers.
    func forgetPlayers(in scope: CacheScope?) {
        let isMatch = { (player: String) in scope == nil || scope == .user(player) }
        let (waiters, tasks, players) = overlay.withLock { overlay in
            var players = Set(overlay.pending.keys).union(overlay.loadedPlayers).filter(isMatch)
            if case .user(let id)? = scope { players.insert(id) }
            var waiters: [(CheckedContinuation<MutationOutcome, any Error>, Result<MutationOutcome, CacheError>)] = []
            for player in players {
                for mutation in overlay.pending.removeValue(forKey: player) ?? [] {
                    let error = CacheError(.mutationDropped, key: mutation.key, "the player's data was cleared (logout) before the change was sent")
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
            for key in overlay.held.keys where scope == nil || key.scope == scope { overlay.held[key] = nil }
            return (waiters, tasks, players)
        }
        for task in tasks { task.cancel() }
        Self.resume(waiters)
        if scope == nil {
            mutationQueue?.removeAll()
        } else {
            for player in players { mutationQueue?.save([], player: player) }
        }
    }

    /// Reads `player`'s queue file once per process and shows what it holds on their lists (a
    /// previous run's changes, applied again on what the tiers hold: changes are idempotent). It
    /// sends nothing: reads call it, and a read returns what is there. The changes go out on the
    /// next trigger (a change, a fetch of the player's list, ``sendPendingMutations()``,
    /// ``synchronize()``).
    func loadQueueIfNeeded(_ player: String) {
        guard overlay.withLock({ $0.loadedPlayers.insert(player).inserted }) else { return }
        let loaded = mutationQueue?.load(player: player) ?? []
        if let mutationQueue {
            let corrupt = mutationQueue.corruptFiles
            overlay.withLock { $0.statistics.corruptQueueFiles = corrupt }
        }
        guard !loaded.isEmpty else { return }
        let keys = Set(loaded.map(\.key))
        let generation = state.withLock { $0.generation(of: .user(player)) }
        var bases: [CacheKey: CacheEntry] = [:]
        for key in keys { bases[key] = storedEntry(key) ?? emptyPlayerEntry(key) }
        let shown = overlay.withLock { overlay -> [(CacheEntry, CacheEntry)] in
            overlay.pending[player] = loaded + (overlay.pending[player] ?? [])
            let pending = overlay.pending[player]!
            return keys.map { key in
                let base = overlay.confirmed[key]?.entry ?? bases[key]!
                if overlay.confirmed[key] == nil { overlay.confirmed[key] = Confirmed(entry: base, isVerified: false, settled: 0) }
                return (Self.composed(key, confirmed: base, pending: pending), bases[key]!)
            }
        }
        for (entry, previous) in shown { show(entry, replacing: previous, ifStill: generation) }
        logger.info("player changes from a previous run queued again", metadata: ["cache.mutations": "\(loaded.count)"])
    }

    /// An empty list stored long ago: what a change builds on when nothing is cached (a read
    /// still fetches the real list).
    func emptyPlayerEntry(_ key: CacheKey) -> CacheEntry {
        CacheEntry(
            key: key, content: .gamesPage(.emptyPlayerList(key.playerList ?? .favourites, limit: playerListLimit)),
            storedAt: .distantPast, etag: nil, origin: .network)
    }

    /// ``Configuration/playerListLimit`` within 1...1000.
    var playerListLimit: Int { min(max(configuration.playerListLimit, 1), CatalogRules.maxPageSize) }

    /// Refuses a request that cannot name a player's list: an unusable player id or an upstream
    /// without player routes.
    func checkPlayerRequest(_ key: CacheKey) throws {
        guard let player = key.player, Self.isUsablePlayerID(player) else {
            throw CacheError(.invalidRequest, key: key, "a player id must be 1...\(PlayerRequest.maxPlayerIDBytes) bytes")
        }
        guard upstream is any PlayerUpstream else {
            throw CacheError(.invalidRequest, key: key, "the upstream serves no player lists: give the cache a PlayerUpstream")
        }
    }

    static func isUsablePlayerID(_ player: String) -> Bool {
        (1...PlayerRequest.maxPlayerIDBytes).contains(player.utf8.count)
    }

    static func isUnauthorized(_ error: CacheError) -> Bool {
        (error.cause as? UpstreamError)?.code == .unauthorized
    }

    static func page(_ content: CatalogContent) -> GamesPage {
        if case .gamesPage(let page) = content { return page }
        return GamesPage(categoryId: "", offset: 0, limit: 0, total: 0, items: [])
    }
}
