public import Foundation

/// What a lookup answered, with what a UI needs to know about the value.
///
/// ```swift
/// let result = cache.cachedCategories(edition: edition)
/// if let list = result.value { render(list) } else { showPlaceholder() }
/// if result.state == .bundled { showOfflineBadge() }
/// ```
public enum CacheResult<Value: Sendable>: Sendable {
    /// Within its time to live: served without touching the network.
    case fresh(Value, CacheMetadata)
    /// Past its time to live: served now. The async reads refresh it in the background and an
    /// update follows when the content changed; the synchronous reads never touch the network.
    case stale(Value, CacheMetadata)
    /// The snapshot shipped inside the app: nothing is cached yet, or what is cached is older than
    /// the snapshot. Refreshed like ``stale(_:_:)``.
    case bundled(Value, CacheMetadata)
    /// Nothing at all (only from the synchronous reads; the async ones fetch instead).
    case miss

    /// The value, unless this is a miss. (Inlinable, like ``metadata``, so an app's read of a
    /// result is specialized for its type instead of going through generic code.)
    @inlinable
    public var value: Value? {
        switch self {
        case .fresh(let value, _), .stale(let value, _), .bundled(let value, _): value
        case .miss: nil
        }
    }

    /// What is known about the value, unless this is a miss.
    @inlinable
    public var metadata: CacheMetadata? {
        switch self {
        case .fresh(_, let metadata), .stale(_, let metadata), .bundled(_, let metadata): metadata
        case .miss: nil
        }
    }

    /// Whether a newer value should be fetched (the async reads start that fetch themselves).
    @inlinable
    public var needsRefresh: Bool {
        if case .fresh = self { return false }
        return true
    }

    /// How the lookup answered: ``CacheState/fresh``, ``CacheState/stale``, ``CacheState/bundled``
    /// or ``CacheState/miss``.
    @inlinable
    public var state: CacheState {
        switch self {
        case .fresh: .fresh
        case .stale: .stale
        case .bundled: .bundled
        case .miss: .miss
        }
    }

    /// The same answer with the value transformed: the state and metadata stay.
    ///
    /// ```swift
    /// let names = cache.cachedCategories(edition: edition).map { $0.items.map(\.name) }
    /// ```
    public func map<Other: Sendable>(_ transform: (Value) throws -> Other) rethrows -> CacheResult<Other> {
        switch self {
        case .fresh(let value, let metadata): .fresh(try transform(value), metadata)
        case .stale(let value, let metadata): .stale(try transform(value), metadata)
        case .bundled(let value, let metadata): .bundled(try transform(value), metadata)
        case .miss: .miss
        }
    }
}

extension CacheResult: Equatable where Value: Equatable {}
extension CacheResult: Hashable where Value: Hashable {}

/// How a lookup answered, without the value: what a UI shows beside content (an offline or
/// "updating" badge) and what tests compare.
public enum CacheState: String, Codable, Sendable, Hashable, CaseIterable {
    /// Within its time to live.
    case fresh
    /// Past its time to live; a refresh follows.
    case stale
    /// From the snapshot shipped inside the app; a refresh follows.
    case bundled
    /// Nothing cached.
    case miss
}

/// What the cache knows about a value it answered with.
public struct CacheMetadata: Sendable, Hashable {
    /// The tier that answered.
    public var tier: Tier
    /// When it was fetched or last revalidated (for bundled content: the snapshot's generation time).
    public var storedAt: Date
    /// How old it was when answered.
    public var age: TimeInterval
    /// When the bundled snapshot shipped with the app was generated, if there is one.
    public var snapshotGeneratedAt: Date?
    /// Games the answer leaves out because they are restricted in the player's territory (or, with
    /// none known, anywhere: ``CatalogCache/Configuration/unknownTerritoryPolicy``); a page's
    /// `count` is its items', its `total` the provider's.
    public var withheld: Int
    /// Where the content came from, whichever tier keeps it now: what a debug overlay shows.
    public var source: Source

    public init(
        tier: Tier, storedAt: Date, age: TimeInterval, snapshotGeneratedAt: Date?, withheld: Int = 0,
        source: Source = .network
    ) {
        self.tier = tier
        self.storedAt = storedAt
        self.age = age
        self.snapshotGeneratedAt = snapshotGeneratedAt
        self.withheld = withheld
        self.source = source
    }

    /// The tiers, in lookup order.
    public enum Tier: String, Codable, Sendable, Hashable {
        case memory, disk, bundled, upstream
    }

    /// Where a value came from.
    public enum Source: String, Codable, Sendable, Hashable {
        /// The upstream (the network), in this session or an earlier one.
        case network
        /// The snapshot shipped inside the app.
        case bundle
        /// An over-the-air snapshot generation (``SnapshotUpdater``), served since launch.
        case overTheAir
    }
}
