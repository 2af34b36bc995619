@_spi(CatalogTools) public import CasinoCatalog
public import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// The provider's withdrawal list: games a supplier or a regulator took away.
///
/// - `POST /_admin/withdraw` with a ``Withdrawal`` (`{"id": "10017"}`, or with `"territories"`)
///   adds it to the list at the next sequence and answers the push payload that announces it:
///   `{"catalog": {"withdraw": {"sequence": 1, "games": [{"id": "10017"}]}}}`.
/// - Bulk validation answers with the complete list when the request's `withdrawalSequence` is
///   older (``CacheValidation``).
extension CatalogSimulator {
    /// The complete list now, `nil` before the first withdrawal.
    public var withdrawals: WithdrawalList? { withdrawalList.withLockedValue { $0 } }

    /// Withdraws a game (everywhere, or in its `territories`; a game withdrawn again is replaced)
    /// at the next sequence, and returns the push payload that announces it.
    public func withdraw(_ withdrawal: Withdrawal) throws -> Data {
        let sequence = try withdrawalList.withLockedValue { list -> Int in
            var next = list ?? WithdrawalList(sequence: 0, games: [])
            next.sequence += 1
            next.games.removeAll { $0.id == withdrawal.id }
            next.games.append(withdrawal)
            try next.check()
            list = next
            return next.sequence
        }
        let push = ["catalog": ["withdraw": WithdrawalList(sequence: sequence, games: [withdrawal])]]
        return try CatalogCoding.encoder().encode(push)
    }

    /// The list for a validation request that holds `sequence`: the complete one when newer.
    func withdrawals(newerThan sequence: Int?) -> WithdrawalList? {
        guard let sequence, let list = withdrawals, list.sequence > sequence else { return nil }
        return list
    }

    func addWithdrawalRoutes(to router: Router<BasicRequestContext>) {
        router.post("/_admin/withdraw") { request, _ in
            let body = try await request.body.collect(upTo: 64 << 10)
            guard let asked = try? JSONDecoder().decode(Withdrawal.self, from: Data(body.readableBytesView)) else {
                return Self.failure(
                    status: 400, message: "expected {\"id\": \"…\"} and optionally \"territories\": […]")
            }
            do {
                return Self.json(try self.withdraw(asked))
            } catch {
                return Self.failure(status: 400, message: "\(error)")
            }
        }
    }
}
