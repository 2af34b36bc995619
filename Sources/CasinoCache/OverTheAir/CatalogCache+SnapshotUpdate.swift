@_spi(CatalogTools) import CasinoCatalog
import Logging

extension CatalogCache {
    /// Checks for an over-the-air snapshot (``SnapshotUpdater/checkForUpdate()``) and applies the
    /// withdrawal list signed with it at once, to every tier and the bundle: the list of a set
    /// installed now, or when up to date, the installed generation's (so a process killed between
    /// the install and the list catches up). The snapshot itself serves from the next launch; a
    /// list not newer than the one held changes nothing.
    ///
    /// ```swift
    /// let outcome = try await cache.checkForSnapshotUpdate(with: updater)
    /// ```
    ///
    /// - Returns: What the check did.
    /// - Throws: What ``SnapshotUpdater/checkForUpdate()`` throws.
    public func checkForSnapshotUpdate(with updater: SnapshotUpdater) async throws -> SnapshotUpdater.Outcome {
        let outcome = try await updater.checkForUpdate()
        let list: WithdrawalList? =
            switch outcome {
            case .installed(let installation): installation.withdrawals
            case .upToDate: updater.installedWithdrawals()
            case .refused: nil
            }
        guard let list, list.sequence > withdrawalSequence else { return outcome }
        do {
            let changed = try applyWithdrawals(list)
            logger.info(
                "applied the withdrawal list signed with the over-the-air snapshot",
                metadata: ["cache.withdrawalSequence": "\(list.sequence)", "cache.keysChanged": "\(changed.count)"])
        } catch  where error.code == .notNewer {
            // Another call applied it (or a newer list) meanwhile.
        } catch {
            logger.error(
                "the withdrawal list signed with the over-the-air snapshot is refused",
                metadata: ["cache.error": "\(error)"])
        }
        return outcome
    }
}
