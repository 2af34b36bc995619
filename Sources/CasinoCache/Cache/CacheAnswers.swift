@_spi(CatalogTools) import CasinoCatalog
import Foundation

/// The one path by which content leaves the cache: every ``CacheResult`` a read returns is built by
/// ``result(_:tier:state:now:extract:)``, every other value handed to the app (a change's outcome)
/// by ``value(of:_:)``, and every update on the stream is sent by ``publish(_:)``. A rule that applies
/// to everything an app is shown belongs here.
final class CacheAnswers: Sendable {
    /// When the bundled snapshot was generated: every answer's metadata carries it.
    let snapshotGeneratedAt: Date?
    /// Where the bundled tier's snapshot came from: a bundled entry's ``CacheMetadata/source``.
    let snapshotSource: CacheMetadata.Source
    /// The games withheld (restricted in the player's territory, or withdrawn): they leave no
    /// answer and no update.
    let filter: GameFilter
    private let broadcaster = UpdateBroadcaster()
    private let statistics: StatisticsCounter

    init(
        snapshotGeneratedAt: Date?, snapshotSource: CacheMetadata.Source, filter: GameFilter,
        statistics: StatisticsCounter
    ) {
        self.snapshotGeneratedAt = snapshotGeneratedAt
        self.snapshotSource = snapshotSource
        self.filter = filter
        self.statistics = statistics
    }

    /// The answer for `entry`, found in `tier` and classified as `state` (never `.miss`); `extract`
    /// picks the typed value.
    func result<Value: Sendable>(
        _ entry: borrowing CacheEntry, tier: CacheMetadata.Tier, state: CacheState, now: Date,
        extract: (CatalogContent) -> Value
    ) -> CacheResult<Value> {
        result(entry, tier: tier, state: state, now: now, shown: shown(entry), extract: extract)
    }

    /// ``result(_:tier:state:now:extract:)`` for an entry that shows `shown` (`nil`: all of it), as
    /// the memory tier keeps it.
    func result<Value: Sendable>(
        _ entry: borrowing CacheEntry, tier: CacheMetadata.Tier, state: CacheState, now: Date,
        shown: ShownContent?, extract: (CatalogContent) -> Value
    ) -> CacheResult<Value> {
        var metadata = CacheMetadata(
            tier: tier, storedAt: entry.storedAt, age: max(now.timeIntervalSince(entry.storedAt), 0),
            snapshotGeneratedAt: snapshotGeneratedAt)
        let value: Value
        if let shown {
            metadata.withheld = shown.withheld
            value = extract(shown.content)
        } else {
            value = extract(entry.content)
        }
        switch state {
        case .fresh: return .fresh(value, metadata)
        case .stale: return .stale(value, metadata)
        case .bundled:
            // Set in this arm: a branch on `state` before it made the optimizer copy the entry.
            metadata.source = snapshotSource
            return .bundled(value, metadata)
        // Unreachable: a miss has no entry. Trapping rather than answering `.miss` keeps the entry
        // borrowed on the hit path (an arm that dropped `value` made the optimizer retain the whole entry).
        case .miss: preconditionFailure("a miss has no entry to answer with")
        }
    }

    /// What `entry` shows now: `nil` when the filter withholds none of its games.
    func shown(_ entry: borrowing CacheEntry) -> ShownContent? {
        filter.filters(entry) ? filter.withholding(entry.content) : nil
    }

    /// The value an app is shown of `content`, without the games withheld; `extract` picks it.
    @inline(__always)
    func value<Value>(of content: borrowing CatalogContent, _ extract: (CatalogContent) -> Value) -> Value {
        filter.filters(content) ? extract(filter.withholding(content).content) : extract(content)
    }

    /// What changed from `old` to `new` as the app sees it: the withheld games' ids out of the
    /// inserted and updated ones (as ``publish(_:)`` sends an update).
    func changes(from old: CatalogContent?, to new: CatalogContent) -> ContentChanges {
        shown(new, ContentChanges(from: old, to: new)).changes
    }

    /// Sends `update` to its subscribers, its content without the games withheld
    /// (and their ids out of the changes); new content is counted in ``CacheStatistics/updatesEmitted``.
    func publish(_ update: CacheUpdate) {
        var update = update
        if case .updated(let content, let changes) = update.event {
            statistics.record { $0.updatesEmitted += 1 }
            let shown = shown(content, changes)
            update.event = .updated(shown.content, shown.changes)
        }
        broadcaster.publish(update)
    }

    /// `content` without the games withheld, and `changes` without their ids among the inserted
    /// and updated ones.
    private func shown(
        _ content: CatalogContent, _ changes: ContentChanges
    ) -> (content: CatalogContent, changes: ContentChanges) {
        guard filter.filters(content) else { return (content, changes) }
        let shown = filter.withholding(content).content
        let withheld = Set(content.ids).subtracting(shown.ids)
        var changes = changes
        changes.inserted.removeAll { withheld.contains($0) }
        changes.updated.removeAll { withheld.contains($0) }
        return (shown, changes)
    }

    /// Sends each of `updates` (``publish(_:)``); returns their keys.
    func publish(_ updates: [CacheUpdate]) -> [CacheKey] {
        for update in updates { publish(update) }
        return updates.map(\.key)
    }

    /// ``publish(_:)`` of new content for `key`: what changed since `previous` is worked out only
    /// when someone listens to `key` (a miss nobody watches pays for none of it).
    func publishChange(of key: CacheKey, from previous: CatalogContent?, to content: CatalogContent) {
        guard broadcaster.hasSubscribers(for: key) else {
            statistics.record { $0.updatesEmitted += 1 }
            return
        }
        publish(CacheUpdate(key: key, event: .updated(content, ContentChanges(from: previous, to: content))))
    }

    /// Ends every subscription: the cache is gone.
    func finish() {
        broadcaster.finish()
    }

    /// A new stream of the updates of `key` from now on, or of every update when `key` is `nil`.
    func subscribe(to key: CacheKey? = nil) -> AsyncStream<CacheUpdate> {
        broadcaster.subscribe(to: key)
    }
}
