public import CasinoCache
@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
public import Foundation

/// A clock that moves only when told to, for tests: ``advance(by:)`` moves "now", wakes every
/// sleeper whose deadline has passed and fires every alarm that is due (the cache's deadlines),
/// in the order they are due.
///
/// ```swift
/// let clock = ManualClock(now: Date(timeIntervalSince1970: 0))
/// clock.advance(by: .seconds(7 * 3600))   // the cache's 6 h entries are now stale
/// ```
public final class ManualClock: CacheClock {
    private struct Sleeper {
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Alarm {
        var deadline: Date
        var fire: @Sendable () -> Void
    }

    private struct State {
        var now: Date
        var sleepers: [UInt64: Sleeper] = [:]
        var alarms: [UInt64: Alarm] = [:]
        var nextID: UInt64 = 0
    }

    private let state: Locked<State>

    public init(now: Date = Date(timeIntervalSince1970: 1_795_168_800)) {
        state = Locked(State(now: now))
    }

    public var now: Date { state.withLock { $0.now } }

    /// How many waits are pending: tasks in ``sleep(for:)`` and the cache's deadlines.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count + $0.alarms.count } }

    /// Moves time forward, resumes the sleepers that are due and fires the alarms that are due
    /// (on the caller's thread, before returning).
    public func advance(by duration: Duration) {
        let (sleepers, alarms) = state.withLock { state in
            state.now = state.now.addingTimeInterval(duration.timeInterval)
            let now = state.now
            let sleepers = state.sleepers.filter { $0.value.deadline <= now }
            for id in sleepers.keys { state.sleepers[id] = nil }
            let alarms = state.alarms.filter { $0.value.deadline <= now }
            for id in alarms.keys { state.alarms[id] = nil }
            return (
                sleepers.sorted { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }.map(\.value.continuation),
                alarms.sorted { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }.map(\.value.fire)
            )
        }
        for continuation in sleepers { continuation.resume() }
        for fire in alarms { fire() }
    }

    @_spi(CatalogTools)
    public func alarm(after delay: Duration, _ fire: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let id = state.withLock { state -> UInt64? in
            let deadline = state.now.addingTimeInterval(delay.timeInterval)
            guard deadline > state.now else { return nil }
            state.nextID += 1
            state.alarms[state.nextID] = Alarm(deadline: deadline, fire: fire)
            return state.nextID
        }
        guard let id else {
            Task { fire() }  // due already: fired at once, as a sleep that is due returns at once
            return {}
        }
        return { [state] in _ = state.withLock { $0.alarms.removeValue(forKey: id) } }
    }

    public func sleep(for duration: Duration) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool = state.withLock { state in
                    let deadline = state.now.addingTimeInterval(duration.timeInterval)
                    if deadline <= state.now || Task.isCancelled { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if resumeNow {
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume()
                    }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
