import CatalogSupport
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

    /// Waits until what is queued on this serial queue so far has run (then `work`, on the queue),
    /// at most `limit`: real time, on a dispatch timer, so a file system that hangs holds the
    /// queue's writes, not the caller. `false` when the limit came first and the work is still
    /// queued. The caller's cancellation does not cut the wait short.
    func drained(within limit: Duration, then work: @escaping @Sendable () -> Void = {}) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let waiting = Locked<CheckedContinuation<Bool, Never>?>(continuation)
            let resume: @Sendable (Bool) -> Void = { isDrained in
                waiting.withLock { continuation in
                    defer { continuation = nil }
                    return continuation
                }?.resume(returning: isDrained)
            }
            let alarm = Deadline.schedule(after: limit, on: .realTime) { resume(false) }
            self.async {
                work()
                alarm.cancel()
                resume(true)
            }
        }
    }
}
