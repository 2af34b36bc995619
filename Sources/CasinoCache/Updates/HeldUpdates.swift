@_spi(CatalogTools) import CasinoCatalog

/// Which refreshed content the cache holds back instead of replacing what is on screen (seed
/// 004's "New posts available" banner): by kind of content, or key by key.
///
/// Held content is not shown: the cache announces it with ``CacheUpdate/Event/pendingUpdate(_:)``
/// (what it would insert, remove and update), keeps serving what is on screen, and shows it when
/// the app calls ``CatalogCache/applyPendingUpdate(for:)`` (the player tapped the banner). A
/// player's own changes (``CatalogCache/addFavourite(_:edition:player:)``) are never held.
///
/// ```swift
/// var configuration = CatalogCache.Configuration.default
/// configuration.heldUpdates = HeldUpdates(kinds: [.recentlyPlayed, .gamesPages])
/// ```
public struct HeldUpdates: Sendable, Hashable {
    /// Kinds of content, as the lobby shows them.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// An edition's category list.
        case categories
        /// Pages of a category's games (catalogue content, any scope).
        case gamesPages
        /// A player's recently played games.
        case recentlyPlayed
        /// A player's favourites.
        case favourites
    }

    /// The kinds whose refreshes are held.
    public var kinds: Set<Kind>
    /// Keys whose refreshes are held, whatever their kind.
    public var keys: Set<CacheKey>

    public init(kinds: Set<Kind> = [], keys: Set<CacheKey> = []) {
        self.kinds = kinds
        self.keys = keys
    }

    /// Nothing held: every refresh replaces what is shown at once (the default).
    public static let none = HeldUpdates()

    /// Whether refreshes of `key` are held.
    public func holds(_ key: CacheKey) -> Bool {
        if kinds.isEmpty && keys.isEmpty { return false }
        return keys.contains(key) || kinds.contains(Self.kind(of: key))
    }

    /// The kind of content `key` names.
    public static func kind(of key: CacheKey) -> Kind {
        switch key.playerList {
        case .recentlyPlayed?: return .recentlyPlayed
        case .favourites?: return .favourites
        case nil: break
        }
        switch key.content {
        case .categories: return .categories
        case .gamesPage: return .gamesPages
        }
    }
}
