import Foundation

/// A deadline on upstream calls, on the cache's clock.
extension CatalogCache {
    /// Runs `operation`, failing with `.timedOut` after ``Configuration/upstreamTimeout`` on the
    /// cache's clock even if the operation ignores cancellation.
    func withTimeout<Value: Sendable>(
        _ key: CacheKey, _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let timeout = configuration.upstreamTimeout
        let clock = self.clock
        return try await withCheckedThrowingContinuation { continuation in
            let outcome = OnceResumer(continuation)
            let work = Task {
                do { outcome.resume(with: .success(try await operation())) } catch { outcome.resume(with: .failure(error)) }
            }
            let timer = Task {
                try? await clock.sleep(for: timeout)
                guard !Task.isCancelled else { return }
                if outcome.resume(with: .failure(CacheError(.timedOut, key: key, "the upstream did not answer within \(timeout)"))) {
                    work.cancel()
                }
            }
            Task {
                _ = await work.result
                timer.cancel()  // no sleeping timer outlives its call
            }
        }
    }
}
