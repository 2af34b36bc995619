@_spi(CatalogTools) public import CasinoCatalog

/// Withdrawals: games the provider took away, gone from every answer of every tier at once.
extension CatalogCache {
    /// The sequence of the complete withdrawal list held (0: none): bulk validation sends it, and
    /// the provider answers with a newer list.
    public var withdrawalSequence: Int {
        filter.withdrawalSequence
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
        answers.publish(
            try filter.changeWithdrawals { withdrawals throws(WithdrawalListError) in
                try withdrawals.replace(with: list)
            })
    }

    /// Adds the games of a pushed withdrawal (``CatalogInvalidation/withdrawals``) to those held:
    /// a push only takes games away. As ``applyWithdrawals(_:)`` otherwise.
    ///
    /// - Throws: ``WithdrawalListError`` when the push is invalid or not newer than every sequence
    ///   seen.
    @discardableResult
    public func addWithdrawals(_ push: WithdrawalList) throws(WithdrawalListError) -> [CacheKey] {
        answers.publish(
            try filter.changeWithdrawals { withdrawals throws(WithdrawalListError) in try withdrawals.add(push) })
    }
}
