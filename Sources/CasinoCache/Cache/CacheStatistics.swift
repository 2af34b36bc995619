/// Counters of what the cache did, for the app to log or show (`print(cache.statistics())`).
public struct CacheStatistics: Codable, Sendable, Hashable, CustomStringConvertible {
    /// Answers within their time to live.
    public var fresh = 0
    /// Answers past their time to live (refreshed in the background).
    public var stale = 0
    /// Answers from the snapshot shipped inside the app.
    public var bundled = 0
    /// Lookups that found nothing cached: synchronous misses, async lookups that waited for the
    /// upstream, and pages past the cached limit.
    public var misses = 0
    /// Of the lookups counted stale or bundled, those whose content was older than
    /// ``CatalogCache/Configuration/maxContentAge``: not shown (a miss to the synchronous reads).
    public var tooOld = 0
    /// Calls made to the upstream, bulk validations included.
    public var upstreamCalls = 0
    /// Bulk validation requests made (``CatalogCache/synchronize()``).
    public var validationRequests = 0
    /// Entries a bulk validation found current: renewed without fetching their content.
    public var validatedCurrent = 0
    /// Changed entries installed from content carried inline in a bulk validation answer.
    public var validatedInline = 0
    /// Changed entries a bulk validation named without content, then fetched.
    public var validatedRefetched = 0
    /// Requests that joined a call already in flight for the same key instead of making one.
    public var coalescedRequests = 0
    /// Upstream answers that said "not modified".
    public var notModified = 0
    /// Background refreshes that failed.
    public var refreshFailures = 0
    /// Updates emitted on the update stream (content changes only).
    public var updatesEmitted = 0
    /// Entries evicted from memory for its limits.
    public var memoryEvictions = 0
    /// Entries evicted from disk for its size limit.
    public var diskEvictions = 0
    /// Disk entries found corrupt, truncated, of another version or key (deleted, never served).
    public var corruptDiskEntries = 0
    /// Bundled files that failed verification (never served).
    public var corruptBundledFiles = 0
    /// Bundled images that failed verification: missing, tampered, or not their type (never served).
    public var corruptBundledImages = 0
    /// Disk writes that failed (unwritable or full directory).
    public var diskWriteFailures = 0

    public init() {}

    /// Lookups answered in all.
    public var lookups: Int { fresh + stale + bundled + misses }

    /// The share of lookups answered without waiting for the network, `0...1`.
    public var hitRate: Double {
        lookups == 0 ? 0 : Double(fresh + stale + bundled) / Double(lookups)
    }

    public var description: String {
        "lookups \(lookups) (fresh \(fresh), stale \(stale), bundled \(bundled), miss \(misses)\(tooOld > 0 ? ", too old \(tooOld)" : ""); hit rate "
            + "\(Int((hitRate * 100).rounded())) %), upstream calls \(upstreamCalls), coalesced \(coalescedRequests), "
            + "not modified \(notModified), validations \(validationRequests) (current \(validatedCurrent), inline "
            + "\(validatedInline), refetched \(validatedRefetched)), refresh failures \(refreshFailures), updates \(updatesEmitted), "
            + "evictions memory \(memoryEvictions) disk \(diskEvictions), corrupt disk \(corruptDiskEntries) "
            + "bundled \(corruptBundledFiles), corrupt bundled images \(corruptBundledImages), disk write failures \(diskWriteFailures)"
    }
}
