extension Task where Failure == any Error {
    /// The task's value; a caller that is cancelled stops waiting at once with
    /// `CancellationError`, while the task itself runs on (for its other callers).
    nonisolated(nonsending) func valueUnlessCancelled() async throws -> Success {
        try await Deadline.wait(within: nil) { settle in
            _Concurrency.Task<Void, Never> { settle(await self.result) }
            return nil
        }
    }
}
