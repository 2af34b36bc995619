@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation
import Logging
@_spi(CatalogTools) import ProviderAPI

/// The per-player sender of player mutations: one change at a time, in order, each on disk
/// before it is sent (see ``CatalogCache`` `+Player.swift` for what each answer does).
extension PlayerLists {
    /// Starts `player`'s sender unless one runs or nothing waits, and returns it. A player whose
    /// last send could not reach the upstream is parked: without `force`, their changes stay
    /// queued (waiting callers learn `.queued`) until a retry, a successful fetch, or
    /// ``sendPendingMutations()``.
    @discardableResult
    func startSender(for player: String, force: Bool) -> Task<Void, Never>? {
        let (task, waiters) = overlay.withLock { overlay -> (Task<Void, Never>?, [Settled]) in
            if let running = overlay.senders[player] { return (running.task, []) }
            let pending = overlay.pending[player] ?? []
            guard !pending.isEmpty else { return (nil, []) }
            if overlay.parked.contains(player) && !force {
                return (nil, pending.compactMap { overlay.settle($0.id, with: .success(.queued)) })
            }
            overlay.parked.remove(player)
            overlay.retries.removeValue(forKey: player)?.cancel()
            overlay.nextSenderToken += 1
            let token = overlay.nextSenderToken
            let task = Task { await self.drain(player, token: token) }
            overlay.senders[player] = (token, task)
            return (task, [])
        }
        PlayerOverlay.resume(waiters)
        return task
    }

    typealias Settled = (CheckedContinuation<MutationOutcome, any Error>, Result<MutationOutcome, CacheError>)

    /// Sends the player's changes in order until none is left, the upstream cannot be reached, or
    /// the sender is replaced (logout).
    private func drain(_ player: String, token: UInt64) async {
        guard let upstream = upstream as? any PlayerUpstream else { return }
        let limit = listLimit
        while true {
            let next = overlay.withLock { overlay -> PlayerMutation? in
                guard overlay.senders[player]?.token == token else { return nil }
                guard let head = overlay.pending[player]?.first else {
                    overlay.senders[player] = nil
                    return nil
                }
                overlay.inFlight[player] = head.id
                return head
            }
            guard let mutation = next else { return }
            await queue?.flush()  // on disk before it is sent
            let generation = writer.generation(of: .user(player))
            do {
                let page = try await deadline.run(mutation.key) { try await upstream.send(mutation, limit: limit) }
                let usable = page.playerListProblem(.favourites, limit: limit) == nil ? page : nil
                if usable == nil {
                    logger.info(
                        "a favourites change answered an unusable list; refetching it",
                        metadata: ["cache.key": "\(mutation.key)"])
                }
                settleApplied(mutation, answer: usable, generation: generation, token: token)
            } catch {
                let cacheError =
                    error as? CacheError
                    ?? CacheError(.upstreamFailed, key: mutation.key, "the upstream failed: \(error)", cause: error)
                let upstreamCode = (cacheError.cause as? UpstreamError)?.code
                switch upstreamCode {
                case .server?, .client?, .invalidResponse?:
                    let refused = CacheError(
                        .mutationRejected, key: mutation.key,
                        "the server refused the change (\(cacheError.cause.map { "\($0)" } ?? cacheError.message)); it was undone",
                        cause: cacheError.cause)
                    settleRejected(
                        mutation, error: refused, generation: generation, token: token,
                        mayHaveApplied: upstreamCode == .invalidResponse)
                case .unauthorized?:
                    dropRows(player, reason: cacheError)
                    park(player, token: token, after: cacheError, retrying: false)
                    return
                default:
                    // Offline, timed out, rate limited, cancelled: keep it for later.
                    park(player, token: token, after: cacheError, retrying: true)
                    return
                }
            }
        }
    }

