/// One page of a category's game list, cut exactly where the provider cuts it.
///
/// A page covers the provider's positions `offset ..< offset + limit`; the page after it starts
/// at `offset + limit` (never at a page number times a hard-coded size). Records the normalizer
/// refused (invalid, or a duplicate of an earlier game) leave the page shorter than `limit`
/// without moving later pages, so a page fetched live for the same offset replaces a bundled
/// one exactly. ``hasMore`` follows the provider: `offset + limit < total`.
public struct GamesPage: Codable, Sendable, Hashable {
    /// The category the page belongs to.
    public var categoryId: String
    /// The index of the first item in the category's full list.
    public var offset: Int
    /// The page size the page was cut with (its capacity).
    public var limit: Int
    /// How many items the page holds; always `items.count`, at most `limit`.
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

    /// Whether the category has games after this page: `offset + limit < total`.
    public var hasMore: Bool { nextOffset < total }

    /// The offset of the next page: `offset + limit` (`Int.max` where that would overflow, which
    /// only a page that breaks the schema's rules can reach).
    public var nextOffset: Int {
        let (sum, overflow) = offset.addingReportingOverflow(limit)
        return overflow ? Int.max : sum
    }
}
