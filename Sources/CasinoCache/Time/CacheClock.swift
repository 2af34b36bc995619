public import Foundation

/// The cache's source of time: what "now" is, and how to wait.
///
/// Inject ``ManualClock`` in tests so fresh → stale and retry backoff happen without sleeping.
public protocol CacheClock: Sendable {
    /// The current time.
    var now: Date { get }
    /// Waits for `duration`.
    ///
    /// - Throws: `CancellationError` when the waiting task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// The wall clock and `Task.sleep`.
public struct SystemClock: CacheClock {
    public init() {}

    public var now: Date { Date() }

    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
