@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport

/// Resumes a continuation at most once, whichever of several racing tasks gets there first.
final class OnceResumer<Value: Sendable>: Sendable {
    private let continuation: Locked<CheckedContinuation<Value, any Error>?>

    init(_ continuation: CheckedContinuation<Value, any Error>) {
        self.continuation = Locked(continuation)
    }

    /// Resumes with `result` if nobody did yet.
    ///
    /// - Returns: Whether this call resumed the continuation.
    @discardableResult
    func resume(with result: Result<Value, any Error>) -> Bool {
        guard
            let continuation = continuation.withLock({ stored in
                defer { stored = nil }
                return stored
            })
        else { return false }
        continuation.resume(with: result)
        return true
    }
}
