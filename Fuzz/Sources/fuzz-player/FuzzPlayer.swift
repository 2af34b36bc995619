@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCatalog
import Foundation
@_spi(CatalogTools) import ProviderAPI

/// What the player lobby reads from disk and from the network: an offline mutation queue file
/// (decoded as the cache decodes it at launch) and the player routes' paths (parsed as the
/// simulator parses them). Hostile bytes are a refusal, never a trap; a queue that decodes
/// encodes back to a queue that decodes to the same mutations, each keeping the rules.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlayer(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    for player in ["42", "a/b", "🎰"] {
        guard let mutations = try? PlayerMutationQueueFile.decode(data, player: player) else { continue }
        precondition(mutations.count <= PlayerMutationQueueFile.maxCount, "more mutations than the cap")
        precondition(mutations.allSatisfy { $0.player == player }, "a mutation of another player replayed")
        let again = try! PlayerMutationQueueFile.encode(mutations, player: player)
        precondition(
            (try? PlayerMutationQueueFile.decode(again, player: player)) == mutations, "a queue does not round-trip")
        var page = GamesPage(categoryId: PlayerList.favourites.categoryId, offset: 0, limit: 10, total: 0, items: [])
        for mutation in mutations { page = mutation.applied(to: page) }
        precondition(page.items.count <= page.limit && page.total >= page.items.count, "a change broke the page")
    }
    if let text = String(data: data, encoding: .utf8) {
        for method in ["GET", "PUT", "DELETE"] {
            let path = PlayerRequest.pathPrefix + text
            if let request = try? PlayerRequest(
                method: method, path: path,
                parameters: ["language": "en", "platform": "iPhone", "offset": "0", "limit": "10"])
            {
                precondition(
                    !request.path.contains("/../") && !request.path.hasSuffix("/.."), "an id became path structure")
                precondition(
                    (try? PlayerRequest(
                        method: request.method, path: request.path,
                        parameters: ["language": "en", "platform": "iPhone", "offset": "0", "limit": "10"])) == request,
                    "a request does not print back to itself")
            }
        }
    }
    return 0
}
