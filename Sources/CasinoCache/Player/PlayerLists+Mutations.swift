@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation
import Logging

/// Making a change: shown at once under the player's pending changes, written to their queue, then
/// handed to their sender (``PlayerLists+Sender.swift``).
extension PlayerLists {
    func mutate(_ mutation: PlayerMutation) async throws -> MutationOutcome {
        let key = mutation.key
        try checkRequest(key)
        if let problem = mutation.problem(expectedPlayer: mutation.player) {
            throw CacheError(.invalidRequest, key: key, "unusable change: \(problem)")
        }
        let player = mutation.player
        loadQueueIfNeeded(player)
        let generation = writer.generation(of: key.scope)
        let base = tiers.entry(key) ?? emptyEntry(key)
        let bound = max(configuration.maxQueuedMutations, 1)
        writer.discardHeld(key)  // a refresh held back is older than this change
        let change = overlay.withLock { overlay -> Change in
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
                    overlay.confirmed[changed] = PlayerOverlay.Confirmed(
                        entry: changed == key ? base : (tiers.entry(changed) ?? emptyEntry(changed)), isVerified: false,
                        settled: 0)
                }
                let confirmed = overlay.confirmed[changed]!.entry
                change.shown.append(
                    (
                        PlayerOverlay.composed(changed, confirmed: confirmed, pending: pending),
                        PlayerOverlay.composed(changed, confirmed: confirmed, pending: oldPending)
                    ))
            }
            for mutation in dropped {
                let error = CacheError(
                    .mutationDropped, key: mutation.key,
                    "the offline queue holds at most \(bound) changes (maxQueuedMutations); the oldest was dropped unsent"
                )
                change.dropped.append((mutation, error))
                if let waiter = overlay.settle(mutation.id, with: .failure(error)) { change.waiters.append(waiter) }
            }
            return change
        }
        queue?.save(change.pending, player: player)
        for (shown, previous) in change.shown { writer.show(shown, replacing: previous, ifStill: generation) }
        for (mutation, error) in change.dropped {
            logger.info("player change dropped: the queue is full", metadata: ["cache.key": "\(mutation.key)"])
            tiers.answers.publish(CacheUpdate(key: mutation.key, event: .mutationFailed(mutation, error)))
        }
        PlayerOverlay.resume(change.waiters)
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
            if let ready { PlayerOverlay.resume([(continuation, ready)]) }
        }
    }

    /// The player's changes not yet applied by the upstream, oldest first. A read: it sends nothing.
    func pending(player: String) -> [PlayerMutation] {
        guard Self.isUsablePlayerID(player) else { return [] }
        loadQueueIfNeeded(player)
        return overlay.withLock { $0.pending[player] ?? [] }
    }

    /// Whether a player has changes not sent yet.
    var hasPending: Bool {
        overlay.withLock { $0.pending.values.contains { !$0.isEmpty } }
    }

    /// Sends every player's queued changes now and returns when the senders stop.
    func sendPending() async {
        let players = overlay.withLock { Array($0.pending.filter { !$0.value.isEmpty }.keys) }
        for player in players { await startSender(for: player, force: true)?.value }
    }

    /// What the changes have done so far.
    func mutationStatistics() -> MutationStatistics {
        var statistics = overlay.withLock { $0.statistics }
        statistics.corruptQueueFiles = queue?.corruptFiles ?? 0
        statistics.queueWriteFailures = queue?.writeFailures ?? 0
        return statistics
    }
}
