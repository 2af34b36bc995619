/// A category as the provider's `/v1/casino/categories` returns it.
@_spi(CatalogTools) public struct ProviderCategory: Codable, Sendable, Hashable {
    /// The API link (`https://…/v1/casino/categories/VIDEOSLOTS`).
    public var href: String?
    /// The identifier (`"VIDEOSLOTS"`), a string or a number.
    public var id: FlexibleValue?
    /// The display name.
    public var name: String?
    /// The embedded games envelope; its `total` is the category's game count.
    public var games: ProviderCollection<ProviderReference>?

    public init(
        href: String? = nil, id: FlexibleValue? = nil, name: String? = nil,
        games: ProviderCollection<ProviderReference>? = nil
    ) {
        self.href = href
        self.id = id
        self.name = name
        self.games = games
    }
}

/// A reference to another resource, often only its link:
/// `{"href": "https://…/v1/casino/tags/Free%20Spins"}`.
@_spi(CatalogTools) public struct ProviderReference: Codable, Sendable, Hashable {
    public var href: String?
    public var id: FlexibleValue?
    public var name: String?

    public init(href: String? = nil, id: FlexibleValue? = nil, name: String? = nil) {
        self.href = href
        self.id = id
        self.name = name
    }
}

/// A game's vendor: expanded (`expand=vendor`) or only `{href}`.
@_spi(CatalogTools) public struct ProviderVendor: Codable, Sendable, Hashable {
    public var href: String?
    public var id: FlexibleValue?
    public var name: String?
    public var displayName: String?
    public var logo: String?
    public var image: String?

    public init(
        href: String? = nil, id: FlexibleValue? = nil, name: String? = nil, displayName: String? = nil,
        logo: String? = nil, image: String? = nil
    ) {
        self.href = href
        self.id = id
        self.name = name
        self.displayName = displayName
        self.logo = logo
        self.image = image
    }
}
