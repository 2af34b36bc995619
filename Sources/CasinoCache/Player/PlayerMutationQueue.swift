@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
public import Foundation
public import Logging

/// Where unsent player mutations survive a restart: one small file per player in a directory the
/// app chooses (``PlayerMutationQueueFile`` holds the format).
///
/// Unlike the disk tier, a lost write here loses what a player did, so the files are kept by a
/// ``DurableStore``: a reader sees the old queue or the new one, never half of one. Writes run off
/// the caller's thread and coalesce: of several saves of one player's queue before the writer gets
/// to it, only the last is written. Until it lands, ``load(player:)`` answers the saved value.
///
/// A file that does not decode (truncated, garbage, another player's, a flipped byte) is deleted,
/// counted in ``corruptFiles`` and logged, and its mutations are never replayed.
@_spi(CatalogTools) public final class PlayerMutationQueue: Sendable {
    /// The directory the queue files live in; created on the first write.
    public let directory: URL
    /// The Data Protection class the directory gets at the first write (Apple platforms only).
    public let fileProtection: CacheFileProtection
    private let logger: Logger
    private let files: DurableStore
    private let counts = Locked((corruptFiles: 0, writeFailures: 0))

    /// - Parameters:
    ///   - directory: Where the files live: somewhere the system does not purge (Application
    ///     Support on Apple platforms), since a purged file is a player's change lost.
    ///   - fileProtection: The Data Protection class of the files:
    ///     ``CacheFileProtection/completeUntilFirstUserAuthentication`` by default.
    ///   - logger: Where refused files and failed writes are logged (at `.info`).
    public init(directory: URL, fileProtection: CacheFileProtection = .default, logger: Logger = .casinoCacheDisabled) {
        self.directory = directory
        self.fileProtection = fileProtection
        self.logger = logger
        let counts = counts
        files = DurableStore(
            directory: directory, label: "CasinoCache.PlayerMutationQueue", qos: .userInitiated,
            temporaryPrefix: ".mutations-",
            preparation: StoragePreparation(
                .playerChanges, protection: fileProtection, directory: directory, logger: logger),
            // "": a temporary file of an earlier version, `.mutations-<UUID>.tmp`.
            keeps: { $0.isEmpty || $0.hasSuffix(".mutations") },
            failed: { name, failure in
                counts.withLock { $0.writeFailures += 1 }
                logger.info(
                    "player mutation queue write failed",
                    metadata: [
                        "cache.file": "\(name)", "cache.directory": "\(directory.path)", "cache.error": "\(failure)",
                    ])
            })
    }

    /// `player`'s queued mutations, oldest first: the save not yet written, else the file's. A
    /// file that is refused is deleted and counted; the answer is then empty.
    public func load(player: String) -> [PlayerMutation] {
        let name = PlayerMutationQueueFile.fileName(for: player)
        let data: Data?
        do {
            data = try files.load(name, limit: PlayerMutationQueueFile.maxFileBytes)
        } catch {
            reject(name, reason: error.description)
            return []
        }
        guard let data else { return [] }
        do throws(PlayerMutationQueueFile.Rejection) {
            return try PlayerMutationQueueFile.decode(data, player: player)
        } catch {
            reject(name, reason: error.reason)
            return []
        }
    }

    /// Makes `mutations` `player`'s queue (empty: no file); returns at once, the write follows.
    public func save(_ mutations: [PlayerMutation], player: String) {
        let name = PlayerMutationQueueFile.fileName(for: player)
        guard !mutations.isEmpty else { return files.remove(name) }
        files.save(as: name) { try PlayerMutationQueueFile.encode(mutations, player: player) }
    }

    /// Deletes every player's queue (a reset of the whole cache).
    public func removeAll() {
        files.removeAll()
    }

    /// Waits until every save so far is on disk (or has failed).
    public func flush() async {
        await files.flush()
    }

    /// ``flush()``, waiting at most `limit`; `false` when the limit came first.
    func flush(within limit: Duration) async -> Bool {
        await files.flush(within: limit)
    }

    /// Files found unusable and deleted so far.
    public var corruptFiles: Int { counts.withLock { $0.corruptFiles } }
    /// Writes that failed so far (the mutations stay queued in memory and are written again with
    /// the next save).
    public var writeFailures: Int { counts.withLock { $0.writeFailures } }

    /// Deletes a refused file (unless a save is on its way to replace it), counts and logs it.
    private func reject(_ name: String, reason: String) {
        counts.withLock { $0.corruptFiles += 1 }
        logger.info(
            "player mutation queue file refused, deleting it; its mutations are not replayed",
            metadata: ["cache.file": "\(name)", "cache.reason": "\(reason)"])
        files.discard(name)
    }
}
