@_spi(CatalogTools) import CasinoCatalog
import Dispatch
import Foundation
import Logging

extension GameFilter {
    /// Where the territory and the withdrawals survive a relaunch, so the next launch's first frame
    /// already follows them: files beside the disk tier's entries, each written as a `DurableFile`
    /// (a kill -9 leaves the old file or the new one) on one queue off the caller's thread.
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

        private let directory: URL
        private let logger: Logger
        private let queue = DispatchQueue(label: "CasinoCache.GameFilter.Store", qos: .utility)

        init(directory: URL, logger: Logger) {
            self.directory = directory
            self.logger = logger
        }

        /// The territory the last launch saved, or `nil`.
        func loadTerritory() -> Territory? {
            let contents: DiskTierFiles.Contents?
            do {
                contents = try DiskTierFiles(directory: directory).read(
                    Self.territoryFileName, limit: Self.maxTerritoryBytes)
            } catch {
                logger.info("the saved territory is unreadable; none is assumed", metadata: ["cache.error": "\(error)"])
                return nil
            }
            guard let contents else { return nil }
            let text = String(decoding: contents.data, as: UTF8.self)
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
                    guard
                        let contents = try DiskTierFiles(directory: directory).read(
                            name, limit: Self.maxWithdrawalsBytes)
                    else { continue }
                    let withdrawals = try Withdrawals(savedForm: contents.data)
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
            queue.async { [directory, logger] in
                do {
                    guard let territory else {
                        let path = directory.appendingPathComponent(Self.territoryFileName).path
                        if unlink(path) != 0, errno != ENOENT {
                            throw DurableFile.Failure(operation: "remove \(Self.territoryFileName)", code: errno)
                        }
                        return
                    }
                    try DurableFile.write(
                        Data("\(territory.code)\n".utf8), to: Self.territoryFileName, creating: directory)
                } catch {
                    logger.warning(
                        "the territory could not be saved; the next launch starts without it",
                        metadata: ["cache.error": "\(error)"])
                }
            }
        }

        /// Saves `withdrawals`, after keeping `previous` as the previous file; returns at once.
        func save(_ withdrawals: Withdrawals, previous: Withdrawals) {
            queue.async { [directory, logger] in
                do {
                    for (name, value) in [
                        (Self.previousWithdrawalsFileName, previous), (Self.withdrawalsFileName, withdrawals),
                    ] {
                        try DurableFile.write(value.savedForm(), to: name, creating: directory)
                    }
                } catch {
                    logger.error(
                        "the withdrawal list could not be saved; the next launch uses the one before",
                        metadata: ["cache.error": "\(error)"])
                }
            }
        }

        /// Waits until the saves asked so far are done.
        func flush() async {
            await queue.result {}
        }

        /// ``flush()``, waiting at most `limit`; `false` when the limit came first.
        func flush(within limit: Duration) async -> Bool {
            await queue.drained(within: limit)
        }
    }
}
