/// What one ``CatalogCache/synchronize()`` sent and what each verdict did.
public struct SynchronizationReport: Sendable, Hashable, CustomStringConvertible {
    /// Catalogue entries held (memory and disk) and sent for validation (those read before a
    /// cancellation, when it was cancelled).
    public var keys = 0
    /// Bulk validation requests made, failed ones included.
    public var requests = 0
    /// Requests that failed (offline, timed out, 429, 500, a bad answer): their keys were
    /// refreshed one by one instead.
    public var failedRequests = 0
    /// `false` when the upstream has no bulk validation (every key was refreshed one by one).
    public var isSupported = true
    /// Entries found current and renewed without a fetch.
    public var current = 0
    /// Changed entries installed from content inline in the answer.
    public var installed = 0
    /// Changed entries fetched because the answer carried no content for them.
    public var refetched = 0
    /// Of ``refetched``, the fetches that failed (the old entry stays).
    public var failedFetches = 0
    /// Entries the provider no longer has, forgotten.
    public var removed = 0
    /// Keys the answer left out or called unknown.
    public var unanswered = 0
    /// Refreshes started key by key for entries that were not fresh (the fallback).
    public var refreshedKeyByKey = 0
    /// The calling task was cancelled: no request, fetch or refresh started after that; the verdicts
    /// already received were acted on, and their writes were waited for as usual.
    public var isCancelled = false
    /// The sequence of the withdrawal list the provider sent and the cache applied, if one came.
    public var withdrawalSequence: Int?
    /// The keys whose shown games that list changed.
    public var withdrawnFrom: [CacheKey] = []

    public init(keys: Int = 0) {
        self.keys = keys
    }

    public var description: String {
        "keys \(keys), requests \(requests) (failed \(failedRequests)\(isSupported ? "" : ", unsupported")), current \(current), "
            + "installed \(installed), refetched \(refetched) (failed \(failedFetches)), removed \(removed), "
            + "unanswered \(unanswered), refreshed key by key \(refreshedKeyByKey)\(isCancelled ? ", cancelled" : "")"
            + (withdrawalSequence.map { ", withdrawal list \($0) (\(withdrawnFrom.count) keys changed)" } ?? "")
    }
}
