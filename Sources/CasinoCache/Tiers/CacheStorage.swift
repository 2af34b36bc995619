/// A place cached entries live: memory, disk, or the app bundle.
///
/// Reads are synchronous on purpose: every tier answers in well under a millisecond (memory
/// ~100 ns, a disk page ~50 µs, a bundled page ~0.6 ms), so the first frame can render cached
/// content without `await`. Tiers that write slowly (disk) do it off the caller's path.
public protocol CacheStorage: Sendable {
    /// The entry for `key`, or `nil`.
    func entry(for key: CacheKey) -> CacheEntry?
    /// Stores `entry`, replacing any entry for its key.
    func store(_ entry: CacheEntry)
    /// Removes the entry for `key`.
    func removeEntry(for key: CacheKey)
    /// Removes every entry of `scope`, or every entry when `scope` is `nil`.
    func removeAll(in scope: CacheScope?)
}