    /// The upstream applied `mutation`: its answer becomes the list's truth, the changes still
    /// pending go on top, and an update follows only if that differs from what is shown.
    private func settleApplied(
        _ mutation: PlayerMutation, answer: GamesPage?, generation: CacheWriter.Generation, token: UInt64
    ) {
        let key = mutation.key
        let player = mutation.player
        guard writer.generation(of: key.scope) == generation else { return }
        let now = clock.now
        let empty = emptyEntry(key)
        let settled = overlay.withLock { overlay -> (CacheEntry, CacheEntry, [PlayerMutation], Settled?)? in
            guard overlay.senders[player]?.token == token else { return nil }
            let (oldPending, pending) = overlay.take(mutation)
            overlay.statistics.applied += 1
            let old = overlay.confirmed[key] ?? PlayerOverlay.Confirmed(entry: empty, isVerified: false, settled: 0)
            var truth = PlayerOverlay.composed(key, confirmed: old.entry, pending: [mutation])
            if let answer {
                truth = CacheEntry(key: key, content: .gamesPage(answer), storedAt: now, etag: nil, origin: .network)
            }
            overlay.confirmed[key] = PlayerOverlay.Confirmed(
                entry: truth, isVerified: answer != nil, settled: old.settled + 1)
            let previous = PlayerOverlay.composed(key, confirmed: old.entry, pending: oldPending)
            let shown = PlayerOverlay.composed(key, confirmed: truth, pending: pending)
            let waiter = overlay.settle(
                mutation.id, with: .success(.applied(tiers.answers.value(of: truth.content, CatalogCache.gamesPage))))
            return (shown, previous, pending, waiter)
        }
        guard let (shown, previous, pending, waiter) = settled else { return }
        queue?.save(pending, player: player)
        writer.show(shown, replacing: previous, ifStill: generation)
        if let waiter { PlayerOverlay.resume([waiter]) }
        // The favourites of the player's other editions changed too: refetch them when next read.
        for entry in tiers.memory.entries(in: key.scope) where entry.key.playerList == .favourites && entry.key != key {
            guard overlay.withLock({ $0.confirmed[entry.key] == nil }) else { continue }
            var expired = entry
            expired.storedAt = .distantPast
            expired.etag = nil
            writer.store(expired, ifStill: generation)
        }
        if answer == nil { refetch(key) }
    }

    /// The server refused `mutation`: the list goes back to what it was without it (one update)
    /// and the failure is reported.
    private func settleRejected(
        _ mutation: PlayerMutation, error: CacheError, generation: CacheWriter.Generation, token: UInt64,
        mayHaveApplied: Bool
    ) {
        let key = mutation.key
        let player = mutation.player
        guard writer.generation(of: key.scope) == generation else { return }
        let empty = emptyEntry(key)
        let settled = overlay.withLock { overlay -> (CacheEntry, CacheEntry, [PlayerMutation], Settled?, Bool)? in
            guard overlay.senders[player]?.token == token else { return nil }
            let (oldPending, pending) = overlay.take(mutation)
            overlay.statistics.rejected += 1
            let confirmed =
                overlay.confirmed[key] ?? PlayerOverlay.Confirmed(entry: empty, isVerified: false, settled: 0)
            if mayHaveApplied { overlay.confirmed[key]?.isVerified = false }
            let previous = PlayerOverlay.composed(key, confirmed: confirmed.entry, pending: oldPending)
            let shown = PlayerOverlay.composed(key, confirmed: confirmed.entry, pending: pending)
            let waiter = overlay.settle(mutation.id, with: .failure(error))
            return (shown, previous, pending, waiter, mayHaveApplied || !confirmed.isVerified)
        }
        guard let (shown, previous, pending, waiter, mustRefetch) = settled else { return }
        queue?.save(pending, player: player)
        writer.show(shown, replacing: previous, ifStill: generation)
        logger.info(
            "player change refused by the server; undone",
            metadata: ["cache.key": "\(key)", "cache.error": "\(error.message)"])
        tiers.answers.publish(CacheUpdate(key: key, event: .mutationFailed(mutation, error)))
        if let waiter { PlayerOverlay.resume([waiter]) }
        // The list the change was undone onto was never confirmed by the server in this run
        // (read from the tiers, or empty): ask the server what it holds (TanStack's invalidate on settle).
        if mustRefetch { refetch(key) }
    }

    /// Parks the player's sender after a send that could not reach the upstream: their changes
    /// stay shown and queued; callers waiting learn `.queued`; a retry follows the backoff.
    private func park(_ player: String, token: UInt64, after error: CacheError, retrying: Bool) {
        let waiters = overlay.withLock { overlay -> [Settled] in
            guard overlay.senders[player]?.token == token else { return [] }
            overlay.senders[player] = nil
            overlay.inFlight[player] = nil
            overlay.parked.insert(player)
            overlay.statistics.deferredSends += 1
            let attempt = (overlay.failedSends[player] ?? 0) + 1
            overlay.failedSends[player] = attempt
            let delay = configuration.retry.delay(
                afterAttempt: attempt, unit: Double.random(in: 0..<1),
                retryAfter: (error.cause as? UpstreamError)?.retryAfter)
            if retrying, let delay {
                let clock = self.clock
                overlay.retries[player] = Task {
                    do { try await clock.sleep(for: delay) } catch { return }
                    self.startSender(for: player, force: true)
                }
            }
            return (overlay.pending[player] ?? []).compactMap { overlay.settle($0.id, with: .success(.queued)) }
        }
        logger.info(
            "player changes kept queued: the upstream cannot be reached",
            metadata: ["cache.error": "\(error.message)"])
        PlayerOverlay.resume(waiters)
    }

    /// Fetches `key` again in the background (waited for by ``waitForRefreshes()``).
    private func refetch(_ key: CacheKey) {
        scheduler.run { _ = try? await self.fetch(key, current: nil) }
    }
}
