@_spi(CatalogTools) import CasinoCatalog
import Foundation
@_spi(CatalogTools) import ProviderAPI

/// What a response body says that the fetch needs, once it is known to be a collection envelope.
enum ResponseContent: Sendable, Hashable {
    /// A categories response: each usable category, in provider order.
    case categories([CategoryCount])
    /// A games page: the collection's `total`.
    case gamesPage(total: Int)

    /// A category's id and announced game count (`games.total`).
    struct CategoryCount: Sendable, Hashable {
        let id: String
        let total: Int
    }
}

/// Checks that a body is the collection envelope the recorded source reads — the same decoding,
/// `ProviderCollection<Lossy<…>>` with an `items` array — so that a truncated or garbled body is
/// caught (and retried) while fetching, not when normalizing.
enum ResponseCheck {
    /// Why a body is not usable.
    struct Problem: Error, Sendable {
        let text: String
    }

    /// Decodes `data` as the answer to `job`.
    static func content(of data: Data, for job: FetchJob) -> Result<ResponseContent, Problem> {
        guard !data.isEmpty else { return .failure(Problem(text: "the body is empty")) }
        do {
            switch job.request {
            case .categories:
                let envelope = try CatalogCoding.decoder().decode(
                    ProviderCollection<Lossy<ProviderCategory>>.self, from: data)
                guard let items = envelope.items else { return .failure(Problem(text: "it has no items array")) }
                let categories = items.compactMap { item -> ResponseContent.CategoryCount? in
                    guard let category = item.value, let id = category.id?.text, !id.isEmpty else { return nil }
                    return ResponseContent.CategoryCount(id: id, total: category.games?.total ?? 0)
                }
                return .success(.categories(categories))
            case .gamesPage:
                let envelope = try CatalogCoding.decoder().decode(
                    ProviderCollection<Lossy<ProviderGame>>.self, from: data)
                guard envelope.items != nil else { return .failure(Problem(text: "it has no items array")) }
                guard let total = envelope.total else { return .failure(Problem(text: "it has no total")) }
                return .success(.gamesPage(total: total))
            }
        } catch {
            return .failure(Problem(text: DecodingFailure.describe(error)))
        }
    }
}
