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
}
