@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation

extension CatalogCache {
    /// What the cache holds and why, now: every key memory and the disk hold, and each bundled
    /// edition's category list that neither holds, as a read would answer it (state, tier, source,
    /// age, validator, content hash), the games each answer leaves out and why, the territory, the withdrawal list, the snapshot and what `updater` installed,
    /// the players' unsent changes (counted, ids hashed) and the statistics.
    ///
    /// Reads never wait for it: memory is copied out under its lock in one step, and disk entries are
    /// read one at a time as a read would read them (a file that fails its checks is a miss, and
    /// removed, as on any read). Nothing is marked used and nothing is moved between tiers. A
    /// cache of 3,000 entries takes about as long as reading them all once.
    ///
    /// ```swift
    /// // A debug screen's "Export cache report" button, or a shake gesture:
    /// let report = await cache.inspection(updater: updater)
    /// let encoder = JSONEncoder()
    /// encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    /// encoder.dateEncodingStrategy = .iso8601
    /// let url = FileManager.default.temporaryDirectory.appendingPathComponent("cache-report.json")
    /// try encoder.encode(report).write(to: url)  // attach it to the bug; `catalog inspect-cache --report`
    /// ```
    ///
    /// - Parameter updater: The app's over-the-air updater, if it has one: its generations are reported.
    public func inspection(updater: SnapshotUpdater? = nil) async -> CacheInspection {
        let now = currentDate()
        let inMemory = tiers.memory.allEntries()
        let onDisk = await tiers.disk?.storedGlobalEntries().map(\.key) ?? []
        let players = players.overlay.withLock { overlay in
            overlay.pending.filter { !$0.value.isEmpty }.map { player, pending in
                CacheInspection.Player(
                    player: Self.hashed(player), queued: pending.count,
                    isWaitingToRetry: overlay.parked.contains(player))
            }
        }
        return report(
            inMemory: inMemory, below: onDisk, now: now, players: players, overTheAir: updater?.inspection()
        ) { self.tiers.entryBelowMemory($0) }
    }

    /// The report of `inMemory`, the keys `below` it and the snapshot's category lists (each read
    /// with `read`, as a read would find it), and the rest of what the cache knows:
    /// ``inspection(updater:)`` and, for a directory read offline, ``CacheDirectoryReader``.
    func report(
        inMemory: [CacheEntry], below: [CacheKey], now: Date, players: [CacheInspection.Player],
        overTheAir: CacheInspection.OverTheAir?, read: (CacheKey) -> (CacheEntry, CacheMetadata.Tier)?
    ) -> CacheInspection {
        let held = Dictionary(inMemory.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        // Each edition's category list too: where neither holds it, the snapshot's is its lobby's order.
        let lists = (tiers.bundled?.editions ?? []).map { CacheKey.categories($0) }
        let keys = Set(held.keys).union(below).union(lists).sorted { $0.description < $1.description }
        let entries = keys.compactMap { key -> CacheInspection.Entry? in
            if let entry = held[key] { return inspected(entry, tier: .memory, now: now) }
            guard let (entry, tier) = read(key) else { return nil }  // removed meanwhile, or unreadable
            return inspected(entry, tier: tier, now: now)
        }
        return CacheInspection(
            takenAt: now, territory: filter.territory?.code, unknownTerritoryPolicy: filter.policy,
            withdrawals: filter.withdrawalsInspection, snapshot: snapshotInspection(), overTheAir: overTheAir,
            entries: entries, players: players.sorted { $0.player < $1.player }, statistics: statistics())
    }

    private func inspected(_ entry: CacheEntry, tier: CacheMetadata.Tier, now: Date) -> CacheInspection.Entry {
        let key =
            switch entry.key.scope {
            case .global: entry.key.description
            case .user(let player): "user:#\(Self.hashed(player))/\(entry.key.content)"
            }
        return CacheInspection.Entry(
            key: key,
            state: CacheTiers.state(
                origin: entry.origin, storedAt: entry.storedAt, now: now, timeToLive: tiers.timeToLive(for: entry.key)),
            tier: tier, source: entry.origin == .network ? .network : answers.snapshotSource,
            storedAt: entry.storedAt, age: max(now.timeIntervalSince(entry.storedAt), 0), etag: entry.etag,
            contentHash: try? entry.contentHash(), items: entry.content.ids.count, listing: entry.content.listing,
            withheld: filter.withheldGames(in: entry.content))
    }

    private func snapshotInspection() -> CacheInspection.Snapshot? {
        guard let bundled = tiers.bundled, let head = bundled.head else { return nil }
        return CacheInspection.Snapshot(
            source: bundled.source, generatedAt: head.generatedAt, contentHash: head.contentHash,
            editions: head.editions.map(\.id), corruptFiles: bundled.corruptFiles)
    }

    /// The first 12 hex digits of the SHA-256 of a player's id: enough to tell players apart in a
    /// report, not to name them.
    static func hashed(_ player: String) -> String {
        String(SHA256Digest.hex(Data(player.utf8)).prefix(12))
    }
}

extension CatalogContent {
    /// The categories or games in order, as ``CacheInspection/Entry/listing`` reports them.
    fileprivate var listing: [CacheInspection.Item] {
        switch self {
        case .categories(let list): list.items.map { .init(id: $0.id, name: $0.name) }
        case .gamesPage(let page): page.items.map { .init(id: $0.id, name: $0.name, thumbnail: $0.thumbnail) }
        }
    }
}
