@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
public import Foundation
import Hummingbird
import NIOConcurrencyHelpers
@_spi(CatalogTools) import ProviderAPI

/// The player's own rows: recently played and favourites, behind a session cookie.
///
/// Routes (``PlayerRequest`` builds and parses them):
/// - `GET /v1/player/{playerId}/games/last-played?language=…&platform=…&offset=…&limit=…` (the
///   provider's route): the games the player played last, most recent first.
/// - `GET /v1/player/{playerId}/favorites?language=…&platform=…&offset=…&limit=…`: the favourites,
///   most recently added first.
/// - `PUT` / `DELETE /v1/player/{playerId}/favorites/{gameId}?language=…&platform=…&offset=0&limit=…`:
///   adds or removes a favourite (both idempotent) and answers the list after the change; a game
///   the edition lacks is a `404`.
/// - `POST /_admin/players/session` with `{"player": "42"}` answers `{"sessionId": "…"}`, and
///   `POST /_admin/players/played` with `{"player": "42", "gameIds": ["34795"]}` sets what the
///   player played last (for `catalog-server` and manual testing).
///
/// Every answer is the provider's collection envelope of game objects in the edition asked for
/// (ids the edition lacks are left out). Authentication is the `sessionId` cookie: missing,
/// unknown or expired is `401`, another player's id is `403`. Latency and faults apply as to
/// the catalogue routes, matched against the escaped path (a fault with `path: "/favorites/"`
/// hits mutations only); `stall` makes a mutation time out after the server applied it.
extension CatalogSimulator {
    /// What the simulator knows of players: sessions, favourites and what they played.
    struct PlayerState: Sendable {
        struct Session: Sendable {
            var player: String
            var expiresAt: Date
        }

        var sessions: [String: Session] = [:]
        /// Player → favourite game ids, most recently added first.
        var favourites: [String: [String]] = [:]
        /// Player → game ids played, most recent first.
        var lastPlayed: [String: [String]] = [:]
    }

    /// How long a session opened by ``openSession(for:lifetime:)`` lasts by default: one hour.
    public static let defaultSessionLifetime: TimeInterval = 3600

    func addPlayerRoutes(to router: Router<BasicRequestContext>) {
        let prefix = String(PlayerRequest.pathPrefix.dropLast())
        router.get(RouterPath(stringLiteral: prefix + "/:playerId/games/last-played")) { request, _ in
            await self.servePlayer(request)
        }
        router.get(RouterPath(stringLiteral: prefix + "/:playerId/favorites")) { request, _ in
            await self.servePlayer(request)
        }
        router.put(RouterPath(stringLiteral: prefix + "/:playerId/favorites/:gameId")) { request, _ in
            await self.servePlayer(request)
        }
        router.delete(RouterPath(stringLiteral: prefix + "/:playerId/favorites/:gameId")) { request, _ in
            await self.servePlayer(request)
        }
        router.post("/_admin/players/session") { request, _ in
            struct Asked: Decodable { var player: String }
            let body = try await request.body.collect(upTo: 64 << 10)
            guard let asked = try? JSONDecoder().decode(Asked.self, from: Data(body.readableBytesView)) else {
                return Self.failure(status: 400, message: "expected {\"player\": \"…\"}")
            }
            return Self.json(try JSONEncoder().encode(["sessionId": self.openSession(for: asked.player)]))
        }
        router.post("/_admin/players/played") { request, _ in
            struct Asked: Decodable {
                var player: String
                var gameIds: [String]
            }
            let body = try await request.body.collect(upTo: 1 << 20)
            guard let asked = try? JSONDecoder().decode(Asked.self, from: Data(body.readableBytesView)) else {
                return Self.failure(status: 400, message: "expected {\"player\": \"…\", \"gameIds\": […]}")
            }
            self.setLastPlayed(asked.gameIds, for: asked.player)
            return Response(status: .noContent)
        }
    }

    // MARK: - Test controls

    /// Opens a session for `player` and returns its id, the `sessionId` cookie's value.
    public func openSession(for player: String, lifetime: TimeInterval = defaultSessionLifetime) -> String {
        let id = UUID().uuidString
        players.withLockedValue {
            $0.sessions[id] = PlayerState.Session(player: player, expiresAt: Date().addingTimeInterval(lifetime))
        }
        return id
    }

    /// Expires a session now: its next request is a `401`.
    public func expireSession(_ sessionId: String) {
        players.withLockedValue { $0.sessions[sessionId]?.expiresAt = .distantPast }
    }

    /// Sets what `player` played last, most recent first.
    public func setLastPlayed(_ gameIds: [String], for player: String) {
        players.withLockedValue { $0.lastPlayed[player] = gameIds }
    }

