/// One page of a category's game list, as the lobby pages it.
///
/// Pages are addressed by `offset`, never by a page number: the page after this one starts
/// at `offset + count`, and ``hasMore`` says whether there is one.
public struct GamesPage: Codable, Sendable, Hashable {
    /// The category the page belongs to.
    public var categoryId: String
    /// The index of the first item in the category's full list.
    public var offset: Int
    /// The page size the page was cut with (its capacity).
    public var limit: Int
    /// How many items the page holds; always `items.count`.
    public var count: Int
    /// How many games the category holds in all.
    public var total: Int
    /// The games, in lobby order.
    public var items: [Game]

    /// Creates a page; `count` is taken from `items`.
    public init(categoryId: String, offset: Int, limit: Int, total: Int, items: [Game]) {
        self.categoryId = categoryId
        self.offset = offset
        self.limit = limit
        self.count = items.count
        self.total = total
        self.items = items
    }

    /// Whether the category has games after this page: `offset + count < total`.
    public var hasMore: Bool { offset + count < total }
}
