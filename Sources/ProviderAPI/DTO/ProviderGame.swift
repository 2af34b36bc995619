@_spi(CatalogTools) import CasinoCatalog
import Foundation

/// A game record as the provider (or an XML feed) delivers it, with every quirk intact.
///
/// Only the fields the lobby needs are declared; unknown fields are ignored. Every field is
/// optional here: `ProviderMapping/game(from:)` decides what is required.
///
/// The fields are read and written as properties (`game.name`) but stored once, in ``Fields``,
/// and shared between copies until one is changed: a game is 500-odd bytes of optionals holding a
/// dozen strings, and pipelines copy games into every page that lists them, where a copy of the
/// fields themselves took a retain of each string (on a large feed, a cache miss each).
@dynamicMemberLookup
@_spi(CatalogTools) public struct ProviderGame: Codable, Sendable, Hashable {
    /// A game's fields, as the provider names them.
    public struct Fields: Codable, Sendable, Hashable {
        public var href: String?
        /// The identifier, a string (`"34795"`) or a number.
        public var id: FlexibleValue?
        /// The same identifier as a number, under two spellings.
        public var gId: FlexibleValue?
        public var gameId: FlexibleValue?
        public var slug: String?
        public var name: String?
        /// Text that may hold HTML.
        public var description: String?
        public var launchUrl: String?
        /// Image URLs, often protocol-relative (`//static…/x.jpg`).
        public var thumbnail: String?
        public var defaultThumbnail: String?
        public var backgroundImageUrl: String?
        /// Booleans, sometimes `"0"`/`"1"`.
        public var hasFunMode: FlexibleValue?
        public var hasAnonymousFunMode: FlexibleValue?
        public var isNew: FlexibleValue?
        /// An array or one comma-separated string.
        public var platform: FlexibleList?
        public var popularity: FlexibleValue?
        public var vendor: ProviderVendor?
        public var tags: ProviderCollection<ProviderReference>?
        /// RTP as a fraction (`0.9646`), a percent (`96.46`) or a string (`"96.21"`).
        public var theoreticalPayOut: FlexibleValue?
        /// ISO codes as an array or one delimited string.
        public var restrictedTerritories: FlexibleList?

        /// A record with no fields.
        public init() {}
    }

    /// The one copy of the fields that copies of a game share.
    @usableFromInline
    final class Storage: @unchecked Sendable {
        // Written only through a `ProviderGame` that holds the sole reference (see `subscript`).
        @usableFromInline var fields: Fields

        @usableFromInline
        init(_ fields: Fields) { self.fields = fields }
    }

    @usableFromInline var storage: Storage

    /// A game with these fields: for a reader that fills in ``Fields`` field by field.
    public init(_ fields: Fields) {
        storage = Storage(fields)
    }

    public init(
        href: String? = nil, id: FlexibleValue? = nil, gId: FlexibleValue? = nil, gameId: FlexibleValue? = nil,
        slug: String? = nil, name: String? = nil, description: String? = nil, launchUrl: String? = nil,
        thumbnail: String? = nil, defaultThumbnail: String? = nil, backgroundImageUrl: String? = nil,
        hasFunMode: FlexibleValue? = nil, hasAnonymousFunMode: FlexibleValue? = nil, isNew: FlexibleValue? = nil,
        platform: FlexibleList? = nil, popularity: FlexibleValue? = nil, vendor: ProviderVendor? = nil,
        tags: ProviderCollection<ProviderReference>? = nil, theoreticalPayOut: FlexibleValue? = nil,
        restrictedTerritories: FlexibleList? = nil
    ) {
        var fields = Fields()
        fields.href = href
        fields.id = id
        fields.gId = gId
        fields.gameId = gameId
        fields.slug = slug
        fields.name = name
        fields.description = description
        fields.launchUrl = launchUrl
        fields.thumbnail = thumbnail
        fields.defaultThumbnail = defaultThumbnail
        fields.backgroundImageUrl = backgroundImageUrl
        fields.hasFunMode = hasFunMode
        fields.hasAnonymousFunMode = hasAnonymousFunMode
        fields.isNew = isNew
        fields.platform = platform
        fields.popularity = popularity
        fields.vendor = vendor
        fields.tags = tags
        fields.theoreticalPayOut = theoreticalPayOut
        fields.restrictedTerritories = restrictedTerritories
        storage = Storage(fields)
    }

    /// A field (`game.name`), read from the shared copy; writing it first copies the fields when
    /// another game shares them.
    @inlinable
    public subscript<Value>(dynamicMember field: WritableKeyPath<Fields, Value>) -> Value {
        get { storage.fields[keyPath: field] }
        set {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
            storage.fields[keyPath: field] = newValue
        }
    }

    public init(from decoder: any Decoder) throws {
        storage = Storage(try Fields(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try storage.fields.encode(to: encoder)
    }

    public static func == (left: ProviderGame, right: ProviderGame) -> Bool {
        left.storage === right.storage || left.storage.fields == right.storage.fields
    }

    public func hash(into hasher: inout Hasher) {
        storage.fields.hash(into: &hasher)
    }

    /// The best identifier the record offers (`id`, else `gId`, else `gameId`), trimmed.
    public var bestID: String? {
        for candidate in [storage.fields.id, storage.fields.gId, storage.fields.gameId] {
            if let text = candidate?.text.trimmingWhitespace(), !text.isEmpty {
                return text
            }
        }
        return nil
    }
}

extension ProviderGame: CustomReflectable {
    /// The fields, so that `print`, `dump` and a failed expectation show them rather than the storage.
    public var customMirror: Mirror { Mirror(reflecting: storage.fields) }
}
