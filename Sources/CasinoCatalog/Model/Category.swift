/// A lobby category (`VIDEOSLOTS`, "Video Slots") with the number of games it holds.
public struct Category: Codable, Sendable, Hashable, Identifiable {
    /// The provider's category identifier, e.g. `VIDEOSLOTS`. Never empty.
    public var id: String
    /// The display name in the edition's language.
    public var name: String
    /// The provider's API link for the category, when it gave one (absolute https).
    public var href: String?
    /// How many games the category holds at the provider. Always greater than zero in a
    /// snapshot: empty categories are neither shown nor bundled.
    public var gamesTotal: Int

    public init(id: String, name: String, href: String? = nil, gamesTotal: Int) {
        self.id = id
        self.name = name
        self.href = href
        self.gamesTotal = gamesTotal
    }
}

/// The categories of one edition, in lobby order.
public struct CategoryList: Codable, Sendable, Hashable {
    /// The categories, in the order the lobby shows them.
    public var items: [Category]

    public init(items: [Category]) {
        self.items = items
    }
}
