public import CasinoCache
@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
public import Foundation

/// A clock that moves only when told to, for tests: ``advance(by:)`` moves "now" and wakes every
/// sleeper whose deadline has passed.
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

    private struct State {
        var now: Date
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
    }

    private let state: Locked<State>

    public init(now: Date = Date(timeIntervalSince1970: 1_795_168_800)) {
        state = Locked(State(now: now))
    }

    public var now: Date { state.withLock { $0.now } }

    /// How many tasks are waiting in ``sleep(for:)``.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Moves time forward and resumes the sleepers that are due.
    public func advance(by duration: Duration) {
        let due: [CheckedContinuation<Void, any Error>] = state.withLock { state in
            state.now = state.now.addingTimeInterval(duration.timeInterval)
            let now = state.now
            let ready = state.sleepers.filter { $0.value.deadline <= now }
            for id in ready.keys { state.sleepers[id] = nil }
            return ready.values.sorted { $0.deadline < $1.deadline }.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
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
