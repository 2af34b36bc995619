@_spi(CatalogTools) public import CasinoCatalog

/// One of a player's own lobby rows: what they played last, and their favourites.
///
/// A player list is cached as a ``GamesPage`` under the player's ``CacheScope/user(_:)`` scope, so
/// the memory and disk tiers, the update stream and logout (``CatalogCache/clear(scope:)``) treat
/// it like any other content and it is never mixed with another player's. Its key is a page at
/// offset 0 whose category id is the list's reserved ``categoryId`` (`~favourites`); in a user
/// scope, category ids starting with `~` are reserved for player lists.
///
/// ```swift
/// let key = CacheKey.playerList(.favourites, edition: edition, player: "42")
/// let rows = try await cache.playerList(.favourites, edition: edition, player: "42")
/// ```
public enum PlayerList: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The games the player played last, most recent first (the provider's `last-played`).
    case recentlyPlayed = "recently-played"
    /// The player's favourite games, most recently added first.
    case favourites

    /// The category id the list's pages carry: `~recently-played`, `~favourites`.
    public var categoryId: String { "~" + rawValue }

    /// The list whose pages carry `categoryId`, if it is one.
    public init?(categoryId: String) {
        guard categoryId.hasPrefix("~"), let list = PlayerList(rawValue: String(categoryId.dropFirst())) else {
            return nil
        }
        self = list
    }

    public var description: String { rawValue }
}

extension CacheKey {
    /// The key of a player's list in an edition: a page at offset 0 under `.user(player)`.
    public static func playerList(_ list: PlayerList, edition: Edition, player: String) -> CacheKey {
        CacheKey(.gamesPage(edition, categoryId: list.categoryId, offset: 0), scope: .user(player))
    }

    /// The player list this key names, or `nil` for catalogue content.
    public var playerList: PlayerList? {
        guard case .user = scope, case .gamesPage(_, let categoryId, 0) = content else { return nil }
        return PlayerList(categoryId: categoryId)
    }

    /// The player a user-scoped key belongs to.
    public var player: String? {
        if case .user(let id) = scope { return id }
        return nil
    }
}
