public import Foundation

/// A whole normalized catalogue: every edition's categories and bundled pages.
///
/// This is what the pipeline's `normalize` step produces and its `snapshot` step writes out
/// as one file per category list and page.
@_spi(CatalogTools) public struct Catalog: Codable, Sendable, Hashable {
    /// When the source data was fetched (or `SOURCE_DATE_EPOCH`), never the wall clock.
    public var generatedAt: Date
    /// A human description of where the data came from (`recorded provider data/provider`).
    public var source: String
    /// The page size the pages were cut with.
    public var pageSize: Int
    /// The edition an app falls back to when its own is not bundled.
    public var defaultEdition: Edition
    /// The editions, sorted by id.
    public var editions: [EditionCatalog]

    public init(
        generatedAt: Date, source: String, pageSize: Int, defaultEdition: Edition, editions: [EditionCatalog]
    ) {
        self.generatedAt = generatedAt
        self.source = source
        self.pageSize = pageSize
        self.defaultEdition = defaultEdition
        self.editions = editions
    }
}

/// One edition's categories and the bundled pages of each.
@_spi(CatalogTools) public struct EditionCatalog: Codable, Sendable, Hashable {
    /// The edition.
    public var edition: Edition
    /// The categories, in lobby order.
    public var categories: CategoryList
    /// The bundled pages, grouped by category in lobby order, each group by offset.
    public var pages: [GamesPage]

    public init(edition: Edition, categories: CategoryList, pages: [GamesPage]) {
        self.edition = edition
        self.categories = categories
        self.pages = pages
    }
}
