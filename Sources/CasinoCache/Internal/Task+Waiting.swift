@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport

extension Task where Failure == any Error {
    /// The task's value; a caller that is cancelled stops waiting at once with
    /// `CancellationError`, while the task itself runs on (for its other callers).
    nonisolated(nonsending) func valueUnlessCancelled() async throws -> Success {
        let waiter = Locked<OnceResumer<Success>?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let resumer = OnceResumer(continuation)
                waiter.withLock { $0 = resumer }
                _Concurrency.Task<Void, Never> { resumer.resume(with: await self.result) }
                if Task<Never, Never>.isCancelled { resumer.resume(with: .failure(_Concurrency.CancellationError())) }
            }
        } onCancel: {
            waiter.withLock { $0 }?.resume(with: .failure(_Concurrency.CancellationError()))
        }
    }
}
