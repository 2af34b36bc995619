import Foundation

/// A deadline on upstream calls, on the cache's clock.
extension CatalogCache {
    /// Runs `operation`, failing with `.timedOut` after ``Configuration/upstreamTimeout`` on the
    /// cache's clock. An operation that ignores cancellation, or blocks in it, is abandoned there:
    /// its result is discarded and the caller does not wait for it (``Deadline``).
    func withTimeout<Value: Sendable>(
        _ key: CacheKey, _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let timeout = configuration.upstreamTimeout
        let clock = self.clock
        return try await Deadline.run(
            within: timeout, on: .clock(clock),
            timedOut: { CacheError(.timedOut, key: key, "the upstream did not answer within \(timeout)") }, operation)
    }
}
