public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The cache's source of time: what "now" is, and how to wait.
///
/// Inject `ManualClock` (the CasinoCacheTesting product) in tests so fresh → stale and retry backoff happen without sleeping.
public protocol CacheClock: Sendable {
    /// The current time.
    var now: Date { get }
    /// Waits for `duration`.
    ///
    /// - Throws: `CancellationError` when the waiting task is cancelled.
    func sleep(for duration: Duration) async throws
    /// Calls `fire` once `delay` has passed on this clock, unless the returned closure (cancel) is
    /// called first: every deadline of the cache is kept this way. The default waits in
    /// ``sleep(for:)`` in a task of its own; `SystemClock` keeps every alarm on one thread
    /// (``AlarmClock``); `ManualClock` fires them in `advance(by:)`.
    @_spi(CatalogTools)
    func alarm(after delay: Duration, _ fire: @escaping @Sendable () -> Void) -> @Sendable () -> Void
}

extension CacheClock {
    @_spi(CatalogTools)
    public func alarm(after delay: Duration, _ fire: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let task = Task {
            do { try await sleep(for: delay) } catch { return }
            fire()
        }
        return { task.cancel() }
    }
}

/// The wall clock and `Task.sleep`.
///
/// On Linux `now` reads the coarse real-time clock (`CLOCK_REALTIME_COARSE`: a few milliseconds'
/// resolution, several times cheaper than `Date()`), since every lookup reads it and times to
/// live are minutes to hours. Apple platforms use `Date()`.
public struct SystemClock: CacheClock {
    public init() {}

    public var now: Date { Self.currentDate() }

    /// What ``now`` reads; the cache calls it directly when its clock is a `SystemClock`, so its hits
    /// skip the call through `any CacheClock`.
    @inline(__always)
    static func currentDate() -> Date {
        #if os(Linux)
        var time = timespec()
        if clock_gettime(CLOCK_REALTIME_COARSE, &time) == 0 {
            return Date(timeIntervalSince1970: TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) * 1e-9)
        }
        #endif
        return Date()
    }

    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }

    @_spi(CatalogTools)
    public func alarm(after delay: Duration, _ fire: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        AlarmClock.shared.schedule(after: delay, fire)
    }
}
