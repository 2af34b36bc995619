import Dispatch

/// Runs independent, CPU-bound jobs on every core and returns their results in job order, so
/// output stays deterministic. The pipeline's encode, gzip and verify steps are per file.
enum ParallelMap {
    /// `body(0) … body(count - 1)` on all cores, results in index order; the first error in
    /// index order is rethrown.
    static func map<Value>(count: Int, _ body: (Int) throws(PipelineError) -> Value) throws(PipelineError) -> [Value] {
        guard count > 1 else { return try (0..<count).map { index throws(PipelineError) in try body(index) } }
        let results = UnsafeMutableBufferPointer<Result<Value, PipelineError>?>.allocate(capacity: count)
        results.initialize(repeating: nil)
        defer {
            results.deinitialize()
            results.deallocate()
        }
        // Each iteration writes only its own slot, so the buffer needs no lock.
        withoutActuallyEscaping(body) { body in
            nonisolated(unsafe) let body = body
            nonisolated(unsafe) let results = results
            DispatchQueue.concurrentPerform(iterations: count) { index in
                do throws(PipelineError) {
                    results[index] = .success(try body(index))
                } catch {
                    results[index] = .failure(error)
                }
            }
        }
        return try results.map { result throws(PipelineError) in try result!.get() }
    }
}
