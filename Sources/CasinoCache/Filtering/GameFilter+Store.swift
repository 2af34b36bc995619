@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Logging

extension GameFilter {
    /// Where the territory and the withdrawals survive a relaunch, so the next launch's first frame
    /// already follows them: files beside the disk tier's entries, kept by a ``DurableStore`` (a
    /// kill -9 leaves the old file or the new one; writes off the caller's thread).
    ///
    /// - `Territory`: the code and a newline. A file that is missing, too long, not a territory code,
    ///   a link or a directory reads as no territory (``UnknownTerritoryPolicy`` then decides), never
    ///   as a wider one.
    /// - `Withdrawals` (``Withdrawals/savedForm()``), and the one before it as `Withdrawals.previous`.
    ///   A file that is truncated, garbage, too large, a link or a directory is never read as fewer
    ///   withdrawals: the previous file stands in, and when neither is good the list is lost.
    final class Store: Sendable {
        static let territoryFileName = "Territory"
        static let withdrawalsFileName = "Withdrawals"
        static let previousWithdrawalsFileName = "Withdrawals.previous"
        private static let maxTerritoryBytes = 64
        /// A saved list holds at most a complete list and as many pushed games, and their JSON.
        private static let maxWithdrawalsBytes = 2 * WithdrawalList.maxJSONBytes + 4096

        /// The files. Their temporaries start as the disk tier's do (`.casinocache-`), as they did
        /// before this store.
        let files: DurableStore
        private let logger: Logger

        init(directory: URL, logger: Logger) {
            self.logger = logger
            let names: Set = [Self.territoryFileName, Self.withdrawalsFileName, Self.previousWithdrawalsFileName]
            files = DurableStore(
                directory: directory, label: "CasinoCache.GameFilter.Store", temporaryPrefix: ".casinocache-",
                keeps: { names.contains($0) },
                failed: { name, failure in
                    if name == Self.territoryFileName {
                        logger.warning(
                            "the territory could not be saved; the next launch starts without it",
                            metadata: ["cache.error": "\(failure)"])
                    } else {
                        logger.error(
                            "the withdrawal list could not be saved; the next launch uses the one before",
                            metadata: ["cache.file": "\(name)", "cache.error": "\(failure)"])
                    }
                })
        }

        /// The territory the last launch saved, or `nil`.
        func loadTerritory() -> Territory? {
            let data: Data?
            do {
                data = try files.load(Self.territoryFileName, limit: Self.maxTerritoryBytes)
            } catch {
                logger.info("the saved territory is unreadable; none is assumed", metadata: ["cache.error": "\(error)"])
                return nil
            }
            guard let data else { return nil }
            let text = String(decoding: data, as: UTF8.self)
            guard text.hasSuffix("\n"), let territory = Territory(String(text.dropLast())) else {
                logger.info("the saved territory is not a territory code; none is assumed")
                return nil
            }
            return territory
        }

        /// The withdrawals the last launch saved (none when nothing was), and whether a saved file was
        /// unreadable with no good copy (the list is lost).
        func loadWithdrawals() -> (withdrawals: Withdrawals, isLost: Bool) {
            var isLost = false
            for name in [Self.withdrawalsFileName, Self.previousWithdrawalsFileName] {
                do {
                    guard let data = try files.load(name, limit: Self.maxWithdrawalsBytes) else { continue }
                    let withdrawals = try Withdrawals(savedForm: data)
                    if isLost {
                        logger.warning("using the previous withdrawal list", metadata: ["cache.file": "\(name)"])
                    }
                    return (withdrawals, false)
                } catch {
                    logger.error(
                        "a saved withdrawal list is unreadable",
                        metadata: ["cache.file": "\(name)", "cache.error": "\(error)"])
                    isLost = true
                }
            }
            if isLost {
                logger.error(
                    "no saved withdrawal list is readable; every restricted game is withheld until a complete list arrives"
                )
            }
            return (Withdrawals(), isLost)
        }

        /// Saves `territory` (`nil`: removes the file); returns at once.
        func save(_ territory: Territory?) {
            guard let territory else { return files.remove(Self.territoryFileName) }
            files.save(Data("\(territory.code)\n".utf8), as: Self.territoryFileName)
        }

        /// Saves `withdrawals`, after keeping `previous` as the previous file; returns at once (both
        /// are encoded on the store's queue).
        func save(_ withdrawals: Withdrawals, previous: Withdrawals) {
            files.save(as: Self.previousWithdrawalsFileName) { previous.savedForm() }
            files.save(as: Self.withdrawalsFileName) { withdrawals.savedForm() }
        }
    }
}
