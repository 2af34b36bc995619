@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Dispatch
import Foundation

/// The runtime's one way to wait for work that may not end: the caller gets the work's result, or
/// the deadline's error, or `CancellationError` when its own task is cancelled, whichever comes
/// first, and is never held past that moment.
///
/// The work runs in its own task. When the deadline or the caller's cancellation wins, the work is
/// *abandoned*: its result is discarded and it is told to stop from a dispatch queue, so a
/// cancellation handler that blocks (FoundationNetworking's `URLSession.data(for:)` can deadlock
/// when it is cancelled at the moment its transfer completes) holds neither the caller nor a thread
/// of Swift's cooperative pool. A task group racing the work and a clock cannot do this: the group
/// waits for every child, the stuck one included.
///
/// Work with a point of no return (an install's final rename) passes a ``CommitGate``: once the
/// work has passed it, it is no longer abandoned and the caller gets its result (bounded local
/// file operations, no network).
enum Deadline {
    /// How abandoned work is told to stop.
    enum Stop: Sendable {
        /// Cancel the work's task.
        case cancelTask
        /// Leave the task alone and call this instead (a transfer stops through `URLSession`,
        /// never through Swift's cancellation; see ``HTTPTransfer``).
        case call(@Sendable () -> Void)
    }

    /// Runs `work`, waiting for it at most `limit`.
    ///
    /// - Parameters:
    ///   - limit: How long the caller waits.
    ///   - clock: What measures `limit` (``CacheClock/alarm(after:_:)``): real time by default.
    ///   - gate: The work's point of no return, if it has one.
    ///   - stop: How abandoned work is told to stop: its task is cancelled by default.
    ///   - timedOut: The error thrown at the deadline.
    ///   - work: What to run.
    /// - Throws: `work`'s error, `timedOut()` at the deadline, or `CancellationError` when the
    ///   calling task is cancelled.
    static func run<Value: Sendable>(
        within limit: Duration, on clock: any CacheClock = SystemClock(), gate: CommitGate? = nil,
        stop: Stop = .cancelTask,
        timedOut: @escaping @Sendable () -> any Error, _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let race = Race<Value>(gate: gate, stop: stop)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.start(continuation, work: work)
                race.hold(
                    schedule(after: limit, on: clock) { [weak race] in
                        race?.settle(.failure(timedOut()), abandoning: true)
                    })
            }
        } onCancel: {
            race.settle(.failure(CancellationError()), abandoning: true)
        }
    }

    /// Calls `fire` once `limit` has passed on `clock`, unless the returned alarm is cancelled
    /// first: the clock keeps it (``CacheClock/alarm(after:_:)``), so a deadline takes the
    /// same path under a `ManualClock` as in production.
    static func schedule(
        after limit: Duration, on clock: any CacheClock = SystemClock(), _ fire: @escaping @Sendable () -> Void
    ) -> Alarm {
        Alarm(cancel: clock.alarm(after: limit, fire))
    }

    /// A scheduled deadline (``schedule(after:on:_:)``), cancelled when the work settles first.
    struct Alarm: Sendable {
        let cancel: @Sendable () -> Void
    }

    /// `seconds` as a `Duration` a deadline can wait for: within 0 s...1 day, a day when not finite
    /// (settings are not trusted to be finite or small).
    static func duration(seconds: Double) -> Duration {
        guard seconds.isFinite else { return .seconds(86_400) }
        return .milliseconds(Int64((min(max(seconds, 0), 86_400) * 1000).rounded()))
    }

    /// One caller, one piece of work, one deadline: whoever settles first resumes the caller.
    private final class Race<Value: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Value, any Error>?
            var work: Task<Void, Never>?
            var alarm: Alarm?
            /// Settled before it started: the caller was cancelled before the work began.
            var isSettled = false
        }

        private let state = Locked(State())
        private let gate: CommitGate?
        private let stop: Stop

        init(gate: CommitGate?, stop: Stop) {
            self.gate = gate
            self.stop = stop
        }

        func start(
            _ continuation: CheckedContinuation<Value, any Error>, work: @escaping @Sendable () async throws -> Value
        ) {
            let started = state.withLock { state -> Bool in
                guard !state.isSettled else { return false }
                state.continuation = continuation
                state.work = Task {
                    let result: Result<Value, any Error>
                    do { result = .success(try await work()) } catch { result = .failure(error) }
                    self.settle(result, abandoning: false)
                }
                return true
            }
            if !started { continuation.resume(throwing: CancellationError()) }
        }

        /// Keeps the deadline's alarm, cancelled when the race settles.
        func hold(_ alarm: Alarm) {
            let isSettled = state.withLock { state -> Bool in
                if !state.isSettled { state.alarm = alarm }
                return state.isSettled
            }
            if isSettled { alarm.cancel() }
        }

        /// Resumes the caller with `result` unless someone already did. `abandoning`: the work did
        /// not finish, so it is told to stop, unless it is past its point of no return (then the
        /// caller waits for its result, which is near).
        func settle(_ result: Result<Value, any Error>, abandoning: Bool) {
            if abandoning, let gate, !gate.abandon() { return }
            let (continuation, work, alarm) = state.withLock { state in
                defer {
                    state.isSettled = true
                    state.continuation = nil
                    state.work = nil
                    state.alarm = nil
                }
                return (state.continuation, state.work, state.alarm)
            }
            guard let continuation else { return }
            alarm?.cancel()
            if abandoning, let work {
                switch stop {
                case .cancelTask: DispatchQueue.global().async { work.cancel() }
                case .call(let stopWork): DispatchQueue.global().async { stopWork() }
                }
            }
            continuation.resume(with: result)
        }
    }
}

/// The point of no return of abandonable work: the work claims it before it makes its result
/// visible (``commit()``), a deadline claims it before abandoning the work (``abandon()``); only one
/// of them gets it.
final class CommitGate: Sendable {
    private enum Phase {
        case open, committed, abandoned
    }

    private let phase = Locked(Phase.open)

    init() {}

    /// Claims the gate for the work: `false` when the work was abandoned and must not make its
    /// result visible.
    func commit() -> Bool {
        phase.withLock { phase in
            guard phase != .abandoned else { return false }
            phase = .committed
            return true
        }
    }

    /// Claims the gate for a deadline or a cancellation: `false` when the work already committed.
    func abandon() -> Bool {
        phase.withLock { phase in
            guard phase != .committed else { return false }
            phase = .abandoned
            return true
        }
    }

    /// Whether the work was abandoned.
    var isAbandoned: Bool { phase.withLock { $0 == .abandoned } }
}
