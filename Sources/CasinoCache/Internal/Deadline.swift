@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Dispatch
import Foundation

/// The runtime's one way to wait for something that may not end (``wait(within:on:gate:isCancellable:timedOut:_:)``):
/// the caller gets the outcome, or the deadline's error, or `CancellationError` when its own task
/// is cancelled, whichever comes first, and is never held past that moment. Every wait goes through
/// it: an upstream call (``run(within:on:gate:stop:timedOut:_:)``), a fetch's flight, the disk's
/// queue, a task's value.
///
/// When the deadline or the caller's cancellation wins, the work is *abandoned*: its outcome is
/// discarded and it is told to stop from a dispatch queue, so a cancellation handler that blocks
/// (FoundationNetworking's `URLSession.data(for:)` can deadlock when it is cancelled at the moment
/// its transfer completes) holds neither the caller nor a thread of Swift's cooperative pool. A task
/// group racing the work and a clock cannot do this: the group waits for every child, the stuck one
/// included.
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
        try await wait(within: limit, on: clock, gate: gate, timedOut: timedOut) { settle in
            let task = Task {
                do { settle(.success(try await work())) } catch { settle(.failure(error)) }
            }
            return switch stop {
            case .cancelTask: { task.cancel() }
            case .call(let stopWork): stopWork
            }
        }
    }

    /// Waits for the outcome `begin` starts, at most `limit` on `clock` (`nil`: no deadline).
    /// `begin` is handed `settle`, to call once with the outcome from wherever it lands, and returns
    /// how to stop the work when it is abandoned (`nil`: nothing to stop).
    ///
    /// - Parameters:
    ///   - isCancellable: Whether the caller's cancellation ends the wait.
    ///   - timedOut: The error thrown at the deadline.
    /// - Throws: the outcome's error, `timedOut()` at the deadline, or `CancellationError` when the
    ///   calling task is cancelled (and `isCancellable`).
    nonisolated(nonsending) static func wait<Value: Sendable>(
        within limit: Duration?, on clock: any CacheClock = SystemClock(), gate: CommitGate? = nil,
        isCancellable: Bool = true, timedOut: @escaping @Sendable () -> any Error = { CancellationError() },
        _ begin: @escaping (_ settle: @escaping @Sendable (Result<Value, any Error>) -> Void) -> (@Sendable () -> Void)?
    ) async throws -> Value {
        let race = Race<Value>(gate: gate)
        let start = { (continuation: CheckedContinuation<Value, any Error>) in
            race.start(continuation, begin)
            if let limit {
                race.hold(
                    schedule(after: limit, on: clock) { [weak race] in
                        race?.settle(.failure(timedOut()), abandoning: true)
                    })
            }
        }
        guard isCancellable else { return try await withCheckedThrowingContinuation(start) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation(start)
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

    /// One caller, one outcome, one deadline: whoever settles first resumes the caller.
    private final class Race<Value: Sendable>: Sendable {
        private enum Phase {
            case waiting, settled, abandoned
        }

        private struct State {
            var phase = Phase.waiting
            var continuation: CheckedContinuation<Value, any Error>?
            /// How the work is stopped when it is abandoned.
            var stop: (@Sendable () -> Void)?
            var alarm: Alarm?
        }

        private let state = Locked(State())
        private let gate: CommitGate?

        init(gate: CommitGate?) {
            self.gate = gate
        }

        /// Begins the work, unless the caller was cancelled before.
        func start(
            _ continuation: CheckedContinuation<Value, any Error>,
            _ begin: (@escaping @Sendable (Result<Value, any Error>) -> Void) -> (@Sendable () -> Void)?
        ) {
            let isWaiting = state.withLock { state in
                if state.phase == .waiting { state.continuation = continuation }
                return state.phase == .waiting
            }
            guard isWaiting else { return continuation.resume(throwing: CancellationError()) }
            let stop = begin { result in self.settle(result, abandoning: false) }
            let isAbandoned = state.withLock { state in
                if state.phase == .waiting { state.stop = stop }
                return state.phase == .abandoned
            }
            if isAbandoned, let stop { DispatchQueue.global().async { stop() } }
        }

        /// Keeps the deadline's alarm, cancelled when the race settles.
        func hold(_ alarm: Alarm) {
            let isWaiting = state.withLock { state in
                if state.phase == .waiting { state.alarm = alarm }
                return state.phase == .waiting
            }
            if !isWaiting { alarm.cancel() }
        }

        /// Resumes the caller with `result` unless someone already did. `abandoning`: the work did
        /// not finish, so it is told to stop, unless it is past its point of no return (then the
        /// caller waits for its result, which is near).
        func settle(_ result: Result<Value, any Error>, abandoning: Bool) {
            if abandoning, let gate, !gate.abandon() { return }
            let settled = state.withLock { state -> State? in
                guard state.phase == .waiting else { return nil }
                let taken = state
                state = State(phase: abandoning ? .abandoned : .settled)
                return taken
            }
            guard let settled else { return }
            settled.alarm?.cancel()
            if abandoning, let stop = settled.stop { DispatchQueue.global().async { stop() } }
            settled.continuation?.resume(with: result)
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
