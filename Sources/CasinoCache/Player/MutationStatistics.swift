/// What the player mutations have done so far (``CatalogCache/mutationStatistics()``).
public struct MutationStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Changes made (shown at once).
    public var made = 0
    /// Changes the upstream applied.
    public var applied = 0
    /// Changes the server refused (undone and reported).
    public var rejected = 0
    /// Changes dropped unsent because the queue was full (undone and reported).
    public var dropped = 0
    /// Sends that could not reach the upstream (the change stayed queued).
    public var deferredSends = 0
    /// Queue files refused on read (truncated, garbage, another player's): deleted, never replayed.
    public var corruptQueueFiles = 0
    /// Queue writes that failed.
    public var queueWriteFailures = 0

    public init() {}

    public var description: String {
        "made \(made), applied \(applied), rejected \(rejected), dropped \(dropped), deferred sends \(deferredSends), "
            + "corrupt queue files \(corruptQueueFiles), queue write failures \(queueWriteFailures)"
    }
}
