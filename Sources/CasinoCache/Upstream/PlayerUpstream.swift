@_spi(CatalogTools) public import CasinoCatalog

/// An upstream that also serves a player's own rows: their recently played games and favourites,
/// and changes to the favourites. ``ProviderHTTPUpstream`` is one; the cache's player reads and
/// mutations need one (a plain ``CatalogUpstream`` makes them fail with `.invalidRequest`).
///
/// The upstream knows who is signed in: a request for a player it holds no session for, or whose
/// session the server refuses, fails with ``UpstreamError/Code/unauthorized`` (the cache then
/// drops that player's cached rows).
public protocol PlayerUpstream: CatalogUpstream {
    /// The first `limit` games of a player's list, as a page at offset 0 whose `categoryId` is
    /// the list's ``PlayerList/categoryId``, `limit` is `limit` and `total` the list's length.
    ///
    /// - Parameters:
    ///   - etag: The validator of the cached copy; answer ``UpstreamResponse/notModified`` when current.
    func playerList(
        _ list: PlayerList, player: String, edition: Edition, limit: Int, etag: String?
    ) async throws -> UpstreamResponse<GamesPage>

    /// Sends one favourites change (idempotent: `PUT`/`DELETE`) and returns the player's
    /// favourites as the server holds them after it (first `limit` games, shaped as
    /// ``playerList(_:player:edition:limit:etag:)`` answers).
    func send(_ mutation: PlayerMutation, limit: Int) async throws -> GamesPage
}
