@_spi(CatalogTools) public import CasinoCatalog
import CatalogSupport
import Foundation
import Logging
@_spi(CatalogTools) import ProviderAPI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The player routes (`PlayerRequest`): recently played, favourites, and favourites changes,
/// with the player's `sessionId` cookie.
///
/// ```swift
/// upstream.signIn(player: "42", sessionId: loginAnswer.sessionId)   // after the app's login
/// let rows = try await cache.playerList(.favourites, edition: edition, player: "42")
/// upstream.signOut(player: "42"); await cache.clear(scope: .user("42"))   // logout
/// ```
extension ProviderHTTPUpstream: PlayerUpstream {
    /// Sends `sessionId` as the `sessionId` cookie with every request for `player` from now on.
    public func signIn(player: String, sessionId: String) {
        playerSessions.withLock { $0[player] = sessionId }
    }

    /// Forgets `player`'s session: their requests fail as ``UpstreamError/Code/unauthorized``
    /// without reaching the network.
    public func signOut(player: String) {
        playerSessions.withLock { $0[player] = nil }
    }

    /// A player's list, mapped like every games page (`ProviderMapping`); a `304` for a current `etag`.
    ///
    /// - Throws: ``UpstreamError`` (`.unauthorized` without a session, or for `401`/`403`), or
    ///   `CancellationError`.
    public func playerList(
        _ list: PlayerList, player: String, edition: Edition, limit: Int, etag: String?
    ) async throws -> UpstreamResponse<GamesPage> {
        let request: PlayerRequest =
            switch list {
            case .recentlyPlayed: .lastPlayed(player: player, edition: edition, offset: 0, limit: limit)
            case .favourites: .favourites(player: player, edition: edition, offset: 0, limit: limit)
            }
        guard let body = try await send(request, etag: etag) else { return .notModified }
        return .modified(try page(from: body, of: list, for: request), etag: body.etag)
    }

    /// One favourites change; the favourites after it.
    ///
    /// - Throws: ``UpstreamError``: `.client` for a game the provider refuses (`404`), `.server`,
    ///   `.unauthorized`, `.offline`, `.timedOut`…; or `CancellationError`.
    public func send(_ mutation: PlayerMutation, limit: Int) async throws -> GamesPage {
        let request: PlayerRequest =
            switch mutation.kind {
            case .addFavourite:
                .addFavourite(player: mutation.player, gameId: mutation.gameId, edition: mutation.edition, limit: limit)
            case .removeFavourite:
                .removeFavourite(
                    player: mutation.player, gameId: mutation.gameId, edition: mutation.edition, limit: limit)
            }
        guard let body = try await send(request, etag: nil) else {
            throw UpstreamError(
                .invalidResponse, "a favourites change answered 304",
                url: request.url(relativeTo: configuration.baseURL))
        }
        return try page(from: body, of: .favourites, for: request)
    }

    /// Sends a player request with the player's session cookie; `nil` for a `304`.
    private func send(_ request: PlayerRequest, etag: String?) async throws -> Body? {
        let url = request.url(relativeTo: configuration.baseURL)
        guard let sessionId = playerSessions.withLock({ $0[request.player] }) else {
            throw UpstreamError(
                .unauthorized, "no session for this player: call signIn(player:sessionId:) after login", url: url)
        }
        var urlRequest = makeRequest(url, method: request.method)
        urlRequest.setValue("\(PlayerRequest.sessionCookieName)=\(sessionId)", forHTTPHeaderField: "Cookie")
        if let etag { urlRequest.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        return try await perform(
            urlRequest, url: url, label: "\(request.method) \(request.path)", acceptsNotModified: etag != nil)
    }

    private func page(from body: Body, of list: PlayerList, for request: PlayerRequest) throws -> GamesPage {
        let url = request.url(relativeTo: configuration.baseURL)
        let envelope = try decodeEnvelope(of: ProviderGame.self, from: body.body, url: url)
        let mapped = ProviderMapping.gamesPage(
            from: envelope, categoryId: list.categoryId, offset: 0, limit: request.limit)
        for note in mapped.notes {
            logger.debug(
                "provider record repaired or skipped",
                metadata: ["upstream.request": "\(request)", "upstream.note": "\(note)"])
        }
        return mapped.value
    }
}
