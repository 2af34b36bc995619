/// The silent updates: new content and failed refreshes, as they happen.
extension CatalogCache {
    /// A stream of silent updates: new content from the upstream (never for identical content),
    /// and failed refreshes. Each call returns a new subscription; it ends when the cache is released.
    public func updates() -> AsyncStream<CacheUpdate> {
        answers.subscribe()
    }

    /// A stream of the silent updates of one key only, from now on.
    public func updates(for key: CacheKey) -> AsyncStream<CacheUpdate> {
        answers.subscribe(to: key)
    }

    /// Runs `action`, then waits for the next update of `key`: for tests and previews.
    ///
    /// The subscription starts before `action` runs, so an update that `action` causes is never
    /// missed. Returns `nil` when the waiting task is cancelled or the cache is released first.
    ///
    /// ```swift
    /// let update = try await cache.nextUpdate(for: .categories(edition)) { () async throws in
    ///     clock.advance(by: .seconds(7 * 3600))
    ///     _ = try await cache.categories(edition: edition)   // stale: refreshes in the background
    /// }
    /// ```
    public nonisolated(nonsending) func nextUpdate(
        for key: CacheKey, after action: () async throws -> Void = {}
    ) async rethrows -> CacheUpdate? {
        let stream = answers.subscribe(to: key)
        try await action()
        for await update in stream { return update }
        return nil
    }
}
