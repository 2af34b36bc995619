@_spi(CatalogTools) import CasinoCatalog

/// ``CatalogCache/Configuration/upstreamTimeout`` on the cache's clock, for the upstream calls made
/// outside a fetch's flight (bulk validation, a player's change): one caller each.
struct UpstreamDeadline: Sendable {
    let timeout: Duration
    let clock: any CacheClock

    /// Runs `operation`, failing with `.timedOut` at the deadline. An operation that ignores
    /// cancellation, or blocks in it, is abandoned there: its result is discarded and the caller
    /// does not wait for it (``Deadline``).
    func run<Value: Sendable>(
        _ key: CacheKey, _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let timeout = self.timeout
        return try await Deadline.run(
            within: timeout, on: clock,
            timedOut: { CacheError(.timedOut, key: key, "the upstream did not answer within \(timeout)") }, operation)
    }
}
