@_spi(CatalogTools) public import CasinoCatalog
public import Foundation

/// A change a player made to their own lobby (add or remove a favourite), shown at once and sent
/// to the upstream in order; kept on disk until the upstream has answered it.
///
/// ``CatalogCache/addFavourite(_:edition:player:)`` and
/// ``CatalogCache/removeFavourite(gameId:edition:player:)`` make them; the update stream reports
/// one the server refused or the queue had to drop (``CacheUpdate/Event/mutationFailed(_:_:)``).
public struct PlayerMutation: Codable, Sendable, Hashable, Identifiable {
    /// What the change does.
    public enum Kind: String, Codable, Sendable, Hashable {
        /// Adds ``PlayerMutation/game`` to the front of the favourites.
        case addFavourite
        /// Removes ``PlayerMutation/gameId`` from the favourites.
        case removeFavourite
    }

    /// A unique id, kept across restarts.
    public var id: UUID
    /// What the change does.
    public var kind: Kind
    /// The player who made it.
    public var player: String
    /// The edition whose list shows it (other editions' lists are refetched once it is applied).
    public var edition: Edition
    /// The game added or removed.
    public var gameId: String
    /// The game shown at once at the front of the list (adds only).
    public var game: Game?
    /// When the player made it.
    public var createdAt: Date

    public init(
        id: UUID = UUID(), kind: Kind, player: String, edition: Edition, gameId: String, game: Game? = nil,
        createdAt: Date
    ) {
        self.id = id
        self.kind = kind
        self.player = player
        self.edition = edition
        self.gameId = gameId
        self.game = game
        self.createdAt = createdAt
    }

    /// The key of the list it changes.
    public var key: CacheKey { .playerList(.favourites, edition: edition, player: player) }

    /// `page` as it looks with this change applied. Idempotent, as the `PUT` and `DELETE` it
    /// stands for: adding a game the page holds, or removing one it does not, changes nothing.
    /// An add at the front of a full page pushes its last game out (it is still counted in `total`).
    public func applied(to page: GamesPage) -> GamesPage {
        var page = page
        switch kind {
        case .addFavourite:
            guard let game, !page.items.contains(where: { $0.id == gameId }) else { return page }
            page.items.insert(game, at: 0)
            page.total += 1
            if page.items.count > page.limit { page.items.removeLast(page.items.count - page.limit) }
        case .removeFavourite:
            guard let index = page.items.firstIndex(where: { $0.id == gameId }) else { return page }
            page.items.remove(at: index)
            page.total = max(page.total - 1, page.items.count)
        }
        page.count = page.items.count
        return page
    }

    /// The rules a mutation read back from disk must keep: a player id of 1...256 bytes, a game id
    /// within the schema's rules, and for an add, a game with that id that keeps them too.
    func problem(expectedPlayer: String) -> String? {
        guard player == expectedPlayer else { return "belongs to another player" }
        guard (1...CatalogRules.maxIDLength).contains(gameId.utf8.count) else {
            return "game id of \(gameId.utf8.count) bytes"
        }
        switch kind {
        case .addFavourite:
            guard let game, game.id == gameId else { return "an add without its game" }
            if let violation = game.violations().first { return "game \(gameId): \(violation)" }
        case .removeFavourite:
            if game != nil { return "a removal carrying a game" }
        }
        return nil
    }
}

/// What a player mutation call ended with (a refusal throws ``CacheError``).
public enum MutationOutcome: Sendable, Hashable {
    /// The upstream applied it; the list as the server answered it (what the cache now shows,
    /// with any later change still in flight applied on top).
    case applied(GamesPage)
    /// The upstream could not be reached (offline, timed out, rate limited, signed out): the
    /// change stays shown and queued on disk, and is sent, in order, when it can be.
    case queued
}
