/// One game as the lobby shows it: the normalized form of a provider game record.
///
/// Every URL is absolute `https`; text is trimmed, NFC-normalized and free of HTML.
public struct Game: Codable, Sendable, Hashable, Identifiable {
    /// The provider's game identifier as a string (`"34795"`). Never empty.
    public var id: String
    /// The display name.
    public var name: String
    /// The URL slug (`lara-jones-is-cleopatra-rgs`).
    public var slug: String
    /// Where the game starts (absolute https).
    public var launchUrl: String
    /// The lobby tile image (absolute https).
    public var thumbnail: String
    /// The detail-screen background (absolute https), when the provider has one.
    public var backgroundImageUrl: String?
    /// A plain-text description, when the provider has one.
    public var description: String?
    /// Whether the game can be played for fun with an account.
    public var hasFunMode: Bool
    /// Whether the game can be played for fun without an account.
    public var hasAnonymousFunMode: Bool
    /// The platforms the game runs on, sorted.
    public var platforms: [Platform]
    /// The provider's popularity score (higher is more popular).
    public var popularity: Double
    /// Whether the provider flags the game as new.
    public var isNew: Bool
    /// The studio, when known.
    public var vendor: Vendor?
    /// Tag names (`"Free Spins"`), in provider order.
    public var tags: [String]
    /// The theoretical return to player as a fraction in `0...1` (`0.9646`), when known.
    public var rtp: Double?
    /// ISO 3166 codes, including subdivisions (`"CA-ON"`), where the game may not be offered.
    public var restrictedTerritories: [String]

    public init(
        id: String,
        name: String,
        slug: String,
        launchUrl: String,
        thumbnail: String,
        backgroundImageUrl: String? = nil,
        description: String? = nil,
        hasFunMode: Bool = false,
        hasAnonymousFunMode: Bool = false,
        platforms: [Platform] = [],
        popularity: Double = 0,
        isNew: Bool = false,
        vendor: Vendor? = nil,
        tags: [String] = [],
        rtp: Double? = nil,
        restrictedTerritories: [String] = []
    ) {
        self.id = id
        self.name = name
        self.slug = slug
        self.launchUrl = launchUrl
        self.thumbnail = thumbnail
        self.backgroundImageUrl = backgroundImageUrl
        self.description = description
        self.hasFunMode = hasFunMode
        self.hasAnonymousFunMode = hasAnonymousFunMode
        self.platforms = platforms
        self.popularity = popularity
        self.isNew = isNew
        self.vendor = vendor
        self.tags = tags
        self.rtp = rtp
        self.restrictedTerritories = restrictedTerritories
    }
}
