@_spi(CatalogTools) public import CasinoCatalog
import CatalogSupport

/// Withdrawals: games the provider took away, gone from every answer of every tier at once.
extension CatalogCache {
    /// The sequence of the complete withdrawal list held (0: none): bulk validation sends it, and
    /// the provider answers with a newer list.
    public var withdrawalSequence: Int {
        withdrawals.withLock { $0.listSequence }
    }

    /// Replaces the withdrawals with `list`, a complete list (from the provider, or an over-the-air
    /// manifest): the very next read of any tier, the bundle included, leaves out the games it
    /// names, and a game it no longer names returns. Saved for the next launch before the files
    /// of a later change. A key on the update stream whose shown games changed gets an update
    /// (its ``ContentChanges`` name them), so a lobby on screen drops the tile without a refetch.
    ///
    /// - Returns: The keys whose shown games changed.
    /// - Throws: ``WithdrawalListError`` when the list is invalid, or its sequence is not newer than
    ///   the list held (a replay); the withdrawals held stay.
    @discardableResult
    public func applyWithdrawals(_ list: WithdrawalList) throws(WithdrawalListError) -> [CacheKey] {
        try changeWithdrawals { withdrawals throws(WithdrawalListError) in try withdrawals.replace(with: list) }
    }

    /// Adds the games of a pushed withdrawal (``CatalogInvalidation/withdrawals``) to those held:
    /// a push only takes games away. As ``applyWithdrawals(_:)`` otherwise.
    ///
    /// - Throws: ``WithdrawalListError`` when the push is invalid or not newer than every sequence
    ///   seen.
    @discardableResult
    public func addWithdrawals(_ push: WithdrawalList) throws(WithdrawalListError) -> [CacheKey] {
        try changeWithdrawals { withdrawals throws(WithdrawalListError) in try withdrawals.add(push) }
    }

    /// The provider answered and had no newer list: the list held stands, and a lost one (unreadable
    /// at launch) no longer widens what is withheld.
    func confirmWithdrawals() {
        withdrawals.withLock { withdrawals in
            guard answers.filter.isWithdrawalListLost else { return }
            answers.filter.setWithdrawn(withdrawals.index, isListLost: false)
            memory.refilter()
        }
    }

    /// Changes the withdrawals, filters by them, saves them and announces the keys shown differently.
    private func changeWithdrawals(
        _ change: (inout Withdrawals) throws(WithdrawalListError) -> Void
    ) throws(WithdrawalListError) -> [CacheKey] {
        let outcome = withdrawals.withLock { withdrawals -> Result<[CacheUpdate], WithdrawalListError> in
            var next = withdrawals
            do throws(WithdrawalListError) { try change(&next) } catch { return .failure(error) }
            // What memory shows before and after: the keys a lobby may have on screen.
            let entries = memory.allEntries()
            let before = entries.map { answers.value(of: $0.content) { Set($0.ids) } }
            answers.filter.setWithdrawn(next.index, isListLost: false)
            memory.refilter()
            withdrawalStore?.save(next, previous: withdrawals)
            withdrawals = next
            return .success(
                zip(entries, before).compactMap { entry, before in
                    let after = answers.value(of: entry.content) { Set($0.ids) }
                    guard after != before else { return nil }
                    let ids = entry.content.ids
                    let changes = ContentChanges(
                        inserted: ids.filter { after.contains($0) && !before.contains($0) },
                        removed: ids.filter { before.contains($0) && !after.contains($0) })
                    return CacheUpdate(key: entry.key, event: .updated(entry.content, changes))
                })
        }
        let changed = try outcome.get()
        for update in changed { answers.publish(update) }
        return changed.map(\.key)
    }
}
