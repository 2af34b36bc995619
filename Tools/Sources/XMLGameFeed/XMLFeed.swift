public import Foundation
@_spi(CatalogTools) public import ProviderAPI

/// An XML game feed as read by ``XMLFeedReader``: the feed's header, its categories and its
/// games, in document order.
///
/// Game fields stay as raw as the feed wrote them (`isNew="false"` is `.string("false")`);
/// `ProviderMapping` does the cleaning, exactly as for the JSON API.
///
/// ```swift
/// let feed = try XMLFeedReader.read(contentsOf: url)
/// for game in feed.games where game.memberships.contains(where: { $0.categoryId == "VIDEOSLOTS" }) {
///     let mapped = try ProviderMapping.game(from: game.record)
/// }
/// ```
public struct XMLFeed: Sendable, Hashable {
    /// The provider that produced the feed (`<feed provider="acme">`).
    public var provider: String
    /// When the provider generated the feed (`generated`, ISO 8601); `nil` when absent.
    public var generatedAt: Date?
    /// The feed format version (`version="1"`), as written.
    public var version: String?
    /// The categories, in document order.
    public var categories: [Category]
    /// The games, in document order.
    public var games: [Game]

    public init(
        provider: String, generatedAt: Date? = nil, version: String? = nil, categories: [Category] = [],
        games: [Game] = []
    ) {
        self.provider = provider
        self.generatedAt = generatedAt
        self.version = version
        self.categories = categories
        self.games = games
    }

    /// A `<category id="VIDEOSLOTS" position="1">` with its `<name lang="…">` children.
    public struct Category: Sendable, Hashable {
        /// The identifier, as written (`"VIDEOSLOTS"`).
        public var id: String
        /// The lobby position (`position="1"`); `nil` when absent.
        public var position: Int?
        /// The display names by language (`"en"` → `"Video Slots"`); a `<name>` without a
        /// `lang` attribute is stored under `""`. The first name for a language wins.
        public var names: [String: String]
        /// The line of the `<category>` start tag.
        public var line: Int

        public init(id: String, position: Int? = nil, names: [String: String] = [:], line: Int) {
            self.id = id
            self.position = position
            self.names = names
            self.line = line
        }
    }

    /// A `<game>`: its fields as a raw ``ProviderGame`` and the categories it belongs to.
    public struct Game: Sendable, Hashable {
        /// The game's fields, uncleaned; `id` is `nil` when the element has no `id`.
        @_spi(CatalogTools) public var record: ProviderGame
        /// The categories the game lists (`<categories><category ref="…" position="3"/>`),
        /// in document order.
        public var memberships: [Membership]
        /// The line where the `<game>` start tag ends.
        public var line: Int

        @_spi(CatalogTools) public init(record: ProviderGame, memberships: [Membership] = [], line: Int) {
            self.record = record
            self.memberships = memberships
            self.line = line
        }
    }

    /// A game's place in a category.
    public struct Membership: Sendable, Hashable {
        /// The category's ``Category/id`` (`ref="VIDEOSLOTS"`).
        public var categoryId: String
        /// The game's position in the category (`position="3"`); `nil` when absent.
        public var position: Int?

        public init(categoryId: String, position: Int? = nil) {
            self.categoryId = categoryId
            self.position = position
        }
    }
}
