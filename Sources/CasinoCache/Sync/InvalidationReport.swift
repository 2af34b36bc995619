@_spi(CatalogTools) public import CasinoCatalog

/// What one ``CatalogCache/markStale(_:)`` did.
public struct InvalidationReport: Sendable, Hashable, CustomStringConvertible {
    /// Patterns in the invalidation.
    public var patterns = 0
    /// Payload entries that were skipped (``CatalogInvalidation/rejected``).
    public var rejected = 0
    /// Entries held in memory or on disk that a pattern named, now stale.
    public var matched = 0
    /// Matched entries in memory refreshed (started, or sent in one bulk validation).
    public var refreshed = 0
    /// The keys whose shown games the push's withdrawals changed.
    public var withdrawnFrom: [CacheKey] = []
    /// Why the push's withdrawals were refused (invalid, or not newer: a replay), if they were.
    public var withdrawalError: WithdrawalListError?

    public init(patterns: Int = 0, rejected: Int = 0) {
        self.patterns = patterns
        self.rejected = rejected
    }

    public var description: String {
        "patterns \(patterns) (rejected \(rejected)), matched \(matched), refreshed \(refreshed)"
            + (withdrawnFrom.isEmpty ? "" : ", withdrawn from \(withdrawnFrom.count) keys")
            + (withdrawalError.map { ", withdrawals refused: \($0)" } ?? "")
    }
}
