@_spi(CatalogTools) public import CasinoCatalog
import Foundation
import Logging
@_spi(CatalogTools) import ProviderAPI

/// The player's own lobby rows: recently played and favourites, cached per player under
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
        guard PlayerLists.isUsablePlayerID(player) else { return .miss }
        players.loadQueueIfNeeded(player)
        return cachedAnswer(for: .playerList(list, edition: edition, player: player), Self.gamesPage)
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
        try players.checkRequest(key)
        players.loadQueueIfNeeded(player)
        return try await answer(for: key, Self.gamesPage)
    }
}

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
        try await players.mutate(
            PlayerMutation(
                kind: .addFavourite, player: player, edition: edition, gameId: game.id, game: game, createdAt: clock.now
            ))
    }

    /// Removes a game from the player's favourites at once, then sends the change (see
    /// ``addFavourite(_:edition:player:)``).
    @discardableResult
    public func removeFavourite(gameId: String, edition: Edition, player: String) async throws -> MutationOutcome {
        try await players.mutate(
            PlayerMutation(
                kind: .removeFavourite, player: player, edition: edition, gameId: gameId, createdAt: clock.now))
    }

    /// The player's changes not yet applied by the upstream, oldest first (those a previous launch
    /// queued included). A read: it sends nothing.
    public func pendingMutations(player: String) -> [PlayerMutation] {
        players.pending(player: player)
    }

    /// Sends every player's queued changes now (call it when the app learns the network is back;
    /// ``refreshStale()`` does), and returns when the senders stop: the queues are empty, or the
    /// upstream still cannot be reached.
    public func sendPendingMutations() async {
        await players.sendPending()
    }

    /// What the player mutations have done so far.
    public func mutationStatistics() -> MutationStatistics {
        players.mutationStatistics()
    }
}
