@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
@_spi(CatalogTools) import CatalogServer
import Dispatch
import Foundation
import NIOConcurrencyHelpers
@_spi(CatalogTools) import ProviderAPI
import Testing

/// No network wait can hang: hundreds of over-the-air updates and catalogue fetches against the
/// simulator over loopback, with a random fault (a file longer, shorter or other than signed, a cut
/// body, a stall, a slow start, a status) and a random cancellation in each round; every call must
/// return by its deadline plus ``margin``.
///
/// The test's own waits cannot be stuck behind the work: each call is awaited through a dispatch
/// timer (``result(of:within:)``), and a watchdog ends the process with the counts if even that
/// cannot resume (a cooperative pool whose threads are all deadlocked). `make test` runs the suite
/// in a process of its own, one test at a time, so the other suites' synchronous work does not
/// starve its timing; `SOAK_ROUNDS` sets the rounds per loop (`make soak` runs more); `SOAK_SEED`
/// repeats a run.
@Suite(.serialized, .timeLimit(.minutes(20)))
struct NoHangSoakTests {
    /// How late past its deadline a call may return on a busy 2-core machine.
    static let margin: Duration = .milliseconds(500)
    static let rounds = ProcessInfo.processInfo.environment["SOAK_ROUNDS"].flatMap(Int.init) ?? 150
    static let seed =
        ProcessInfo.processInfo.environment["SOAK_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)

    /// What the server does to the next requests of a round.
    enum Fault: CaseIterable, CustomStringConvertible {
        case none, longer, shorter, flipped, truncated, stall, slowStart, status

        var description: String { "\(self.kindName)" }
        private var kindName: String {
            switch self {
            case .none: "none"
            case .longer: "longer"
            case .shorter: "shorter"
            case .flipped: "flipped"
            case .truncated: "truncated"
            case .stall: "stall"
            case .slowStart: "slow-start"
            case .status: "status"
            }
        }

        /// The simulator's fault for requests under `path`, hitting the next `count` of them.
        func simulated(path: String, count: Int) -> SimulatorSettings.Fault? {
            switch self {
            case .none, .slowStart: nil
            case .longer: .init(kind: .longer, path: path, count: count)
            case .shorter: .init(kind: .shorter, path: path, count: count)
            case .flipped: .init(kind: .flipped, path: path, count: count)
            case .truncated: .init(kind: .truncated, path: path, count: count)
            case .stall: .init(kind: .stall, path: path, count: count, milliseconds: 30_000)
            case .status: .init(kind: .status, path: path, count: count, status: 503)
            }
        }
    }

    /// What the caller does while the call runs.
    enum Interruption: CaseIterable {
        case none, cancelCaller, cancelExplicitly, secondCaller
    }

    /// A tally printed at the end of each loop, and by the watchdog.
    struct Tally: CustomStringConvertible {
        var calls = 0
        var faults: [String: Int] = [:]
        var cancellations = 0
        var outcomes: [String: Int] = [:]
        var worstPastDeadline: Duration = .zero
        var late = 0
        var hung = 0
        /// `cancelUpdate()` calls that came before the check began, so cancelled nothing.
        var missedCancels = 0

        var description: String {
            let faultText = faults.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            let outcomeText = outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(
                separator: ", ")
            return "\(calls) calls; faults: \(faultText); cancellations \(cancellations); outcomes: \(outcomeText); "
                + "worst past the deadline \(worstPastDeadline); late \(late); hung \(hung); missed cancels \(missedCancels)"
        }

        /// Records a call that ended `elapsed` after it started, against `deadline`.
        mutating func record(elapsed: Duration, deadline: Duration) {
            calls += 1
            let past = elapsed - deadline
            if past > worstPastDeadline { worstPastDeadline = past }
            if past > NoHangSoakTests.margin { late += 1 }
        }
    }

    // MARK: - Over-the-air updates

    @Test func everyUpdateReturnsByItsDeadlineAndNoAbandonedOneInstalls() async throws {
        // Given a published set in which every page differs from the bundle (so an update downloads
        // several files in parallel), and an updater with short deadlines
        let fixture = try await PublishedSetFixture()
        var random = SplitMix64(seed: Self.seed)
        let requestTimeout = 0.5
        let updateTimeout = 2.0
        let tally = NIOLockedValueBox(Tally())
        let watchdog = Watchdog(after: .seconds(Double(Self.rounds) * 4 + 60), name: "update soak") {
            tally.withLockedValue { "\($0)" }
        }
        defer { watchdog.cancel() }
        try await withCleanup {
            try fixture.publish(Self.changedEverywhere(fixture.bundle.catalog), version: 2)
            var untouched: [URL] = []  // support directories whose checks all failed: nothing may appear there
            var explicitCancels = 0
            // A clean check with a deadline far off first, so the first round does not pay the process's
            // cold start (the loopback listener, the first session, the key parsing) inside its 2 seconds
            let warm = try fixture.launch { $0.directory = fixture.directory.child("support-warm") }
            let warmed = await Self.result(of: Task { try await warm.checkForUpdate() }, within: .seconds(60))
            guard case .success(.installed)? = warmed else {
                Issue.record("the warm-up check answered \(Self.describe(warmed))")
                return
            }
            // Clean checks (rounds and the checks after a failed one): a timed-out one returned by its
            // deadline on a starved machine, anything else but `installed` is a defect
            var cleanCalls = 0
            var cleanTimedOut = 0

            for round in 0..<Self.rounds {
                let fault = Fault.allCases.randomElement(using: &random)!
                let interruption = Interruption.allCases.randomElement(using: &random)!
                fixture.simulator.update {
                    $0.faults =
                        fault.simulated(path: "/ota/files/", count: Int.random(in: 1...3, using: &random)).map { [$0] }
                        ?? []
                }
                fixture.simulator.delayPublishedFiles(milliseconds: fault == .slowStart ? 30_000 : 0)
                let directory = fixture.directory.child("support-\(round)")
                let updater = try fixture.launch {
                    $0.directory = directory
                    $0.requestTimeout = requestTimeout
                    $0.updateTimeout = updateTimeout
                }

                // When one or two callers check, and one may be cancelled at a random moment
                let cancelAfter = Duration.milliseconds(Int.random(in: 0...300, using: &random))
                let started = ContinuousClock.now
                let first = Task { try await updater.checkForUpdate() }
                let second = interruption == .secondCaller ? Task { try await updater.checkForUpdate() } : nil
                if interruption == .cancelCaller || interruption == .cancelExplicitly {
                    try await Task.sleep(for: cancelAfter)
                    if interruption == .cancelCaller { first.cancel() } else { await updater.cancelUpdate() }
                }
                // Then each returns by the deadline (the update's, or the cancellation's), plus the margin
                // (cancelUpdate() stops only a check in flight: one that ran before the check began, as a
                // cancel at 0-2 ms can, leaves it to its own deadline; such misses are counted, and rare)
                let isCancelled = interruption == .cancelCaller || interruption == .cancelExplicitly
                let results = await Self.awaitRound(
                    [first] + [second].compactMap { $0 }, started: started,
                    deadline: { results, elapsed in
                        guard isCancelled else { return .seconds(updateTimeout) }
                        let missed =
                            interruption == .cancelExplicitly && elapsed > cancelAfter + Self.margin
                            && !results.contains { Self.describe($0) == "cancelled" }
                        if missed { tally.withLockedValue { $0.missedCancels += 1 } }
                        return missed ? .seconds(updateTimeout) : min(cancelAfter, .seconds(updateTimeout))
                    },
                    round: "round \(round) (\(fault), \(interruption))", fault: fault, isCancelled: isCancelled,
                    tally: tally)
                if interruption == .cancelExplicitly { explicitCancels += 1 }
                // Without a fault or an interruption the update installs: the loop is not all failures.
                if fault == .none, interruption == .none || interruption == .secondCaller {
                    for result in results {
                        cleanCalls += 1
                        if case .success(.installed)? = result { continue }
                        if Self.describe(result) == "timed-out" {
                            cleanTimedOut += 1
                            continue
                        }
                        Issue.record("round \(round): a clean update answered \(Self.describe(result))")
                    }
                }
                let installed = results.contains { if case .success(.installed)? = $0 { true } else { false } }

                // And a failed, hung or cancelled check never blocks the next one on the same updater
                if !installed, round.isMultiple(of: 2) {
                    fixture.simulator.update { $0.faults = [] }
                    fixture.simulator.delayPublishedFiles(milliseconds: 0)
                    var (result, retryElapsed) = await Self.check(updater, tally: tally, deadline: updateTimeout)
                    // (a machine starved for 2 s gets a second check as short: a check blocked by the
                    // abandoned one, whose stalls last 30 s, times out again)
                    if Self.describe(result) == "timed-out" {
                        cleanCalls += 1
                        cleanTimedOut += 1
                        (result, retryElapsed) = await Self.check(updater, tally: tally, deadline: updateTimeout)
                    }
                    guard case .success(.installed)? = result else {
                        Issue.record(
                            "round \(round): the check after a \(fault) \(interruption) round answered \(Self.describe(result))"
                        )
                        continue
                    }
                    #expect(retryElapsed <= .seconds(updateTimeout) + Self.margin)
                } else if !installed {
                    untouched.append(directory)
                }
            }

            // Then no abandoned check installed anything later (each had time to finish)
            try await Task.sleep(for: .seconds(updateTimeout) + Self.margin)
            for directory in untouched {
                let launched = try fixture.launch { $0.directory = directory }
                #expect(
                    launched.activeVersion == nil,
                    "\(directory.lastPathComponent): an abandoned check installed version \(launched.activeVersion ?? 0)"
                )
            }
            let summary = tally.withLockedValue { "\($0)" }
            print(
                "update soak (seed \(Self.seed), \(Self.rounds) rounds, \(untouched.count) abandoned directories checked): \(summary); "
                    + "clean checks \(cleanCalls), of them timed out \(cleanTimedOut)"
            )
            #expect(cleanTimedOut * 3 <= cleanCalls, "\(cleanTimedOut) of \(cleanCalls) clean checks timed out")
            #expect(tally.withLockedValue { $0.late == 0 && $0.hung == 0 })
            let missed = tally.withLockedValue { $0.missedCancels }
            #expect(
                missed <= max(2, explicitCancels / 20), "\(missed) of \(explicitCancels) cancelUpdate() calls missed")
        } cleanup: {
            await fixture.stop()
        }
    }

    // MARK: - Catalogue fetches

    @Test func everyFetchReturnsByItsDeadline() async throws {
        // Given the simulator, and caches whose upstream deadline is shorter or longer than the
        // HTTP upstream's own (so both deadlines end calls)
        let directory = try TemporaryDirectory()
        var random = SplitMix64(seed: Self.seed &+ 1)
        let upstreamTimeout = Duration.milliseconds(600)
        let tally = NIOLockedValueBox(Tally())
        let watchdog = Watchdog(after: .seconds(Double(Self.rounds) * 3 + 60), name: "fetch soak") {
            tally.withLockedValue { "\($0)" }
        }
        defer { watchdog.cancel() }
        try await SimulatorFixture.run(in: directory) { server in
            let categoryId = server.firstCategoryId
            for round in 0..<Self.rounds {
                let fault = Fault.allCases.randomElement(using: &random)!
                let interruption = [Interruption.none, .cancelCaller, .secondCaller].randomElement(using: &random)!
                server.simulator.update {
                    $0.faults =
                        fault.simulated(path: "/", count: Int.random(in: 1...2, using: &random)).map { [$0] } ?? []
                    $0.latencyMilliseconds = [fault == .slowStart ? 30_000 : 0]
                }
                var configuration = CatalogCache.Configuration.showingEveryGame
                configuration.upstreamTimeout = upstreamTimeout
                let httpTimeout = Bool.random(using: &random) ? 0.4 : 10
                let cache = CatalogCache(
                    configuration: configuration, upstream: server.upstream(timeout: httpTimeout), cacheDirectory: nil,
                    bundleDirectory: nil, logger: silentLogger)
                let asksForPage = Bool.random(using: &random)
                let call: @Sendable () async throws -> Bool = {
                    if asksForPage {
                        try await cache.gamesPage(edition: english, categoryId: categoryId, offset: 0).value != nil
                    } else {
                        try await cache.categories(edition: english).value != nil
                    }
                }

                let cancelAfter = Duration.milliseconds(Int.random(in: 0...200, using: &random))
                let started = ContinuousClock.now
                let first = Task { try await call() }
                let second = interruption == .secondCaller ? Task { try await call() } : nil
                if interruption == .cancelCaller {
                    try await Task.sleep(for: cancelAfter)
                    first.cancel()
                }
                let results = await Self.awaitRound(
                    [first] + [second].compactMap { $0 }, started: started,
                    deadline: { _, _ in
                        interruption == .cancelCaller ? min(cancelAfter, upstreamTimeout) : upstreamTimeout
                    },
                    round: "round \(round) (\(fault), \(interruption))", fault: fault,
                    isCancelled: interruption == .cancelCaller, tally: tally)
                if fault == .none, interruption != .cancelCaller {
                    #expect(
                        results.allSatisfy { if case .success(true)? = $0 { true } else { false } },
                        "round \(round): a clean fetch failed")
                }
            }
            server.simulator.update {
                $0.faults = []
                $0.latencyMilliseconds = [0]
            }
        }
        let summary = tally.withLockedValue { "\($0)" }
        print("fetch soak (seed \(Self.seed), \(Self.rounds) rounds): \(summary)")
        #expect(tally.withLockedValue { $0.late == 0 && $0.hung == 0 })
    }

    // MARK: - Bulk validation

    @Test func everySynchronizeReturnsByItsDeadlineAndLeavesOnDiskWhatItShows() async throws {
        // Given the simulator and its bundle, a cache directory that carries over from round to round
        // (a relaunch each round), and in each round a provider that may have changed, a fault on
        // the validation request and a cancellation at a random moment.
        // A relaunch moves the directory aside: the last round's instance may still be working (a
        // fetch whose caller left lands later), and a process that relaunched would be gone.
        let directory = try TemporaryDirectory()
        var random = SplitMix64(seed: Self.seed &+ 3)
        let upstreamTimeout = Duration.milliseconds(600)
        let validatePath = "/v1/casino/cache/validate"
        let tally = NIOLockedValueBox(Tally())
        let watchdog = Watchdog(after: .seconds(Double(Self.rounds) * 3 + 60), name: "synchronize soak") {
            tally.withLockedValue { "\($0)" }
        }
        defer { watchdog.cancel() }
        try await SimulatorFixture.run(in: directory) { server in
            let bundle = try server.writeBundle(in: directory)
            let shown: [CacheKey] =
                [.categories(english)]
                + server.bundledCategories.items.map { .gamesPage(english, categoryId: $0.id, offset: 0) }
            var cancelledReports = 0
            var cacheDirectory = directory.child("cache-0")
            for round in 0..<Self.rounds {
                let relaunchedDirectory = directory.child("cache-\(round)")
                if round > 0, FileManager.default.fileExists(atPath: cacheDirectory.path) {
                    try FileManager.default.moveItem(at: cacheDirectory, to: relaunchedDirectory)
                }
                cacheDirectory = relaunchedDirectory
                let fault = Fault.allCases.randomElement(using: &random)!
                let isCancelled = Bool.random(using: &random)
                if Int.random(in: 0..<4, using: &random) == 0 { _ = try server.simulator.bumpVersion() }
                server.simulator.update {
                    $0.faults = fault.simulated(path: validatePath, count: 1).map { [$0] } ?? []
                    $0.latencyMilliseconds = [fault == .slowStart ? 30_000 : 0]
                }
                var configuration = CatalogCache.Configuration.showingEveryGame
                configuration.upstreamTimeout = upstreamTimeout
                // Entries stale at once, or fresh for the whole test: the fallback refreshes all or none.
                let timeToLive = Bool.random(using: &random) ? Duration.milliseconds(1) : .seconds(3600)
                configuration.categoriesTTL = timeToLive
                configuration.gamesPageTTL = timeToLive
                // Stale and bundled answers wait for a batch that does not end within the test: only
                // synchronize() talks to the provider.
                configuration.refreshBatchWindow = .seconds(3600)
                // A failed refresh's retry outlives the call by design, and would write while the
                // check below reads.
                configuration.retry = .never
                let cache = CatalogCache(
                    configuration: configuration, upstream: server.upstream(timeout: 10),
                    cacheDirectory: cacheDirectory, bundleDirectory: bundle, logger: silentLogger)
                for key in shown { _ = cache.cachedContent(for: key) }

                // When it synchronizes, and may be cancelled
                let cancelAfter = Duration.microseconds(Int.random(in: 0...100_000, using: &random))
                let started = ContinuousClock.now
                let call = Task { () async throws -> SynchronizationReport in await cache.synchronize() }
                if isCancelled {
                    try await Task.sleep(for: cancelAfter)
                    call.cancel()
                }
                // Then it returns by its deadline: the request's, then the fallback's refreshes
                let label = "round \(round) (\(fault), \(isCancelled ? "cancelled" : "not cancelled"))"
                let results = await Self.awaitRound(
                    [call], started: started, deadline: { _, _ in upstreamTimeout * 2 }, round: label, fault: fault,
                    isCancelled: isCancelled, tally: tally)
                guard case .success(let report)? = results.first else { continue }
                // And a cancelled one started nothing after it noticed
                if report.isCancelled {
                    cancelledReports += 1
                    #expect(report.refreshedKeyByKey == 0, "\(label): \(report)")
                    #expect(isCancelled, "\(label): cancelled without a cancellation")
                }
                // And whatever it shows beyond the bundle, a relaunch reads from disk as it is
                let relaunched = DiskTier(configuration: .init(directory: cacheDirectory))
                for key in shown {
                    let answer = cache.cachedContent(for: key)
                    guard let content = answer.value, let metadata = answer.metadata else {
                        Issue.record("\(label): \(key) was lost")
                        continue
                    }
                    // Bundled content (from the bundle, or copied from it into memory) is not the disk's.
                    guard answer.state != .bundled else { continue }
                    let stored = relaunched.entry(for: key)
                    #expect(stored?.content == content, "\(label): \(key) differs on disk")
                    // (the disk keeps whole seconds)
                    #expect(
                        stored.map { floor($0.storedAt.timeIntervalSince1970) }
                            == floor(metadata.storedAt.timeIntervalSince1970),
                        "\(label): \(key)'s age differs on disk")
                }
            }
            print("synchronize soak: \(cancelledReports) reports said cancelled")
        }
        let summary = tally.withLockedValue { "\($0)" }
        print("synchronize soak (seed \(Self.seed), \(Self.rounds) rounds): \(summary)")
        #expect(tally.withLockedValue { $0.late == 0 && $0.hung == 0 })
    }

    // MARK: - Cancellation at the moment a transfer completes

    @Test func requestsCancelledAtRandomMomentsNeverWedgeTheSession() async throws {
        // Given one upstream (one URLSession) and a small, fast answer: Swift-cancelling
        // FoundationNetworking's `data(for:)` as its transfer completes deadlocks the session's queue
        let directory = try TemporaryDirectory()
        var random = SplitMix64(seed: Self.seed &+ 2)
        let tally = NIOLockedValueBox(Tally())
        let watchdog = Watchdog(after: .seconds(Double(Self.rounds) + 60), name: "cancellation soak") {
            tally.withLockedValue { "\($0)" }
        }
        defer { watchdog.cancel() }
        try await SimulatorFixture.run(in: directory) { server in
            let upstream = server.upstream(timeout: 10)
            let categoryId = server.firstCategoryId
            for round in 0..<(Self.rounds * 2) {
                // When a request is cancelled at a random moment, around the time it completes
                let call = Task {
                    try await upstream.gamesPage(
                        edition: english, categoryId: categoryId, offset: 0, limit: 10, etag: nil)
                }
                try await Task.sleep(for: .microseconds(Int.random(in: 0...3000, using: &random)))
                let cancelled = ContinuousClock.now
                call.cancel()
                let result = await Self.result(of: call, within: .seconds(10))
                let elapsed = ContinuousClock.now - cancelled

                // Then it returns at once (with its answer or CancellationError)
                tally.withLockedValue {
                    $0.record(elapsed: elapsed, deadline: .zero)
                    $0.cancellations += 1
                    $0.outcomes[
                        result.map { if case .success = $0 { "answered" } else { Self.describe($0) } } ?? "hung",
                        default: 0] += 1
                    if result == nil { $0.hung += 1 }
                }
                #expect(result != nil, "round \(round): a cancelled request did not return in 10 s")
                #expect(
                    elapsed <= Self.margin,
                    "round \(round): a cancelled request returned \(elapsed) after its cancellation")
            }
            // And the session still serves
            let page = try await upstream.gamesPage(
                edition: english, categoryId: categoryId, offset: 0, limit: 10, etag: nil)
            guard case .modified = page else {
                Issue.record("the last request answered not modified")
                return
            }
        }
        let summary = tally.withLockedValue { "\($0)" }
        print("cancellation soak (seed \(Self.seed), \(Self.rounds * 2) rounds): \(summary)")
    }

    // MARK: - Support

    /// The bundle's catalogue with the first game of every page renamed: every page file differs.
    /// One check on `updater`, awaited at most 30 s, tallied against `deadline` seconds.
    static func check(
        _ updater: SnapshotUpdater, tally: NIOLockedValueBox<Tally>, deadline: Double
    ) async -> (Result<SnapshotUpdater.Outcome, any Error>?, Duration) {
        let started = ContinuousClock.now
        let result = await result(of: Task { try await updater.checkForUpdate() }, within: .seconds(30))
        let elapsed = ContinuousClock.now - started
        tally.withLockedValue { $0.record(elapsed: elapsed, deadline: .seconds(deadline)) }
        return (result, elapsed)
    }

    static func changedEverywhere(_ catalog: Catalog) -> Catalog {
        var catalog = catalog
        for edition in catalog.editions.indices {
            for page in catalog.editions[edition].pages.indices
            where !catalog.editions[edition].pages[page].items.isEmpty {
                catalog.editions[edition].pages[page].items[0].name += " (soak)"
            }
        }
        return catalog
    }

    /// Awaits a round's calls (each at most 30 s, so a hung one fails the round instead of the run),
    /// tallies them, and expects each to have returned by the round's deadline (given what the calls
    /// answered and how long they took) plus ``margin``.
    static func awaitRound<Value: Sendable>(
        _ calls: [Task<Value, any Error>], started: ContinuousClock.Instant,
        deadline roundDeadline: ([Result<Value, any Error>?], Duration) -> Duration, round: String,
        fault: Fault, isCancelled: Bool, tally: NIOLockedValueBox<Tally>
    ) async -> [Result<Value, any Error>?] {
        var results: [Result<Value, any Error>?] = []
        for call in calls { results.append(await result(of: call, within: .seconds(30))) }
        let elapsed = ContinuousClock.now - started
        let deadline = roundDeadline(results, elapsed)
        tally.withLockedValue { tally in
            for result in results {
                tally.record(elapsed: elapsed, deadline: deadline)
                tally.outcomes[describe(result), default: 0] += 1
                if result == nil { tally.hung += 1 }
            }
            tally.faults[fault.description, default: 0] += 1
            if isCancelled { tally.cancellations += 1 }
        }
        #expect(results.allSatisfy { $0 != nil }, "\(round): a call did not return in 30 s")
        #expect(elapsed <= deadline + margin, "\(round): returned after \(elapsed), deadline \(deadline)")
        return results
    }

    /// The task's result, or `nil` when it has not finished within `limit`. A dispatch timer ends
    /// the wait, so a call that hangs fails the round instead of hanging the test.
    static func result<Value: Sendable>(
        of task: Task<Value, any Error>, within limit: Duration
    ) async -> Result<Value, any Error>? {
        let waiting = NIOLockedValueBox<CheckedContinuation<Result<Value, any Error>?, Never>?>(nil)
        let resume: @Sendable (Result<Value, any Error>?) -> Void = { result in
            waiting.withLockedValue { continuation in
                defer { continuation = nil }
                return continuation
            }?.resume(returning: result)
        }
        return await withCheckedContinuation { continuation in
            waiting.withLockedValue { $0 = continuation }
            Task { resume(await task.result) }
            DispatchQueue.global().asyncAfter(deadline: .now() + limit.timeInterval) { resume(nil) }
        }
    }

    static func describe<Value>(_ result: Result<Value, any Error>?) -> String {
        switch result {
        case nil: "hung"
        case .success(let value)?:
            switch value {
            case let outcome as SnapshotUpdater.Outcome:
                switch outcome {
                case .installed: "installed"
                case .upToDate: "up-to-date"
                case .refused(let error): "refused \(error.code)"
                }
            case let found as Bool: found ? "content" : "nothing"
            case let report as SynchronizationReport:
                report.isCancelled ? "cancelled" : report.failedRequests > 0 ? "fell back" : "validated"
            default: "\(value)"
            }
        case .failure(let error)?:
            switch error {
            case is CancellationError: "CancellationError"
            case let error as SnapshotUpdateError: "\(error.code)"
            case let error as CacheError: "\(error.code)"
            default: "\(type(of: error))"
            }
        }
    }
}

/// Ends the process with a message when a soak outlives its budget: the last line of defence when
/// the cooperative pool itself is stuck (dispatch timers still fire then; awaits do not).
final class Watchdog: Sendable {
    private let isCancelled = NIOLockedValueBox(false)

    init(after budget: Duration, name: String, describe: @escaping @Sendable () -> String) {
        let isCancelled = self.isCancelled
        DispatchQueue.global().asyncAfter(deadline: .now() + budget.timeInterval) {
            guard !isCancelled.withLockedValue({ $0 }) else { return }
            FileHandle.standardError.write(
                Data("\(name): still running after \(budget): a call hung (\(describe()))\n".utf8))
            abort()
        }
    }

    func cancel() { isCancelled.withLockedValue { $0 = true } }
}
