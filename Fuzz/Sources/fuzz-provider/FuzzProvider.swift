@_spi(CatalogTools) import CasinoCatalog
import Foundation
@_spi(CatalogTools) import ProviderAPI

/// The provider's DTOs and their one mapping to the schema, as the pipeline and the app's HTTP
/// upstream use them: a hostile response is skipped records and notes, never a trap. What the
/// mapping keeps must pass the schema's rules, since bundled and live pages must look alike.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProvider(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let decoder = JSONDecoder()
    if let response = try? decoder.decode(ProviderCollection<Lossy<ProviderGame>>.self, from: data) {
        let offset = [0, 10, Int.max - 5, -1][Int(data.first ?? 0) % 4]
        let page = ProviderMapping.gamesPage(from: response, categoryId: "FUZZ", offset: max(0, offset), limit: 10)
        for game in page.value.items {
            precondition(game.violations().isEmpty, "the mapping kept a game the schema rejects: \(game.violations())")
        }
        _ = page.value.hasMore
    }
    if let response = try? decoder.decode(ProviderCollection<Lossy<ProviderCategory>>.self, from: data) {
        for category in ProviderMapping.categoryList(from: response).value.items {
            precondition(category.violations().isEmpty, "the mapping kept a category the schema rejects")
        }
    }
    if let text = String(data: data, encoding: .utf8) {
        // A request line as the simulator parses it: path?name=value&…
        let parts = text.split(separator: "?", maxSplits: 1)
        var parameters: [String: String] = [:]
        for pair in parts.dropFirst().first?.split(separator: "&") ?? [] {
            let field = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            parameters[String(field[0])] = field.count > 1 ? String(field[1]) : ""
        }
        if let request = try? ProviderRequest(path: String(parts.first ?? ""), parameters: parameters) {
            _ = request.url(relativeTo: URL(string: "https://provider.example.com")!)
        }
        _ = RetryAfter.seconds(from: text, now: Date(timeIntervalSince1970: 1_795_168_800))
    }
    return 0
}
