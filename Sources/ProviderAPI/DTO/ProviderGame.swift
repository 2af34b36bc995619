@_spi(Internals) import CasinoCatalog
import Foundation

/// A game record as the provider (or an XML feed) delivers it, with every quirk intact.
///
/// Only the fields the lobby needs are declared; unknown fields are ignored. Every field is
/// optional here: ``ProviderMapping/game(from:)`` decides what is required.
public struct ProviderGame: Codable, Sendable, Hashable {
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

    public init(
        href: String? = nil, id: FlexibleValue? = nil, gId: FlexibleValue? = nil, gameId: FlexibleValue? = nil,
        slug: String? = nil, name: String? = nil, description: String? = nil, launchUrl: String? = nil,
        thumbnail: String? = nil, defaultThumbnail: String? = nil, backgroundImageUrl: String? = nil,
        hasFunMode: FlexibleValue? = nil, hasAnonymousFunMode: FlexibleValue? = nil, isNew: FlexibleValue? = nil,
        platform: FlexibleList? = nil, popularity: FlexibleValue? = nil, vendor: ProviderVendor? = nil,
        tags: ProviderCollection<ProviderReference>? = nil, theoreticalPayOut: FlexibleValue? = nil,
        restrictedTerritories: FlexibleList? = nil
    ) {
        self.href = href
        self.id = id
        self.gId = gId
        self.gameId = gameId
        self.slug = slug
        self.name = name
        self.description = description
        self.launchUrl = launchUrl
        self.thumbnail = thumbnail
        self.defaultThumbnail = defaultThumbnail
        self.backgroundImageUrl = backgroundImageUrl
        self.hasFunMode = hasFunMode
        self.hasAnonymousFunMode = hasAnonymousFunMode
        self.isNew = isNew
        self.platform = platform
        self.popularity = popularity
        self.vendor = vendor
        self.tags = tags
        self.theoreticalPayOut = theoreticalPayOut
        self.restrictedTerritories = restrictedTerritories
    }

    /// The best identifier the record offers (`id`, else `gId`, else `gameId`), trimmed.
    public var bestID: String? {
        for candidate in [id, gId, gameId] {
            if let text = candidate?.text.trimmingWhitespace(), !text.isEmpty {
                return text
            }
        }
        return nil
    }
}
