@_spi(CatalogTools) public import CasinoCatalog
public import Foundation

/// A request for one player's own lobby rows, built (by the app's HTTP upstream) and parsed (by
/// the simulator) in one place.
///
/// The recently-played route is the provider's; the favourites routes are this project's own
/// shape (`docs/PROVIDER_API.md`, "Player routes"). Every answer is the provider's collection
/// envelope of game objects; a favourites mutation answers the list as it is after the change.
/// Each needs the player's session: a `sessionId` cookie (``sessionCookieName``).
///
/// ```swift
/// PlayerRequest.favourites(player: "42", edition: edition, offset: 0, limit: 50).url(relativeTo: base)
/// // …/v1/player/42/favorites?language=en&platform=iPhone&offset=0&limit=50
/// PlayerRequest.addFavourite(player: "42", gameId: "34795", edition: edition, limit: 50).method  // "PUT"
/// ```
///
/// Player and game ids are hostile text: each is percent-escaped as one path segment (every byte
/// outside `A-Z a-z 0-9 - _ ~`, so `/`, `.` and `..` never become path structure).
@_spi(CatalogTools) public enum PlayerRequest: Sendable, Hashable, CustomStringConvertible {
    /// The games the player played last, most recent first (the provider's route).
    case lastPlayed(player: String, edition: Edition, offset: Int, limit: Int)
    /// The player's favourite games, most recently added first.
    case favourites(player: String, edition: Edition, offset: Int, limit: Int)
    /// Adds a game to the favourites (idempotent); answers the first `limit` favourites after it.
    case addFavourite(player: String, gameId: String, edition: Edition, limit: Int)
    /// Removes a game from the favourites (idempotent); answers the first `limit` favourites after it.
    case removeFavourite(player: String, gameId: String, edition: Edition, limit: Int)

    /// The cookie that carries the player's session: `sessionId`.
    public static let sessionCookieName = "sessionId"
    /// The longest player id accepted: 256 bytes of UTF-8.
    public static let maxPlayerIDBytes = 256
    /// What every player route starts with: `/v1/player/`.
    public static let pathPrefix = "/v1/player/"

    /// The player the request is for.
    public var player: String {
        switch self {
        case .lastPlayed(let player, _, _, _), .favourites(let player, _, _, _), .addFavourite(let player, _, _, _),
            .removeFavourite(let player, _, _, _):
            player
        }
    }

    /// The edition whose game objects the answer holds.
    public var edition: Edition {
        switch self {
        case .lastPlayed(_, let edition, _, _), .favourites(_, let edition, _, _), .addFavourite(_, _, let edition, _),
            .removeFavourite(_, _, let edition, _):
            edition
        }
    }

    /// The position of the answer's first game in the player's list (0 for a mutation).
    public var offset: Int {
        switch self {
        case .lastPlayed(_, _, let offset, _), .favourites(_, _, let offset, _): offset
        case .addFavourite, .removeFavourite: 0
        }
    }

    /// The most games the answer holds.
    public var limit: Int {
        switch self {
        case .lastPlayed(_, _, _, let limit), .favourites(_, _, _, let limit), .addFavourite(_, _, _, let limit),
            .removeFavourite(_, _, _, let limit):
            limit
        }
    }

    /// Whether the request changes the player's favourites (`PUT`/`DELETE`).
    public var isMutation: Bool {
        switch self {
        case .addFavourite, .removeFavourite: true
        case .lastPlayed, .favourites: false
        }
    }

    /// `GET`, `PUT` or `DELETE`.
    public var method: String {
        switch self {
        case .lastPlayed, .favourites: "GET"
        case .addFavourite: "PUT"
        case .removeFavourite: "DELETE"
        }
    }

    /// The escaped path below the API's base URL.
    public var path: String {
        let player = Self.pathPrefix + Self.escapeSegment(player)
        switch self {
        case .lastPlayed: return player + "/games/last-played"
        case .favourites: return player + "/favorites"
        case .addFavourite(_, let gameId, _, _), .removeFavourite(_, let gameId, _, _):
            return player + "/favorites/" + Self.escapeSegment(gameId)
        }
    }

