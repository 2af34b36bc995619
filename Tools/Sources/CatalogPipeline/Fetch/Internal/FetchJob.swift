@_spi(CatalogTools) import CasinoCatalog
import Foundation
@_spi(CatalogTools) import ProviderAPI

/// One request of a fetch: what it asks for, what its answer must agree with, and where the
/// answer is written in the ``RecordingLayout``.
struct FetchJob: Sendable, Hashable, CustomStringConvertible {
    /// The request, built by `ProviderRequest` (never by hand).
    let request: ProviderRequest
    /// For a games page: which page it is and the category's announced game count.
    let page: Page?

    /// Where a games page sits in its category.
    struct Page: Sendable, Hashable {
        /// 1 for the first page.
        let number: Int
        /// Pages fetched for the category.
        let count: Int
        /// The category's `games.total` in the categories response.
        let expectedTotal: Int
    }

    /// An edition's categories.
    static func categories(_ edition: Edition) -> FetchJob {
        FetchJob(request: .categories(edition), page: nil)
    }

    /// The pages to fetch for a category of `total` games: `min(⌈total / limit⌉, maxPages)`.
    static func pages(
        _ edition: Edition, categoryId: String, total: Int, limit: Int, maxPages: Int
    ) -> [FetchJob] {
        guard total > 0 else { return [] }
        // `total` is the provider's: ⌈total / limit⌉ without `total + limit - 1`, which overflows near Int.max.
        let count = min(total / limit + (total % limit == 0 ? 0 : 1), maxPages)
        return (0..<count).map { index in
            FetchJob(
                request: .gamesPage(edition, categoryId: categoryId, offset: index * limit, limit: limit),
                page: Page(number: index + 1, count: count, expectedTotal: total))
        }
    }

    /// The file the response is written to.
    func file(in layout: RecordingLayout) -> URL {
        switch request {
        case .categories(let edition):
            layout.categoriesFile(for: edition)
        case .gamesPage(let edition, let categoryId, let offset, _):
            layout.gamesPageFile(for: edition, categoryId: categoryId, offset: offset)
        }
    }

    /// The file's path inside the recording (`en-iPhone/games/videoslots-d4a8b457ac/10.json`),
    /// the key of `etags.json`.
    var relativePath: String {
        String(file(in: RecordingLayout(root: URL(fileURLWithPath: "/"))).path.dropFirst())
    }

    /// `categories of en-iPhone`, `games page 3 of 5 of VIDEOSLOTS (en-iPhone, offset 20)`.
    var description: String {
        switch request {
        case .categories(let edition):
            return "categories of \(edition)"
        case .gamesPage(let edition, let categoryId, let offset, _):
            let position = page.map { "page \($0.number) of \($0.count)" } ?? "page"
            return "games \(position) of \(categoryId) (\(edition), offset \(offset))"
        }
    }
}
