@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCatalog
import Foundation

/// What a withdrawal list arrives as: the provider's list (bulk validation, `--withdrawals`, an
/// over-the-air manifest), a push's `withdraw` object, and the cache's saved file. Hostile bytes are
/// a named refusal, never a trap; a list that reads keeps the rules and prints back to itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWithdrawals(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    if let list = try? WithdrawalList(json: data) {
        precondition(list.sequence >= 1 && list.games.count <= WithdrawalList.maxGames, "a list broke its caps")
        precondition(Set(list.games.map(\.id)).count == list.games.count, "a game named twice")
        precondition((try? WithdrawalList(json: list.json())) == list, "a list does not round-trip")
    }
    if let push = try? CatalogInvalidation(json: data), let list = push.withdrawals {
        precondition(push.withdrawalError == nil && list.sequence >= 1, "a refused push kept its withdrawals")
    }
    if let saved = try? Withdrawals(savedForm: data) {
        let form = saved.savedForm()
        precondition((try? Withdrawals(savedForm: form))?.savedForm() == form, "a saved form does not round-trip")
    }
    return 0
}