    /// The query parameters, in the provider's order, not yet percent-encoded.
    public var parameters: [(name: String, value: String)] {
        var parameters = [
            ("language", edition.language), ("platform", edition.platform.rawValue), ("offset", String(offset)),
            ("limit", String(limit)),
        ]
        if case .lastPlayed = self {
            parameters += [("unique", "true"), ("hasGameModel", "true"), ("order", "ASCENDING")]
        }
        return parameters
    }

    /// The encoded query string.
    public var query: String {
        parameters.map { "\($0.name)=\(Self.escapeSegment($0.value))" }.joined(separator: "&")
    }

    /// The request's URL below `base` (which may carry a path prefix).
    public func url(relativeTo base: URL) -> URL {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return URL(string: text + path + "?" + query)!
    }

    public var description: String { "\(method) \(path)?\(query)" }

    /// Parses a request the simulator received: the method, the raw (still escaped) path and the
    /// decoded query parameters.
    ///
    /// - Throws: `ProviderRequest/ParseError` naming what is missing or malformed.
    public init(method: String, path: String, parameters: [String: String]) throws(ProviderRequest.ParseError) {
        guard path.hasPrefix(Self.pathPrefix) else { throw .init("not a player route: \(path.prefix(80))") }
        let segments = path.dropFirst(Self.pathPrefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard let first = segments.first, let player = Self.unescapeSegment(first),
            (1...Self.maxPlayerIDBytes).contains(player.utf8.count)
        else { throw .init("the player id must be 1...\(Self.maxPlayerIDBytes) bytes of percent-escaped UTF-8") }
        guard let language = parameters["language"], let platformName = parameters["platform"],
            let platform = Platform(lenient: platformName),
            let edition = try? Edition(language: language, platform: platform)
        else { throw .init("language and platform must name an edition") }
        guard let limit = parameters["limit"].flatMap(Int.init), (1...CatalogRules.maxPageSize).contains(limit) else {
            throw .init("limit must be 1...\(CatalogRules.maxPageSize)")
        }
        let offset = parameters["offset"].map(Int.init) ?? 0
        guard let offset, (0...CatalogRules.maxGamesTotal).contains(offset) else {
            throw .init("offset must be 0...\(CatalogRules.maxGamesTotal)")
        }
        let rest = segments.dropFirst().map(String.init)
        switch (method, rest.count) {
        case ("GET", 2) where rest == ["games", "last-played"]:
            self = .lastPlayed(player: player, edition: edition, offset: offset, limit: limit)
        case ("GET", 1) where rest == ["favorites"]:
            self = .favourites(player: player, edition: edition, offset: offset, limit: limit)
        case ("PUT", 2) where rest[0] == "favorites", ("DELETE", 2) where rest[0] == "favorites":
            guard let gameId = Self.unescapeSegment(Substring(rest[1])),
                (1...CatalogRules.maxIDLength).contains(gameId.utf8.count)
            else { throw .init("the game id must be 1...\(CatalogRules.maxIDLength) bytes of percent-escaped UTF-8") }
            self =
                method == "PUT"
                ? .addFavourite(player: player, gameId: gameId, edition: edition, limit: limit)
                : .removeFavourite(player: player, gameId: gameId, edition: edition, limit: limit)
        default:
            throw .init("unknown player route \(method) \(path.prefix(120))")
        }
    }

    /// Percent-escapes every UTF-8 byte outside `A-Z a-z 0-9 - _ ~` (`.` included, so no segment
    /// is ever `.` or `..`).
    public static func escapeSegment(_ text: String) -> String {
        let escaped = SnapshotKey.escape(text)
        return escaped.contains(".") ? escaped.replacingOccurrences(of: ".", with: "%2E") : escaped
    }

    /// Decodes a percent-escaped segment; `nil` when an escape is malformed, a byte is neither
    /// unreserved nor escaped, or the bytes are not UTF-8.
    public static func unescapeSegment(_ text: Substring) -> String? {
        SnapshotKey.unescape(text.utf8)
    }
}
