import Foundation

extension DispatchQueue {
    /// Runs `work` on this serial queue after what is queued already, and returns its result: how
    /// the stores that write off the caller's thread answer a read of theirs, or say their writes
    /// so far are done (`await queue.result {}`).
    func result<Value: Sendable>(of work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            self.async { continuation.resume(returning: work()) }
        }
    }

    /// ``result(of:)``, waiting at most `limit`: real time, on the alarm thread, so a file system that
    /// hangs holds the queue's work, not the caller. `nil` when the limit came first (the work still
    /// runs when the queue gets to it; its result is dropped), or, when `isCancellable`, when the
    /// calling task is cancelled first.
    func result<Value: Sendable>(
        within limit: Duration, isCancellable: Bool = true, of work: @escaping @Sendable () -> Value
    ) async -> Value? {
        try? await Deadline.wait(within: limit, isCancellable: isCancellable) { settle in
            self.async { settle(.success(work())) }
            return nil
        }
    }

    /// Waits until what is queued on this serial queue so far has run (then `work`, on the queue),
    /// at most `limit` (``result(within:isCancellable:of:)``); `false` when the limit came first and
    /// the work is still queued. The caller's cancellation does not cut the wait short.
    func drained(within limit: Duration, then work: @escaping @Sendable () -> Void = {}) async -> Bool {
        await result(within: limit, isCancellable: false, of: work) != nil
    }
}
