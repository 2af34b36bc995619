/// The memory warning: keep what is on screen, drop the rest.
extension CatalogCache {
    /// Keeps in memory only the 24 most recently read (or stored) entries, what the screen shows,
    /// and drops the rest; disk and bundle still hold them. Call it on a memory warning.
    /// (``trimMemory()`` drops everything.)
    ///
    /// - Returns: How many entries were dropped.
    @discardableResult
    public func trim() -> Int {
        memory.trim(keepingMostRecent: configuration.entriesKeptOnTrim)
    }
}
