@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Dispatch
import Foundation

/// Single-flight fetching (Nuke's `TaskPool`): one upstream call per key however many callers wait
/// for it, each call held to ``CatalogCache/Configuration/upstreamTimeout``.
///
/// A flight is one task running the fetch; its callers wait on continuations, not on the task, so a
/// caller whose task is cancelled stops waiting at once while the others still get the result (and
/// the cache is still filled). The deadline is an alarm (``Deadline/schedule(after:on:_:)``, on the
/// ``AlarmClock`` with the system clock, so a miss starts one task): when it fires, every caller gets
/// `.timedOut`, the key is free for a new flight, and the fetch is cancelled from a dispatch queue.
///
/// A task group racing the call and the clock would be enough for an upstream that honours
/// cancellation; one that does not (or blocks in its cancellation handler) would hold the group, and
/// every caller with it, until it answered. Here such an upstream is abandoned: its late answer
/// finds the flight's ``CommitGate`` closed and is discarded, never stored.
final class FetchFlights: Sendable {
    private let flights = Locked<[CacheKey: Flight]>([:])
    private let timeout: Duration
    private let clock: any CacheClock
    private let statistics: StatisticsCounter

    init(timeout: Duration, clock: any CacheClock, statistics: StatisticsCounter) {
        self.timeout = timeout
        self.clock = clock
        self.statistics = statistics
    }

    /// The entry for `key`: joins the flight in flight for it, else starts one running `fetch`.
    /// `fetch` must claim its gate (``CommitGate/commit()``) before it stores anything, and give
    /// up when it cannot: the deadline has passed and its callers are gone.
    ///
    /// - Throws: `fetch`'s error, ``CacheError/Code/timedOut`` at the deadline, or
    ///   `CancellationError` when the calling task is cancelled.
    nonisolated(nonsending) func entry(
        for key: CacheKey, fetch: @escaping @Sendable (CommitGate) async throws -> CacheEntry
    ) async throws -> CacheEntry {
        try await flight(for: key, fetch: fetch).wait()
    }

    /// ``entry(for:fetch:)`` without a caller that waits: `landed` is called once with the flight's
    /// result, on the thread that settles it (a background refresh, which starts no task of its own).
    func start(
        for key: CacheKey, fetch: @escaping @Sendable (CommitGate) async throws -> CacheEntry,
        landed: @escaping @Sendable (Result<CacheEntry, any Error>) -> Void
    ) {
        flight(for: key, fetch: fetch).whenLanded(landed)
    }

    /// The flight in flight for `key`, else a new one running `fetch`.
    private func flight(
        for key: CacheKey, fetch: @escaping @Sendable (CommitGate) async throws -> CacheEntry
    ) -> Flight {
        let (flight, isNew) = flights.withLock { flights -> (Flight, Bool) in
            if let running = flights[key] { return (running, false) }
            let flight = Flight()
            flights[key] = flight
            return (flight, true)
        }
        if isNew {
            let timeout = self.timeout
            flight.start(
                fetch, landed: { [weak self] flight in self?.remove(flight, for: key) },
                alarm: Deadline.schedule(after: timeout, on: clock) { [weak flight] in
                    flight?.finish(
                        .failure(CacheError(.timedOut, key: key, "the upstream did not answer within \(timeout)")),
                        abandoning: true)
                })
        } else {
            statistics.record { $0.coalescedRequests += 1 }
        }
        return flight
    }

    /// Whether a flight for `key` is running (its callers not yet answered).
    func isInFlight(_ key: CacheKey) -> Bool {
        flights.withLock { $0[key] != nil }
    }

    private func remove(_ flight: Flight, for key: CacheKey) {
        flights.withLock { flights in
            if flights[key] === flight { flights[key] = nil }
        }
    }

    /// One fetch and the callers waiting for it.
    private final class Flight: Sendable {
        private typealias Settle = @Sendable (Result<CacheEntry, any Error>) -> Void

        private struct State {
            var waiters: [Int: Settle] = [:]
            var nextWaiter = 0
            var result: Result<CacheEntry, any Error>?
            var task: Task<Void, Never>?
            var alarm: Deadline.Alarm?
            var landed: (@Sendable (Flight) -> Void)?
        }

        private let state = Locked(State())
        private let gate = CommitGate()

        func start(
            _ fetch: @escaping @Sendable (CommitGate) async throws -> CacheEntry,
            landed: @escaping @Sendable (Flight) -> Void, alarm: Deadline.Alarm
        ) {
            let gate = self.gate
            let task = Task {
                let result: Result<CacheEntry, any Error>
                do { result = .success(try await fetch(gate)) } catch { result = .failure(error) }
                self.finish(result, abandoning: false)
            }
            let isFinished = state.withLock { state -> Bool in
                guard state.result == nil else { return true }
                state.task = task
                state.alarm = alarm
                state.landed = landed
                return false
            }
            if isFinished {
                task.cancel()
                alarm.cancel()
                landed(self)
            }
        }

        /// Waits for the flight's result (``Deadline/wait(within:on:gate:isCancellable:timedOut:_:)``,
        /// with the flight's own deadline): a cancelled caller stops waiting at once, the others
        /// wait on.
        nonisolated(nonsending) func wait() async throws -> CacheEntry {
            try await Deadline.wait(within: nil) { settle in
                guard let id = self.whenLanded(settle) else { return nil }
                return { self.state.withLock { _ = $0.waiters.removeValue(forKey: id) } }
            }
        }

        /// Calls `settle` with the flight's result once it has one: at once when it has (then
        /// `nil`), else later, and the waiter's id is returned (to remove it when it stops waiting).
        @discardableResult
        func whenLanded(_ settle: @escaping @Sendable (Result<CacheEntry, any Error>) -> Void) -> Int? {
            let (id, ready) = state.withLock { state -> (Int?, Result<CacheEntry, any Error>?) in
                if let result = state.result { return (nil, result) }
                state.nextWaiter += 1
                state.waiters[state.nextWaiter] = settle
                return (state.nextWaiter, nil)
            }
            if let ready { settle(ready) }
            return id
        }

        /// Settles the flight once: every caller resumes with `result`. `abandoning` (the deadline):
        /// the fetch is told to stop from a dispatch queue, unless it already claimed its gate (then
        /// its own result, which is near, settles the flight).
        func finish(_ result: Result<CacheEntry, any Error>, abandoning: Bool) {
            if abandoning, !gate.abandon() { return }
            let settled = state.withLock { state -> State? in
                guard state.result == nil else { return nil }
                let taken = state
                state = State(result: result)
                return taken
            }
            guard let settled else { return }
            settled.alarm?.cancel()
            settled.landed?(self)
            if abandoning, let task = settled.task { DispatchQueue.global().async { task.cancel() } }
            for settle in settled.waiters.values { settle(result) }
        }
    }
}
