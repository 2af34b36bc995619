@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Dispatch
import Foundation
import Testing

@_spi(CatalogTools) @testable import CasinoCache

/// Single flight with a deadline, the way it fails: many callers, cancellations, a fetch that
/// answers late or never, all at random moments.
@Suite(.timeLimit(.minutes(5)))
struct FetchFlightsTests {
    private let key = CacheKey.categories(try! Edition(id: "en-iPhone"))
    private let entry = CacheEntry(
        key: .categories(try! Edition(id: "en-iPhone")), content: .categories(CategoryList(items: [])), storedAt: Date()
    )

    @Test func concurrentCallersShareOneFetch() async throws {
        // Given a flight pool and a fetch that waits for a signal
        let clock = ManualClock()
        let statistics = StatisticsCounter()
        let flights = FetchFlights(timeout: .seconds(30), clock: clock, statistics: statistics)
        let calls = Locked(0)
        let gate = AsyncGate()
        let entry = self.entry
        // When ten callers ask for the same key
        let results = try await withThrowingTaskGroup(of: CacheEntry.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    try await flights.entry(for: self.key) { commit in
                        calls.withLock { $0 += 1 }
                        await gate.wait()
                        guard commit.commit() else { throw CancellationError() }
                        return entry
                    }
                }
            }
            await eventually { statistics.current.coalescedRequests == 9 }
            gate.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // Then the fetch ran once and every caller got its entry
        #expect(calls.withLock { $0 } == 1)
        #expect(results.count == 10 && results.allSatisfy { $0 == entry })
    }

    @Test func aFetchDeafToCancellationIsAbandonedAtTheDeadline() async throws {
        // Given a fetch that ignores cancellation and answers only when told
        let clock = ManualClock()
        let flights = FetchFlights(timeout: .seconds(5), clock: clock, statistics: StatisticsCounter())
        let gate = AsyncGate()
        let committed = Locked<Bool?>(nil)
        let entry = self.entry
        let caller = Task {
            try await flights.entry(for: self.key) { commit in
                await gate.wait()
                committed.withLock { $0 = commit.commit() }
                return entry
            }
        }
        // When the deadline passes (its alarm sleeps on the clock)
        await eventually { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(5))
        // Then the caller gets .timedOut at once, and the late answer cannot commit
        await #expect(throws: CacheError.self) { try await caller.value }
        gate.open()
        await eventually { committed.withLock { $0 } != nil }
        #expect(committed.withLock { $0 } == false)
        // And the key is free for a new flight
        let next = try await flights.entry(for: key) { _ in entry }
        #expect(next == entry)
    }

    @Test func aFlightStartedWithoutACallerLandsOnceForItAndAnswersTheCallerWhoJoins() async throws {
        // Given a flight started with a callback (a background refresh's), whose fetch waits
        let clock = ManualClock()
        let statistics = StatisticsCounter()
        let flights = FetchFlights(timeout: .seconds(5), clock: clock, statistics: statistics)
        let gate = AsyncGate()
        let landed = Locked<[Result<CacheEntry, any Error>]>([])
        let entry = self.entry
        flights.start(
            for: key,
            fetch: { commit in
                await gate.wait()
                guard commit.commit() else { throw CancellationError() }
                return entry
            },
            landed: { result in landed.withLock { $0.append(result) } })
        // When a caller asks for the same key, then the fetch answers
        let caller = Task {
            try await flights.entry(for: self.key) { _ in
                Issue.record("a second fetch")
                return entry
            }
        }
        await eventually { statistics.current.coalescedRequests == 1 }
        gate.open()
        // Then both get the entry from the one fetch, the callback once
        #expect(try await caller.value == entry)
        await eventually { landed.withLock { $0.count } == 1 }
        #expect(landed.withLock { (try? $0.first?.get()) == entry })

        // And a flight that never answers lands at its deadline with .timedOut, once
        let stuck = Locked<[Result<CacheEntry, any Error>]>([])
        flights.start(
            for: key,
            fetch: { _ in
                try await Task.sleep(for: .seconds(3600))
                return entry
            },
            landed: { result in stuck.withLock { $0.append(result) } })
        await eventually { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(5))
        await eventually { stuck.withLock { $0.count } == 1 }
        let outcome = stuck.withLock { $0.first }
        guard case .failure(let error as CacheError)? = outcome else {
            Issue.record("the stuck flight landed with \(String(describing: outcome))")
            return
        }
        #expect(error.code == .timedOut)
        #expect(!flights.isInFlight(key))
    }

    @Test func aCancelledCallerStopsWaitingWhileOthersGetTheResult() async throws {
        let clock = ManualClock()
        let flights = FetchFlights(timeout: .seconds(30), clock: clock, statistics: StatisticsCounter())
        let gate = AsyncGate()
        let entry = self.entry
        let fetch: @Sendable (CommitGate) async throws -> CacheEntry = { _ in
            await gate.wait()
            return entry
        }
        let first = Task { try await flights.entry(for: self.key, fetch: fetch) }
        let second = Task { try await flights.entry(for: self.key, fetch: fetch) }
        await eventually { clock.sleeperCount == 1 }
        // When the first caller is cancelled
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        // Then the second still gets the entry
        gate.open()
        #expect(try await second.value == entry)
    }

    /// Hundreds of rounds: callers join at random, some are cancelled at random moments, the fetch
    /// answers, fails, or hangs deaf to cancellation past the deadline. Every caller resumes
    /// (a dispatch watchdog, never behind the work), the callers of one flight that were not
    /// cancelled agree, and no fetch commits after its deadline.
    @Test func randomizedCallersCancellationsAndDeadlines() async throws {
        let rounds = ProcessInfo.processInfo.environment["SOAK_ROUNDS"].flatMap(Int.init) ?? 300
        var generator = SystemRandomNumberGenerator()
        var hung = 0
        for _ in 0..<rounds {
            let clock = ManualClock()
            let statistics = StatisticsCounter()
            let flights = FetchFlights(timeout: .seconds(10), clock: clock, statistics: statistics)
            let gate = AsyncGate()
            let fetches = Locked(0)
            let finished = Locked(0)
            let lateCommits = Locked(0)
            let behaviour = Int.random(in: 0..<3, using: &generator)  // 0 answer, 1 fail, 2 deaf past the deadline
            let entry = self.entry
            let key = self.key
            let fetch: @Sendable (CommitGate) async throws -> CacheEntry = { commit in
                fetches.withLock { $0 += 1 }
                defer { finished.withLock { $0 += 1 } }
                await gate.wait()
                if behaviour == 1 { throw CacheError(.upstreamFailed, key: key, "scripted failure") }
                guard commit.commit() else { throw CancellationError() }
                if behaviour == 2 { lateCommits.withLock { $0 += 1 } }  // past its deadline: must not commit
                return entry
            }
            let callers = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
                Task { try await flights.entry(for: key, fetch: fetch) }
            }
            // Every caller has joined the one flight before anything happens to it.
            await eventually { clock.sleeperCount == 1 && statistics.current.coalescedRequests == callers.count - 1 }
            for caller in callers where Bool.random(using: &generator) && Bool.random(using: &generator) {
                caller.cancel()
            }
            if behaviour == 2 {
                // The deadline fires on the alarm's task: the flight has settled once the key is free.
                clock.advance(by: .seconds(10))
                await eventually { !flights.isInFlight(key) }
            }
            gate.open()
            var outcomes: [String] = []
            for caller in callers {
                // A hang detector, not a timer: a caller that has not resumed after 10 s of real time
                // on a starved machine gets another 60 s; only one that never resumes is hung.
                var outcome = await Self.outcome(of: caller, within: .seconds(10))
                if outcome == nil { outcome = await Self.outcome(of: caller, within: .seconds(60)) }
                guard let outcome else {
                    hung += 1
                    continue
                }
                outcomes.append(outcome)
            }
            let answered = Set(outcomes.filter { $0 != "cancelled" })
            #expect(answered.count <= 1, "callers of one flight disagree: \(answered)")
            if behaviour == 2 { #expect(!answered.contains("entry")) }
            await eventually { finished.withLock { $0 } == 1 }
            #expect(fetches.withLock { $0 } == 1)
            #expect(lateCommits.withLock { $0 } == 0)
        }
        #expect(hung == 0)
    }

    /// The caller's outcome, or `nil` when it did not resume within `limit` (real time, on a
    /// dispatch timer that cannot wait behind the caller).
    private static func outcome(of caller: Task<CacheEntry, any Error>, within limit: Duration) async -> String? {
        let once = Locked<CheckedContinuation<String?, Never>?>(nil)
        return await withCheckedContinuation { continuation in
            once.withLock { $0 = continuation }
            DispatchQueue.global().asyncAfter(deadline: .now() + limit.timeInterval) {
                once.withLock { state in
                    defer { state = nil }
                    return state
                }?.resume(returning: nil)
            }
            Task {
                let outcome: String
                do {
                    _ = try await caller.value
                    outcome = "entry"
                } catch is CancellationError {
                    outcome = "cancelled"
                } catch let error as CacheError {
                    outcome = "\(error.code)"
                } catch {
                    outcome = "\(error)"
                }
                once.withLock { state in
                    defer { state = nil }
                    return state
                }?.resume(returning: outcome)
            }
        }
    }
}
