@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Dispatch
public import Foundation
public import Logging

/// Where unsent player mutations survive a restart: one small file per player in a directory the
/// app chooses (``PlayerMutationQueueFile`` holds the format).
///
/// Unlike the disk tier, a lost write here loses what a player did, so each write is a
/// `DurableFile`: a reader sees the old queue or the new one, never half of one.
/// Writes run on a private serial queue and coalesce: of several saves of one player's queue
/// before the writer gets to it, only the last is written. Until it lands, ``load(player:)``
/// answers the saved value.
///
/// A file that does not decode (truncated, garbage, another player's, a flipped byte) is deleted,
/// counted in ``corruptFiles`` and logged, and its mutations are never replayed.
@_spi(CatalogTools) public final class PlayerMutationQueue: Sendable {
    /// The directory the queue files live in; created on the first write.
    public let directory: URL
    /// The Data Protection class the directory gets at the first write (Apple platforms only).
    public let fileProtection: CacheFileProtection
    private let logger: Logger
    private let files: DiskTierFiles
    private let preparation: StoragePreparation
    private let queue = DispatchQueue(label: "CasinoCache.PlayerMutationQueue", qos: .userInitiated)

    private struct State {
        var sequence: UInt64 = 0
        /// Saves not yet on disk: player → (sequence, mutations; empty deletes the file).
        var pending: [String: (sequence: UInt64, mutations: [PlayerMutation])] = [:]
        var hasScanned = false
        var corruptFiles = 0
        var writeFailures = 0
    }

    private let state = Locked(State())

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
        files = DiskTierFiles(directory: directory)
        preparation = StoragePreparation(
            .playerChanges, protection: fileProtection, directory: directory, logger: logger)
    }

    /// `player`'s queued mutations, oldest first: the save not yet written, else the file's. A
    /// file that is refused is deleted and counted; the answer is then empty.
    public func load(player: String) -> [PlayerMutation] {
        if let pending = state.withLock({ $0.pending[player] }) { return pending.mutations }
        let name = PlayerMutationQueueFile.fileName(for: player)
        let data: Data?
        do {
            data = try files.read(name, limit: PlayerMutationQueueFile.maxFileBytes)?.data
        } catch {
            reject(name, player: player, reason: error.description)
            return []
        }
        guard let data else { return [] }
        do throws(PlayerMutationQueueFile.Rejection) {
            return try PlayerMutationQueueFile.decode(data, player: player)
        } catch {
            reject(name, player: player, reason: error.reason)
            return []
        }
    }

    /// Makes `mutations` `player`'s queue (empty: no file); returns at once, the write follows.
    public func save(_ mutations: [PlayerMutation], player: String) {
        let sequence = state.withLock { state in
            state.sequence += 1
            state.pending[player] = (state.sequence, mutations)
            return state.sequence
        }
        queue.async { self.write(player: player, sequence: sequence) }
    }

    /// Deletes every player's queue (a reset of the whole cache).
    public func removeAll() {
        state.withLock { $0.pending.removeAll() }
        queue.async {
            for name in self.queueFileNames() { self.files.delete(name) }
        }
    }

    /// Waits until every save so far is on disk (or has failed).
    public func flush() async {
        await queue.result {}
    }

    /// ``flush()``, waiting at most `limit`; `false` when the limit came first.
    func flush(within limit: Duration) async -> Bool {
        await queue.drained(within: limit)
    }

    /// Files found unusable and deleted so far.
    public var corruptFiles: Int { state.withLock { $0.corruptFiles } }
    /// Writes that failed so far (the mutations stay queued in memory and are written again with
    /// the next save).
    public var writeFailures: Int { state.withLock { $0.writeFailures } }

    // MARK: - Writer queue

    private func write(player: String, sequence: UInt64) {
        guard
            let mutations = state.withLock({
                $0.pending[player]?.sequence == sequence ? $0.pending[player]?.mutations : nil
            })
        else { return }  // a later save superseded this one
        removeLeftoversOnce()
        let name = PlayerMutationQueueFile.fileName(for: player)
        do {
            if mutations.isEmpty {
                files.delete(name)
            } else {
                try writeDurably(try PlayerMutationQueueFile.encode(mutations, player: player), to: name)
            }
        } catch {
            state.withLock { $0.writeFailures += 1 }
            logger.info(
                "player mutation queue write failed",
                metadata: ["cache.file": "\(name)", "cache.directory": "\(directory.path)", "cache.error": "\(error)"])
        }
        state.withLock { state in
            if state.pending[player]?.sequence == sequence { state.pending[player] = nil }
        }
    }

    /// The queue file `name`, written as a `DurableFile`.
    private func writeDurably(_ data: Data, to name: String) throws {
        preparation.prepareOnce()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try DurableFile.write(
            data, to: name, in: directory,
            temporaryName: Self.temporaryPrefix + UUID().uuidString + Self.temporarySuffix)
    }

    /// Deletes temporary files a crash left behind, once per process, before the first write.
    private func removeLeftoversOnce() {
        guard
            state.withLock({ state in
                defer { state.hasScanned = true }
                return !state.hasScanned
            })
        else { return }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name.hasPrefix(Self.temporaryPrefix) && name.hasSuffix(Self.temporarySuffix) {
            files.delete(name)
        }
    }

    private func queueFileNames() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter {
            $0.hasSuffix(".mutations") || ($0.hasPrefix(Self.temporaryPrefix) && $0.hasSuffix(Self.temporarySuffix))
        }
    }

    /// Deletes a refused file (unless a save is on its way to replace it), counts and logs it.
    private func reject(_ name: String, player: String, reason: String) {
        state.withLock { $0.corruptFiles += 1 }
        logger.info(
            "player mutation queue file refused, deleting it; its mutations are not replayed",
            metadata: ["cache.file": "\(name)", "cache.reason": "\(reason)"])
        queue.async {
            guard self.state.withLock({ $0.pending[player] == nil }) else { return }
            self.files.delete(name)
        }
    }

    private static let temporaryPrefix = ".mutations-"
    private static let temporarySuffix = ".tmp"
}
