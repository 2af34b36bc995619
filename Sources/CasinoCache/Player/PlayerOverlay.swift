@_spi(CatalogTools) import CasinoCatalog
import Foundation

/// What ``PlayerLists`` shows on top of what the upstream last said: a player's changes not yet
/// settled (optimistic mutations), and what sends them.
struct PlayerOverlay {
    /// Players whose queue file has been read in this process.
    var loadedPlayers: Set<String> = []
    /// Per player: the changes not yet settled, oldest first (what the queue file holds).
    var pending: [String: [PlayerMutation]] = [:]
    /// Per player: the change being sent, which the queue's bound never drops.
    var inFlight: [String: UUID] = [:]
    /// Per player list a change touched: the server's last word (or what was cached before the
    /// first change), under the changes still pending.
    var confirmed: [CacheKey: Confirmed] = [:]
    /// Per player: the task sending their changes, with a token so a finished or replaced
    /// sender never unregisters its successor.
    var senders: [String: (token: UInt64, task: Task<Void, Never>)] = [:]
    var nextSenderToken: UInt64 = 0
    /// Players whose last send could not reach the upstream: new changes wait, queued, for a
    /// retry (``retries``), ``CatalogCache/sendPendingMutations()`` or a successful fetch.
    var parked: Set<String> = []
    /// Per parked player: the backoff timer, and how many sends failed in a row.
    var retries: [String: Task<Void, Never>] = [:]
    var failedSends: [String: Int] = [:]
    /// Callers waiting for their change to settle, and outcomes that came before the caller
    /// started waiting (only for changes a caller made in this process: ``awaited``).
    var waiters: [UUID: CheckedContinuation<MutationOutcome, any Error>] = [:]
    var outcomes: [UUID: Result<MutationOutcome, CacheError>] = [:]
    var awaited: Set<UUID> = []
    var statistics = MutationStatistics()

    /// Takes a change the sender settled out of the player's pending ones: the pending changes
    /// before and after.
    mutating func take(_ mutation: PlayerMutation) -> (before: [PlayerMutation], after: [PlayerMutation]) {
        let player = mutation.player
        let before = pending[player] ?? []
        let after = before.filter { $0.id != mutation.id }
        pending[player] = after
        inFlight[player] = nil
        failedSends[player] = nil
        return (before, after)
    }

    /// Records the outcome of change `id` and returns the caller to resume, if one waits.
    mutating func settle(
        _ id: UUID, with outcome: Result<MutationOutcome, CacheError>
    ) -> (CheckedContinuation<MutationOutcome, any Error>, Result<MutationOutcome, CacheError>)? {
        guard awaited.remove(id) != nil else { return nil }
        if let waiter = waiters.removeValue(forKey: id) { return (waiter, outcome) }
        outcomes[id] = outcome
        return nil
    }
}

extension PlayerOverlay {
    /// The server's last word on a player list, under the changes still pending.
    struct Confirmed {
        var entry: CacheEntry
        /// Whether the entry came from the upstream in this process (else it was read from the
        /// tiers, where a previous run may have left its own changes in it).
        var isVerified: Bool
        /// Bumped each time a change's answer became the server's word: a fetch that started
        /// before that answer is older than it, and is dropped.
        var settled: Int
    }

    /// The list to show for `key`: `confirmed` with the player's pending changes for it applied,
    /// in order. Without an upstream validator when the changes alter it (a `304` must not bless it).
    static func composed(_ key: CacheKey, confirmed: CacheEntry, pending: [PlayerMutation]) -> CacheEntry {
        guard case .gamesPage(let page) = confirmed.content else { return confirmed }
        var shown = page
        for mutation in pending where mutation.key == key { shown = mutation.applied(to: shown) }
        guard shown != page else { return confirmed }
        var entry = confirmed
        entry.content = .gamesPage(shown)
        entry.etag = nil
        return entry
    }

    /// Resumes callers after the lock is released.
    static func resume(
        _ settled: [(CheckedContinuation<MutationOutcome, any Error>, Result<MutationOutcome, CacheError>)]
    ) {
        for (waiter, outcome) in settled {
            switch outcome {
            case .success(let value): waiter.resume(returning: value)
            case .failure(let error): waiter.resume(throwing: error)
            }
        }
    }
}
