/// Bulk validation: one request tells the cache which of the entries it holds are still current
/// (``CatalogSynchronizer``).
extension CatalogCache {
    /// Validates every catalogue entry held in memory (the bundled content the app has shown
    /// among it) and on disk in one upstream request (more above 500 keys), then acts on each
    /// verdict:
    ///
    /// - current: the entry becomes fresh without a fetch (its age renewed, its content kept);
    /// - changed, with content inline: the content is checked like any upstream answer, stored
    ///   and announced on ``updates()``;
    /// - changed without content: fetched through the usual coalesced path;
    /// - removed at the provider: forgotten in memory and on disk;
    /// - unknown, or no verdict: left to the usual refresh.
    ///
    /// An upstream without bulk validation, or a failing request (offline, 429, 500), falls back
    /// to refreshing the entries that are not fresh key by key; nothing held is lost. Call it at
    /// launch and when the app returns to the foreground.
    ///
    /// When it returns, what it wrote is on disk: what its verdicts changed, a withdrawal list it
    /// received, the queues of the players whose changes it sent. It waits for the disk at most
    /// 10 seconds at a time, for a file system that hangs. Cancelling the
    /// calling task stops it early: the request in flight is abandoned and nothing more is sent,
    /// fetched or refreshed (``SynchronizationReport/isCancelled``); the verdicts already acted on
    /// stay, written. A fetch of changed content already under way finishes as any fetch whose
    /// caller left: it fills the cache when it lands.
    ///
    /// Players' queued changes (those an earlier launch left, once the player's lists or queue have
    /// been read) are sent meanwhile, as ``sendPendingMutations()`` sends them; it returns when both
    /// are done.
    ///
    /// - Returns: What was sent and what each verdict did.
    @discardableResult
    public func synchronize() async -> SynchronizationReport {
        await synchronizer.synchronize()
    }
}
