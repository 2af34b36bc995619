@_spi(CatalogTools) public import CasinoCatalog
import CatalogSupport
public import Foundation

/// A cached value: an edition's categories or one page of games.
public enum CatalogContent: Codable, Sendable, Hashable {
    case categories(CategoryList)
    case gamesPage(GamesPage)

    /// The ids the content lists, in order: category ids or game ids.
    public var ids: [String] {
        switch self {
        case .categories(let list): list.items.map(\.id)
        case .gamesPage(let page): page.items.map(\.id)
        }
    }

    /// The schema rules the content breaks; empty when it may be served.
    @_spi(CatalogTools) public func violations() -> [Violation] {
        switch self {
        case .categories(let list): list.violations()
        case .gamesPage(let page): page.violations()
        }
    }

    /// `sha256:` and the hex SHA-256 of the content's canonical JSON, as in a snapshot envelope:
    /// what bulk validation compares.
    public func contentHash() throws -> String {
        CatalogRules.contentHashPrefix + SHA256Digest.hex(try canonicalJSON())
    }

    /// The canonical JSON of the list or page (`CanonicalPayload`): what a content hash hashes.
    func canonicalJSON() throws(CanonicalJSONError) -> Data {
        switch self {
        case .categories(let list): try CanonicalPayload.encode(list)
        case .gamesPage(let page): try CanonicalPayload.encode(page)
        }
    }

    /// An estimate of the memory the content holds, in bytes, for the memory tier's cost limit.
    public var approximateCost: Int {
        switch self {
        case .categories(let list):
            list.items.reduce(64) { $0 + 96 + $1.id.utf8.count + $1.name.utf8.count + ($1.href?.utf8.count ?? 0) }
        case .gamesPage(let page):
            // By index, not `reduce`: an element handed to a closure is a copy, a retain per field.
            page.items.indices.reduce(128) { total, index in
                let game = page.items[index]
                return total + 400 + game.id.utf8.count + game.name.utf8.count + game.slug.utf8.count
                    + game.launchUrl.utf8.count + game.thumbnail.utf8.count
                    + (game.backgroundImageUrl?.utf8.count ?? 0) + (game.description?.utf8.count ?? 0)
                    + game.tags.reduce(0) { $0 + 16 + $1.utf8.count } + game.restrictedTerritories.count * 24
            }
        }
    }
}

/// Where a cached value came from.
@_spi(CatalogTools) public enum CacheOrigin: String, Sendable, Hashable, Codable {
    /// Fetched from the upstream (the network).
    case network
    /// Read from the snapshot shipped inside the app.
    case bundled
}

/// A value with what the cache knows about it.
@_spi(CatalogTools) public struct CacheEntry: Sendable, Hashable {
    /// What the value is.
    public var key: CacheKey
    /// The value.
    public var content: CatalogContent {
        didSet { restrictsTerritories = content.restrictsTerritories }
    }
    /// When it was fetched or last revalidated (a `304`); for bundled content, the snapshot's
    /// `generatedAt`.
    public var storedAt: Date
    /// The upstream's validator, sent as `If-None-Match` on the next refresh.
    public var etag: String?
    /// Where the value came from.
    public var origin: CacheOrigin
    /// ``CatalogContent/contentHash()`` of `content` when a tier already knows it (the disk file's
    /// header, the bundle's manifest), so bulk validation does not encode and hash it again. Not part
    /// of the entry's identity: equal entries may differ in whether they know it.
    var knownContentHash: String?
    /// Whether any game of `content` is restricted somewhere: decided when the entry is made, so an
    /// answer from a page without restrictions never looks at its games (``GameFilter``).
    private(set) var restrictsTerritories: Bool

    public init(
        key: CacheKey, content: CatalogContent, storedAt: Date, etag: String? = nil, origin: CacheOrigin = .network
    ) {
        self.key = key
        self.content = content
        restrictsTerritories = content.restrictsTerritories
        self.storedAt = storedAt
        self.etag = etag
        self.origin = origin
    }
}

extension CacheEntry {
    public static func == (lhs: CacheEntry, rhs: CacheEntry) -> Bool {
        lhs.key == rhs.key && lhs.content == rhs.content && lhs.storedAt == rhs.storedAt && lhs.etag == rhs.etag
            && lhs.origin == rhs.origin
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(content)
        hasher.combine(storedAt)
        hasher.combine(etag)
        hasher.combine(origin)
    }

    /// ``knownContentHash``, else the hash computed now.
    func contentHash() throws -> String {
        if let knownContentHash { return knownContentHash }
        return try content.contentHash()
    }
}
