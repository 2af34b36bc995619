@_spi(Internals) public import CasinoCatalog
import CatalogSupport
import Foundation
import Logging

/// Optimistic player mutations (TanStack Query's `onMutate` snapshot, rollback on error, no
/// refetch overwriting the change, the server's answer on settle), with a durable offline queue.
///
/// A change shows at once (one `.updated` on the stream), is written to the player's queue file,
/// and is sent, one at a time and in order, by the player's sender:
///
/// - applied: the server's answer (the list after the change) becomes the list's truth, with
///   later changes still pending applied on top; an update follows only if that differs from what
///   is shown (the server wins);
/// - refused by the server (`4xx`, `5xx`, an unusable answer): undone exactly (one `.updated` back
///   to the list without it) and reported (`.mutationFailed`);
/// - the upstream cannot be reached (offline, timed out, `429`, signed out): the change stays shown
///   and queued, and is sent after a backoff, on ``sendPendingMutations()``, ``refreshStale()``,
///   ``synchronize()``, the player's next change, or the next successful fetch of the player's lists (after a relaunch too:
///   reading the queue or the lists sends nothing).
///
/// A refresh that was in flight when a change was made cannot undo it: fetched lists are
/// installed under the pending changes, and a fetch older than a change's answer is dropped.
/// `PUT` and `DELETE` are idempotent, so a change replayed after a crash (sent, but its removal
/// from the queue not yet written) leaves the server as it was.
extension CatalogCache {
    /// Adds `game` to the front of the player's favourites at once, then sends the change.
    ///
    /// ```swift
    /// let outcome = try await cache.addFavourite(game, edition: edition, player: id)  // shown before this returns
    /// ```
    ///
    /// - Returns: ``MutationOutcome/applied(_:)`` with the server's list, or ``MutationOutcome/queued``
    ///   when the upstream cannot be reached (the change stays shown and is sent later). Cancelling
    ///   the calling task does not cancel the change.
    /// - Throws: ``CacheError``: `.mutationRejected` when the server refused it (undone),
    ///   `.mutationDropped` when the queue dropped it or the player logged out, `.invalidRequest`
    ///   for an unusable player id or game, or an upstream without player routes.
    @discardableResult
    public func addFavourite(_ game: Game, edition: Edition, player: String) async throws -> MutationOutcome {
        try await mutate(
            PlayerMutation(kind: .addFavourite, player: player, edition: edition, gameId: game.id, game: game, createdAt: clock.now))
    }

    /// Removes a game from the player's favourites at once, then sends the change (see
    /// ``addFavourite(_:edition:player:)``).
    @discardableResult
    public func removeFavourite(gameId: String, edition: Edition, player: String) async throws -> MutationOutcome {
        try await mutate(PlayerMutation(kind: .removeFavourite, player: player, edition: edition, gameId: gameId, createdAt: clock.now))
    }

    /// The player's changes not yet applied by the upstream, oldest first (those a previous launch
    /// queued included). A read: it sends nothing.
    public func pendingMutations(player: String) -> [PlayerMutation] {
        guard Self.isUsablePlayerID(player) else { return [] }
        loadQueueIfNeeded(player)
        return overlay.withLock { $0.pending[player] ?? [] }
    }

    /// Sends every player's queued changes now (call it when the app learns the network is back;
    /// ``refreshStale()`` does), and returns when the senders stop: the queues are empty, or the
    /// upstream still cannot be reached.
    public func sendPendingMutations() async {
        let players = overlay.withLock { Array($0.pending.filter { !$0.value.isEmpty }.keys) }
        for player in players { await startSender(for: player, force: true)?.value }
    }

    /// What the player mutations have done so far.
    public func mutationStatistics() -> MutationStatistics {
        var statistics = overlay.withLock { $0.statistics }
        statistics.corruptQueueFiles = mutationQueue?.corruptFiles ?? 0
        statistics.queueWriteFailures = mutationQueue?.writeFailures ?? 0
        return statistics
    }

    // MARK: - Making a change

    private func mutate(_ mutation: PlayerMutation) async throws -> MutationOutcome {
        let key = mutation.key
        try checkPlayerRequest(key)
        if let problem = mutation.problem(expectedPlayer: mutation.player) {
            throw CacheError(.invalidRequest, key: key, "unusable change: \(problem)")
        }
        let player = mutation.player
        loadQueueIfNeeded(player)
        let generation = state.withLock { $0.generation(of: key.scope) }
        let base = storedEntry(key) ?? emptyPlayerEntry(key)
        let bound = max(configuration.maxQueuedMutations, 1)
        let change = overlay.withLock { overlay -> Change in
            overlay.held[key] = nil  // a refresh held back is older than this change
            overlay.statistics.made += 1
            overlay.awaited.insert(mutation.id)
            let oldPending = overlay.pending[player] ?? []
            var pending = oldPending + [mutation]
            var dropped: [PlayerMutation] = []
            while pending.count > bound, let index = pending.firstIndex(where: { $0.id != overlay.inFlight[player] }) {
                dropped.append(pending.remove(at: index))
            }
            overlay.pending[player] = pending
            overlay.statistics.dropped += dropped.count
            var change = Change(pending: pending)
            for changed in Set([key] + dropped.map(\.key)) {
                if overlay.confirmed[changed] == nil {
                    overlay.confirmed[changed] = Confirmed(
                        entry: changed == key ? base : (storedEntry(changed) ?? emptyPlayerEntry(changed)), isVerified: false,
                        settled: 0)
                }
                let confirmed = overlay.confirmed[changed]!.entry
                change.shown.append(
                    (Self.composed(changed, confirmed: confirmed, pending: pending),
                     Self.composed(changed, confirmed: confirmed, pending: oldPending)))
            }
            for mutation in dropped {
                let error = CacheError(
                    .mutationDropped, key: mutation.key,
                    "the offline queue holds at most \(bound) changes (maxQueuedMutations); the oldest was dropped unsent")
                change.dropped.append((mutation, error))
                if let waiter = overlay.settle(mutation.id, with: .failure(error)) { change.waiters.append(waiter) }
            }
            return change
        }
        mutationQueue?.save(change.pending, player: player)
        for (shown, previous) in change.shown { show(shown, replacing: previous, ifStill: generation) }
        for (mutation, error) in change.dropped {
            logger.info("player change dropped: the queue is full", metadata: ["cache.key": "\(mutation.key)"])
            broadcaster.publish(CacheUpdate(key: mutation.key, event: .mutationFailed(mutation, error)))
        }
        Self.resume(change.waiters)
        startSender(for: player, force: false)
        return try await outcome(of: mutation.id)
    }

    /// What one change did under the lock, to act on after it.
    private struct Change {
        var pending: [PlayerMutation]
        /// (to show, shown before) per list touched.
        var shown: [(CacheEntry, CacheEntry)] = []
        var dropped: [(PlayerMutation, CacheError)] = []
        var waiters: [(CheckedContinuation<MutationOutcome, any Error>, Result<MutationOutcome, CacheError>)] = []
    }

    /// Waits for change `id` to settle (or to be queued).
    private func outcome(of id: UUID) async throws -> MutationOutcome {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<MutationOutcome, any Error>) in
            let ready = overlay.withLock { overlay -> Result<MutationOutcome, CacheError>? in
                if let outcome = overlay.outcomes.removeValue(forKey: id) { return outcome }
                overlay.waiters[id] = continuation
                return nil
            }
            if let ready { Self.resume([(continuation, ready)]) }
        }
    }
}
