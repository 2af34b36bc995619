@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
public import Foundation

/// Reads a cache directory copied from a device (Xcode's "Download Container", a simulator's data
/// folder) offline, into the report ``CatalogCache/inspection(updater:)`` would give on the device
/// now, its memory empty as at a launch: what `catalog inspect-cache` prints.
///
/// Every file is hostile and nothing is trusted or changed: the directory is only listed and read
/// (no file is written, renamed or removed, no link followed), and each file that cannot be used is
/// named in ``Finding``s, "unreadable" with why, or "not ours". A directory holding nothing the
/// cache writes is refused.
@_spi(CatalogTools) public enum CacheDirectoryReader {
    /// A file the report leaves out, and why.
    public struct Finding: Codable, Sendable, Hashable, CustomStringConvertible {
        /// The file's path under the directory.
        public var file: String
        /// `unreadable: <why>`, `not ours`, or `left by an interrupted write`.
        public var problem: String
        public var description: String { "\(problem): \(file)" }
    }

    /// A directory that cannot be read as a cache directory at all.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// The report of `directory` read with `bundle` (the snapshot the app ships, or its installed
    /// generation) as the app configured by `configuration` would answer at `now`, with `overTheAir`
    /// (``SnapshotUpdater/inspection(ofDirectory:)``) as what its updater installed.
    ///
    /// - Throws: ``Refusal`` when `directory` is missing, not a directory, or holds nothing the
    ///   cache writes.
    public static func inspect(
        _ directory: URL, bundle: URL?, configuration: CatalogCache.Configuration = .default,
        overTheAir: CacheInspection.OverTheAir? = nil, now: Date
    ) throws(Refusal) -> (inspection: CacheInspection, findings: [Finding]) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory),
            isDirectory.boolValue,
            (try? FileManager.default.destinationOfSymbolicLink(atPath: directory.path)) == nil
        else {
            throw Refusal(description: "\(directory.path) is not a directory")
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
        let ownNames: Set = [
            GameFilter.Store.territoryFileName, GameFilter.Store.withdrawalsFileName,
            GameFilter.Store.previousWithdrawalsFileName, mutationsDirectoryName,
        ]
        guard names.contains(where: { DiskTierFormat.isEntry($0) || ownNames.contains($0) }) else {
            throw Refusal(
                description:
                    "\(directory.path) holds nothing a cache writes (\(names.count) files; a cache directory holds "
                    + "entries named *\(DiskTierFormat.suffix), Territory, Withdrawals or \(mutationsDirectoryName)/)")
        }
        var findings: [Finding] = []
        var entries: [CacheEntry] = []
        let files = DiskTierFiles(directory: directory)
        let maxEntryBytes = DiskTier.Configuration(directory: directory).maxEntryBytes
        for name in names where !ownNames.contains(name) {
            if DiskTierFiles.isTemporary(name) {
                findings.append(Finding(file: name, problem: "left by an interrupted write"))
                continue
            }
            guard DiskTierFormat.isEntry(name) else {
                findings.append(Finding(file: name, problem: "not ours"))
                continue
            }
            do {
                entries.append(
                    try entry(
                        named: name, in: files, cacheVersion: configuration.cacheVersion, maxEntryBytes: maxEntryBytes))
            } catch {
                findings.append(Finding(file: name, problem: "unreadable: \(error)"))
            }
        }
        let (players, playerFindings) = queuedChanges(in: directory.appendingPathComponent(mutationsDirectoryName))
        findings += playerFindings
        let bundled = bundle.map {
            BundledTier(configuration: .init(directory: $0, limits: configuration.bundleLimits))
        }
        // The device's cache as it would launch: memory empty, the territory and withdrawals read
        // (never written) from the directory, the disk entries read here.
        let cache = CatalogCache(
            configuration: configuration, upstream: NoUpstream(), memory: nil, disk: nil, bundled: bundled,
            mutationQueue: nil, territoryDirectory: directory, savesTerritory: false, clock: FixedClock(now: now),
            logger: .casinoCacheDisabled)
        let onDisk = Dictionary(entries.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let inspection = cache.report(
            inMemory: [], below: Array(onDisk.keys), now: now, players: players, overTheAir: overTheAir
        ) { key in cache.tiers.entryBelowMemory(key, onDisk: onDisk[key]) }
        // The territory and withdrawals the filter could not read are files left out too.
        if names.contains(GameFilter.Store.territoryFileName), inspection.territory == nil {
            findings.append(
                Finding(file: GameFilter.Store.territoryFileName, problem: "unreadable: not a territory code"))
        }
        if inspection.withdrawals.isLost {
            findings += [GameFilter.Store.withdrawalsFileName, GameFilter.Store.previousWithdrawalsFileName]
                .filter(names.contains).map {
                    Finding(
                        file: $0, problem: "unreadable: no good withdrawal list (every restricted game is withheld)")
                }
        }
        return (inspection, findings.sorted { $0.file < $1.file })
    }

    static let mutationsDirectoryName = "PlayerMutations"

    /// The entry in file `name`, checked as the disk tier checks it, and stored under that name.
    private static func entry(
        named name: String, in files: DiskTierFiles, cacheVersion: Int, maxEntryBytes: Int
    ) throws -> CacheEntry {
        guard let file = try files.read(name, limit: maxEntryBytes) else {
            throw DiskTierFormat.Rejection(reason: "removed while read")
        }
        let (header, _) = try DiskTierFormat.Header.parse(file.data, cacheVersion: cacheVersion)
        guard let key = CacheKey(stored: header.key) else {
            throw DiskTierFormat.Rejection(reason: "the stored key is not a key")
        }
        guard DiskTierFormat.name(for: key) == name else {
            throw DiskTierFormat.Rejection(reason: "stored for another key (\(header.key.prefix(120)))")
        }
        return try DiskTierFormat.decode(file, for: key, cacheVersion: cacheVersion, maxBytes: maxEntryBytes)
    }

    /// The players with changes queued in `directory`, each file checked whole as the queue checks it.
    private static func queuedChanges(in directory: URL) -> ([CacheInspection.Player], [Finding]) {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
        let files = DiskTierFiles(directory: directory)
        var players: [CacheInspection.Player] = []
        var findings: [Finding] = []
        for name in names {
            let path = "\(mutationsDirectoryName)/\(name)"
            guard name.hasSuffix(PlayerMutationQueueFile.fileSuffix) else {
                findings.append(
                    Finding(file: path, problem: name.hasPrefix(".") ? "left by an interrupted write" : "not ours"))
                continue
            }
            do {
                guard let file = try files.read(name, limit: PlayerMutationQueueFile.maxFileBytes) else { continue }
                guard let player = PlayerMutationQueueFile.player(in: file.data),
                    PlayerMutationQueueFile.fileName(for: player) == name
                else {
                    throw PlayerMutationQueueFile.Rejection(reason: "the header names no player of this file")
                }
                let mutations = try PlayerMutationQueueFile.decode(file.data, player: player)
                if !mutations.isEmpty {
                    players.append(
                        .init(player: CatalogCache.hashed(player), queued: mutations.count, isWaitingToRetry: false))
                }
            } catch {
                findings.append(Finding(file: path, problem: "unreadable: \(error)"))
            }
        }
        return (players, findings)
    }
}

/// A clock stopped at one time: the report's "now".
private struct FixedClock: CacheClock {
    let now: Date
    func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}
