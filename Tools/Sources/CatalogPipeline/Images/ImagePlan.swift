@_spi(CatalogTools) public import CasinoCatalog

/// Which image URLs a snapshot bundles, in the order they are kept: the first screen of each
/// category, by position.
///
/// Per edition, each category's first page (offset 0) gives its first
/// ``PipelineConfiguration/ImageBundling/gamesPerCategory`` games, and each of those the configured
/// fields. The URLs are ranked by the game's position on its page first, then by the category's
/// place in the lobby, then by field: every category's first game comes before any second game.
/// Cutting the list from the end therefore drops the lowest positions first.
///
/// ```swift
/// let plan = ImagePlan(catalog: catalog, bundling: configuration.bundleImages!)
/// plan.urls           // every distinct URL of every edition, for a fetch
/// ```
public struct ImagePlan: Sendable {
    /// One wanted image of one edition.
    public struct Wanted: Sendable, Hashable {
        /// The URL as the snapshot's game names it.
        public var url: String
        /// The game's index on its category's first page, from 0.
        public var position: Int
        /// Where it comes from, for reports: `en-iPhone VIDEOSLOTS #2 (34795) thumbnail`.
        public var origin: String
    }

    /// One edition's wanted images.
    public struct EditionPlan: Sendable, Hashable {
        public var edition: Edition
        /// By rank, each URL once.
        public var wanted: [Wanted]
    }

    /// Per edition, in the catalogue's order.
    public var editions: [EditionPlan]

    @_spi(CatalogTools) public init(catalog: Catalog, bundling: PipelineConfiguration.ImageBundling) {
        editions = catalog.editions.map { edition in
            let firstPages = edition.categories.items.compactMap { category in
                edition.pages.first { $0.categoryId == category.id && $0.offset == 0 }
            }
            var ranked: [(rank: (Int, Int, Int), wanted: Wanted)] = []
            for (categoryIndex, page) in firstPages.enumerated() {
                for (position, game) in page.items.prefix(bundling.gamesPerCategory).enumerated() {
                    for (fieldIndex, field) in bundling.fields.enumerated() {
                        let url: String? =
                            switch field {
                            case .thumbnail: game.thumbnail
                            case .backgroundImageUrl: game.backgroundImageUrl
                            }
                        guard let url else { continue }
                        let origin =
                            "\(edition.edition) \(page.categoryId.prefix(128)) #\(position + 1) (\(game.id.prefix(128))) \(field.rawValue)"
                        ranked.append(
                            (
                                (position, categoryIndex, fieldIndex),
                                Wanted(url: url, position: position, origin: origin)
                            ))
                    }
                }
            }
            ranked.sort { $0.rank < $1.rank }
            var seen = Set<String>()
            return EditionPlan(
                edition: edition.edition, wanted: ranked.map(\.wanted).filter { seen.insert($0.url).inserted })
        }
    }

    /// Every distinct URL the plan wants, sorted.
    public var urls: [String] {
        Array(Set(editions.flatMap { $0.wanted.map(\.url) })).sorted()
    }
}
