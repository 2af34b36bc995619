@_spi(CatalogTools) import CasinoCatalog
import Foundation

/// A bundle fixture's lookups into the catalogue it holds, which the tests compare answers with.
protocol BundledCatalogFixture {
    var catalog: Catalog { get }
}

extension BundledCatalogFixture {
    var generatedAt: Date { catalog.generatedAt }

    func categories(_ edition: Edition = english) -> CategoryList {
        catalog.editions.first { $0.edition == edition }!.categories
    }

    func page(_ categoryId: String, offset: Int = 0, edition: Edition = english) -> GamesPage {
        catalog.editions.first { $0.edition == edition }!.pages.first {
            $0.categoryId == categoryId && $0.offset == offset
        }!
    }

    /// The first page of the category at `index` of `edition`'s lobby.
    func firstPage(_ index: Int = 0, edition: Edition = english) -> GamesPage {
        page(categories(edition).items[index].id, edition: edition)
    }

    var firstCategoryId: String { categories().items[0].id }
}