    /// Sets `player`'s favourites behind the app's back (another device), most recent first.
    public func setFavourites(_ gameIds: [String], for player: String) {
        players.withLockedValue { $0.favourites[player] = gameIds }
    }

    /// `player`'s favourite game ids, most recently added first.
    public func favourites(of player: String) -> [String] {
        players.withLockedValue { $0.favourites[player] ?? [] }
    }

    // MARK: - Serving

    private func servePlayer(_ request: Request) async -> Response {
        let path = request.uri.path
        let method = request.method.rawValue
        let (settings, fault, delay, randomStatus) = decide(path: path, query: request.uri.query ?? "")
        if delay > 0 { try? await Self.pause(milliseconds: delay) }
        var parameters: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { parameters[String(name)] = String(value) }

        let response: Response
        if let status = fault?.kind == .status ? (fault?.status ?? 500) : randomStatus {
            response = Self.failure(status: status, retryAfter: settings.retryAfterSeconds)
        } else {
            switch playerAnswer(request, method: method, path: path, parameters: parameters, version: settings.version)
            {
            case .success(let body): response = respond(body, to: request, maxAge: 0, fault: fault)
            case .failure(let refusal): response = Self.failure(status: refusal.status, message: refusal.message)
            }
        }
        count(response, path: Self.statisticsRoute(method: method, path: path))
        return response
    }

    /// A refused player request: its status and message.
    private struct Refusal: Error {
        var status: Int
        var message: String
    }

    /// Authenticates, applies a mutation, and answers the list's envelope.
    private func playerAnswer(
        _ request: Request, method: String, path: String, parameters: [String: String], version: Int
    ) -> Result<Data, Refusal> {
        let parsed: PlayerRequest
        do {
            parsed = try PlayerRequest(method: method, path: path, parameters: parameters)
        } catch {
            return .failure(Refusal(status: 400, message: error.description))
        }
        let current = catalog.changed(toVersion: version)
        guard let content = current.editions[parsed.edition] else {
            return .failure(Refusal(status: 404, message: "no edition \(parsed.edition)"))
        }
        var games: [String: JSONValue] = [:]
        for list in content.games.values {
            for game in list { if let id = game["id"]?.text, games[id] == nil { games[id] = game } }
        }
        let sessionId = request.cookies[PlayerRequest.sessionCookieName]?.value
        let outcome = players.withLockedValue { state -> Result<[String], Refusal> in
            guard let sessionId, let session = state.sessions[sessionId], session.expiresAt > Date() else {
                return .failure(
                    Refusal(status: 401, message: "no valid session: sign in and send the sessionId cookie"))
            }
            guard session.player == parsed.player else {
                return .failure(Refusal(status: 403, message: "the session belongs to another player"))
            }
            switch parsed {
            case .lastPlayed(let player, _, _, _):
                return .success(state.lastPlayed[player] ?? [])
            case .favourites(let player, _, _, _):
                return .success(state.favourites[player] ?? [])
            case .addFavourite(let player, let gameId, _, _):
                guard games[gameId] != nil else {
                    return .failure(Refusal(status: 404, message: "no game \(gameId) in \(parsed.edition)"))
                }
                var list = state.favourites[player] ?? []
                if !list.contains(gameId) { list.insert(gameId, at: 0) }
                state.favourites[player] = list
                return .success(list)
            case .removeFavourite(let player, let gameId, _, _):
                var list = state.favourites[player] ?? []
                list.removeAll { $0 == gameId }
                state.favourites[player] = list
                return .success(list)
            }
        }
        let ids: [String]
        switch outcome {
        case .success(let list): ids = list
        case .failure(let refusal): return .failure(refusal)
        }
        let known = ids.compactMap { games[$0] }
        let start = min(parsed.offset, known.count)
        let items = Array(known[start..<min(start + parsed.limit, known.count)])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return .success(try encoder.encode(PlayerEnvelope(count: items.count, total: known.count, items: items)))
        } catch {
            return .failure(Refusal(status: 500, message: "cannot encode the answer: \(error)"))
        }
    }

    /// The route a request is counted under in the statistics, without the ids:
    /// `PUT /v1/player/{playerId}/favorites/{gameId}`.
    static func statisticsRoute(method: String, path: String) -> String {
        let rest = path.dropFirst(PlayerRequest.pathPrefix.count).split(
            separator: "/", omittingEmptySubsequences: false)
        var route = PlayerRequest.pathPrefix + "{playerId}"
        if rest.count >= 2 { route += "/" + rest[1] }
        if rest.count == 3 { route += rest[1] == "favorites" ? "/{gameId}" : "/" + rest[2] }
        return "\(method) \(route)"
    }

    /// The provider's collection envelope.
    private struct PlayerEnvelope: Encodable {
        var count: Int
        var total: Int
        var items: [JSONValue]
    }
}
