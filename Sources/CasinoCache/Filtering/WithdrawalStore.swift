@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Dispatch
import Foundation
import Logging

/// Where the withdrawals survive a relaunch: the file `Withdrawals` beside the disk tier's entries,
/// and the one before it as `Withdrawals.previous`, each written as a `DurableFile` (a kill -9 leaves
/// the old file or the new one) off the caller's thread. A file that is truncated, garbage, too
/// large, a link or a directory is never read as fewer withdrawals: the previous file stands in,
/// and when neither is good the cache withholds every restricted game until a complete list arrives.
final class WithdrawalStore: Sendable {
    static let fileName = "Withdrawals"
    static let previousFileName = "Withdrawals.previous"
    /// A saved file holds at most a complete list and as many pushed games, and their JSON.
    private static let maxBytes = 2 * WithdrawalList.maxJSONBytes + 4096

    /// What a launch finds: the withdrawals saved (none when nothing was), and whether a saved file
    /// was unreadable with no good copy (the list is lost).
    struct Loaded {
        var withdrawals = Withdrawals()
        var isLost = false
    }

    private let directory: URL
    private let logger: Logger
    private let queue = DispatchQueue(label: "CasinoCache.WithdrawalStore", qos: .utility)

    init(directory: URL, logger: Logger) {
        self.directory = directory
        self.logger = logger
    }

    func load() -> Loaded {
        var isLost = false
        for name in [Self.fileName, Self.previousFileName] {
            do {
                guard let withdrawals = try read(name) else { continue }
                if isLost {
                    logger.warning("using the previous withdrawal list", metadata: ["cache.file": "\(name)"])
                }
                return Loaded(withdrawals: withdrawals, isLost: false)
            } catch {
                logger.error(
                    "a saved withdrawal list is unreadable",
                    metadata: ["cache.file": "\(name)", "cache.error": "\(error)"])
                isLost = true
            }
        }
        if isLost {
            logger.error(
                "no saved withdrawal list is readable; every restricted game is withheld until a complete list arrives")
        }
        return Loaded(isLost: isLost)
    }

    /// The withdrawals in the file `name`, `nil` when there is no such file.
    private func read(_ name: String) throws -> Withdrawals? {
        guard let contents = try DiskTierFiles(directory: directory).read(name, limit: Self.maxBytes) else {
            return nil
        }
        return try Withdrawals(savedForm: contents.data)
    }

    /// Saves `withdrawals`, after keeping `previous` as the previous file; returns at once.
    func save(_ withdrawals: Withdrawals, previous: Withdrawals) {
        queue.async { [directory, logger] in
            do {
                for (name, value) in [(Self.previousFileName, previous), (Self.fileName, withdrawals)] {
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
