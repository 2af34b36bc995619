@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
@_spi(CatalogTools) import CatalogServer
import Foundation
import InMemoryLogging
import Logging
@_spi(CatalogTools) import ProviderAPI
import Testing

/// `HTTPFetcher` against the provider simulator over real loopback HTTP: no mocks.
@Suite(.timeLimit(.minutes(5)))  // hang detectors: a busy machine takes minutes
struct HTTPFetcherTests {
    /// The simulated catalogue: 200 games in 4 categories (about 100 games each, so 5 pages of 10
    /// are fetched per category), in en-iPhone and fr-iPhone.
    static let games = 200
    static let categories = 4
    /// 2 editions × (1 categories request + 4 categories × 5 pages).
    static let requestsPerFetch = 42
    static let stampedAt = Date(timeIntervalSince1970: 1_795_168_800)

    @Test func writesARecordingThatBuildsTheSameSnapshotAsTheOfflineRecordingOfTheCatalogue() async throws {
        try await withSimulator { simulator, base in
            // Given the simulator serving a generated catalogue
            let directory = try TemporaryDirectory()
            let recording = directory.child("recording")
            let logs = InMemoryLogHandler()
            // When it is fetched and built with a fixed SOURCE_DATE_EPOCH
            let summary = try await fetcher(base, logger: Logger(label: "fetch") { _ in logs }).fetch(into: recording)
            try build(recording, to: directory.child("out-http"))
            // And the same catalogue, recorded offline into the same path, is built the same way
            var sample = SampleRecording(games: Self.games, categories: Self.categories)
            sample.seed = 2026
            try sample.write(to: recording)
            try build(recording, to: directory.child("out-offline"))
            // Then both snapshots are byte for byte the same, and valid
            let fetched = try fileTree(directory.child("out-http"))
            #expect(fetched.count > 10)
            #expect(fetched == (try fileTree(directory.child("out-offline"))))
            #expect(SnapshotValidator().validate(directory: directory.child("out-http")).isValid)
            // And the fetch made one request per response, all answered 200, and logged its summary
            #expect(summary.requests == Self.requestsPerFetch)
            #expect(summary.retries == 0 && summary.notModified == 0)
            #expect(summary.filesWritten == Self.requestsPerFetch + 2)
            #expect(summary.bytesReceived == simulator.statistics().bodyBytes)
            #expect(simulator.statistics().count(status: 200) == Self.requestsPerFetch)
            #expect(logs.entries.contains { $0.level == .info && "\($0.message)" == "fetched the catalogue" })
        }
    }

    @Test func revalidatesAnUnchangedCatalogueWithNotModifiedForEveryRequest() async throws {
        try await withSimulator { simulator, base in
            // Given a first fetch
            let directory = try TemporaryDirectory()
            let recording = directory.child("recording")
            let first = try await fetcher(base).fetch(into: recording)
            let firstBytes = simulator.statistics().bodyBytes
            let before = try responseFiles(recording)
            simulator.resetStatistics()
            // When the unchanged catalogue is fetched again
            let second = try await fetcher(base).fetch(into: recording)
            // Then every request is answered 304, almost nothing is transferred, and the files are the same
            let statistics = simulator.statistics()
            #expect(statistics.totalRequests == first.requests)
            #expect(statistics.count(status: 304) == first.requests)
            #expect(second.notModified == second.requests)
            #expect(second.bytesReceived == 0)
            #expect(statistics.bodyBytes * 100 < firstBytes)
            #expect(try responseFiles(recording) == before)
            #expect(before["etags.json"] != nil)
        }
    }

    @Test func fetchesAgainAFileMissingFromThePreviousRecording() async throws {
        try await withSimulator { simulator, base in
            // Given a recording with one response file deleted
            let directory = try TemporaryDirectory()
            let recording = directory.child("recording")
            try await fetcher(base).fetch(into: recording)
            let before = try responseFiles(recording)
            let missing = RecordingLayout(root: recording).gamesPageFile(
                for: enIPhone, categoryId: "CATEGORY001", offset: 0)
            try FileManager.default.removeItem(at: missing)
            simulator.resetStatistics()
            // When it is fetched again
            let summary = try await fetcher(base).fetch(into: recording)
            // Then only that file is transferred again, and the recording is whole
            #expect(simulator.statistics().count(status: 200) == 1)
            #expect(summary.notModified == Self.requestsPerFetch - 1)
            #expect(try responseFiles(recording) == before)
        }
    }

    @Test func failsClearlyWhenTheServerIsDownAndKeepsThePreviousRecording() async throws {
        // Given a recording fetched while the simulator was up
        let directory = try TemporaryDirectory()
        let recording = directory.child("recording")
        let base = try await withSimulator { _, base in
            try await fetcher(base).fetch(into: recording)
            return base
        }
        let before = try fileTree(recording)
        // When the simulator is down (connection refused) and the fetch runs again
        let error = await #expect(throws: PipelineError.self) {
            try await fetcher(base) { $0.retry.maxAttempts = 3 }.fetch(into: recording)
        }
        // Then it fails naming the request and the attempts, and the recording is untouched
        #expect(error?.code == .network)
        #expect(error?.file?.hasPrefix(base.absoluteString) == true)
        #expect(error?.message.contains("3 attempts") == true)
        #expect(error?.message.contains("still holds the previous recording") == true)
        #expect(try fileTree(recording) == before)
    }

    @Test func retriesAResponseStalledPastTheRequestTimeout() async throws {
        try await withSimulator(
            settings: simulatorSettings {
                $0.faults = [.init(kind: .stall, path: "/categories", count: 1, milliseconds: 120_000)]
            }
        ) { simulator, base in
            // Given a categories response that stalls midway for 2 minutes once, and a 5 s request
            // timeout (both long, so that a busy machine's slowness is never mistaken for the stall)
            let directory = try TemporaryDirectory()
            let start = ContinuousClock.now
            // When the catalogue is fetched
            let summary = try await fetcher(base) { $0.requestTimeout = .seconds(5) }
                .fetch(into: directory.child("recording"))
            // Then the stalled request was abandoned at the timeout, retried, and the fetch completed
            #expect(summary.retries >= 1)
            #expect(ContinuousClock.now - start < .seconds(120))
            #expect(
                try RecordedProviderSource(directory: directory.child("recording")).editions().count == 2)
        }
    }

    @Test func failsClearlyWhenEveryAttemptStalls() async throws {
        try await withSimulator(
            settings: simulatorSettings {
                $0.faults = [.init(kind: .stall, path: "/categories", milliseconds: 5000)]
            }
        ) { _, base in
            // Given categories responses that always stall
            let directory = try TemporaryDirectory()
            // When the catalogue is fetched with a 0.3 s timeout and 2 attempts
            let error = await #expect(throws: PipelineError.self) {
                try await fetcher(base) {
                    $0.requestTimeout = .milliseconds(300)
                    $0.retry.maxAttempts = 2
                }.fetch(into: directory.child("recording"))
            }
            // Then it fails saying it timed out, and writes nothing
            #expect(error?.code == .network)
            #expect(error?.message.contains("no complete answer within") == true)
            #expect(error?.record?.hasPrefix("categories of") == true)
            #expect(!FileManager.default.fileExists(atPath: directory.child("recording").path))
        }
    }

    @Test func retriesServerErrorsAndCompletes() async throws {
        try await withSimulator(
            settings: simulatorSettings {
                $0.faults = [.init(kind: .status, path: "/games", count: 2, status: 500)]
            }
        ) { simulator, base in
            // Given two games requests answered 500
            let directory = try TemporaryDirectory()
            // When the catalogue is fetched
            let summary = try await fetcher(base).fetch(into: directory.child("recording"))
            // Then both were retried and the fetch completed
            #expect(summary.retries == 2)
            #expect(summary.requests == Self.requestsPerFetch + 2)
            #expect(simulator.statistics().count(status: 500) == 2)
            #expect(simulator.statistics().count(status: 200) == Self.requestsPerFetch)
        }
    }

    @Test func waitsForRetryAfterOnTooManyRequests() async throws {
        try await withSimulator(
            settings: simulatorSettings {
                $0.retryAfterSeconds = 1
                $0.faults = [.init(kind: .status, path: "/categories", count: 1, status: 429)]
            }
        ) { simulator, base in
            // Given a categories request answered 429 with Retry-After: 1
            let directory = try TemporaryDirectory()
            let start = ContinuousClock.now
            // When the catalogue is fetched (backoff alone would wait 20 ms)
            let summary = try await fetcher(base).fetch(into: directory.child("recording"))
            // Then the fetch waited the second asked for, retried once and completed
            #expect(ContinuousClock.now - start >= .seconds(1))
            #expect(summary.retries == 1)
            #expect(simulator.statistics().count(status: 429) == 1)
        }
    }

    @Test func retriesATruncatedBody() async throws {
        try await withSimulator(
            settings: simulatorSettings {
                $0.faults = [.init(kind: .truncated, path: "/games", count: 1)]
            }
        ) { _, base in
            // Given a games response cut off halfway once
            let directory = try TemporaryDirectory()
            // When the catalogue is fetched
            let summary = try await fetcher(base).fetch(into: directory.child("recording"))
            // Then it was retried and every page is whole
            #expect(summary.retries == 1)
            let source = try RecordedProviderSource(directory: directory.child("recording"))
            let catalog = try Normalizer(configuration: .default, logger: quietLogger).normalize(source)
            #expect(catalog.warnings.isEmpty)
        }
    }

    @Test func failsNamingAPageThatIsAlwaysMalformedAndKeepsThePreviousRecording() async throws {
        try await withSimulator { simulator, base in
            // Given a previous recording
            let directory = try TemporaryDirectory()
            let recording = directory.child("recording")
            try await fetcher(base).fetch(into: recording)
            let before = try fileTree(recording)
            // And page 3 of 5 of CATEGORY001 (en-iPhone) now always answered with malformed JSON
            let page = ProviderRequest.gamesPage(enIPhone, categoryId: "CATEGORY001", offset: 20, limit: 10)
            simulator.update { $0.faults = [.init(kind: .malformed, path: "/games", query: page.query)] }
            simulator.resetStatistics()
            // When the catalogue is fetched again
            let error = await #expect(throws: PipelineError.self) {
                try await fetcher(base) { $0.retry.maxAttempts = 3 }.fetch(into: recording)
            }
            // Then it fails naming that page and the attempts, and the recording is untouched
            #expect(error?.code == .malformedInput)
            #expect(error?.record == "games page 3 of 5 of CATEGORY001 (en-iPhone, offset 20)")
            #expect(error?.file == page.url(relativeTo: base).absoluteString)
            #expect(error?.message.contains("not a collection envelope") == true)
            #expect(error?.message.contains("3 attempts") == true)
            #expect(try fileTree(recording) == before)
        }
    }

    @Test func refusesAResponseOverTheSizeCap() async throws {
        try await withSimulator { _, base in
            // Given a cap of 4,000 bytes, above the categories (≈ 1 KB) but below a page (≈ 9 KB)
            let directory = try TemporaryDirectory()
            // When the catalogue is fetched
            let error = await #expect(throws: PipelineError.self) {
                try await fetcher(base) { $0.maxResponseBytes = 4000 }.fetch(into: directory.child("recording"))
            }
            // Then it fails at once on a page, saying so
            #expect(error?.code == .inputTooLarge)
            #expect(error?.message.contains("over the cap of 4000 bytes") == true)
            #expect(error?.message.contains("(1 attempt)") == true)
            #expect(error?.record?.hasPrefix("games page") == true)
            #expect(!FileManager.default.fileExists(atPath: directory.child("recording").path))
        }
    }

    @Test func doesNotRetryNotFound() async throws {
        let page = ProviderRequest.gamesPage(frIPhone, categoryId: "CATEGORY002", offset: 10, limit: 10)
        try await withSimulator(
            settings: simulatorSettings {
                $0.faults = [.init(kind: .status, path: "/games", query: page.query, status: 404)]
            }
        ) { simulator, base in
            // Given a page answered 404
            let directory = try TemporaryDirectory()
            // When the catalogue is fetched
            let error = await #expect(throws: PipelineError.self) {
                try await fetcher(base).fetch(into: directory.child("recording"))
            }
            // Then the page was asked for once, and the fetch fails naming it
            #expect(simulator.statistics().count(status: 404) == 1)
            #expect(error?.code == .httpStatus)
            #expect(error?.record == "games page 2 of 5 of CATEGORY002 (fr-iPhone, offset 10)")
            #expect(error?.message.contains("HTTP 404") == true)
            #expect(error?.message.contains("not retried") == true)
        }
    }

    @Test func failsWhenTheCatalogueChangesBetweenRequests() async throws {
        // Given a provider whose games requests fail for now (503) …
        let catalog = try SimulatedCatalog.generated(games: 60, categories: 2, editions: [enIPhone])
        let before = CatalogSimulator(catalog: catalog, logger: quietLogger)
        before.update { $0.faults = [.init(kind: .status, path: "/games", status: 503)] }
        let base = try await before.start()
        let port = try #require(base.port)
        // … and is then redeployed with one category's game count changed
        var changed = catalog
        let index = try #require(changed.editions[enIPhone]?.categories.firstIndex { $0["id"]?.text == "CATEGORY001" })
        let total = try #require(changed.editions[enIPhone]?.categories[index]["games"]?["total"]?.int)
        changed.editions[enIPhone]?.categories[index]["games"]?["total"] = .number(Double(total - 1))
        let after = CatalogSimulator(catalog: changed, logger: quietLogger)
        let directory = try TemporaryDirectory()

        // When a fetch gets the categories before the redeployment and the pages after it
        let fetch = Task {
            try await fetcher(base) {
                $0.editions = [enIPhone]
                $0.retry.maxAttempts = 40
                $0.retry.maxDelay = .milliseconds(50)
            }.fetch(into: directory.child("recording"))
        }
        let waitStart = ContinuousClock.now
        while before.statistics().count(status: 503) == 0, ContinuousClock.now - waitStart < .seconds(60) {
            try await Task.sleep(for: .milliseconds(10))
        }
        await before.stop()
        _ = try await after.start(port: port)
        let result = await fetch.result
        await after.stop()

        // Then it fails saying the catalogue changed and to fetch again, and writes nothing
        let error = try #require(throws: PipelineError.self) { try result.get() }
        #expect(error.code == .catalogueChanged)
        #expect(error.message.contains("the catalogue changed while fetching"))
        #expect(error.message.contains("fetch again"))
        #expect(error.record?.contains("of CATEGORY001 (en-iPhone") == true)
        #expect(!FileManager.default.fileExists(atPath: directory.child("recording").path))
    }

    @Test func refusesToReplaceADirectoryThatIsNotARecording() async throws {
        // Given a non-empty directory without recording.json
        let directory = try TemporaryDirectory()
        let precious = directory.child("src/main.swift")
        try FileManager.default.createDirectory(
            at: precious.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("print(1)".utf8).write(to: precious)
        // When it is given as the fetch's output
        let error = await #expect(throws: PipelineError.self) {
            try await fetcher(URL(string: "http://127.0.0.1:9")!).fetch(into: directory.url)
        }
        // Then the fetch refuses before any request, and the directory is untouched
        #expect(error?.code == .outputNotReplaceable)
        #expect(error?.message.contains("did not write (src)") == true)
        #expect(FileManager.default.fileExists(atPath: precious.path))
    }

    // MARK: - Helpers

    /// A fetcher for both editions with short retry waits, changed by `change`. Its timeouts are
    /// hang detectors: a request that is only slow (a build beside the tests) must not be retried,
    /// or the tests' request counts would be off; the timeout tests set their own.
    private func fetcher(
        _ base: URL, logger: Logger = quietLogger, _ change: (inout HTTPFetcher.Configuration) -> Void = { _ in }
    ) -> HTTPFetcher {
        var configuration = HTTPFetcher.Configuration(baseURL: base, editions: [enIPhone, frIPhone])
        configuration.isProgressLineEnabled = false
        configuration.requestTimeout = .seconds(60)
        configuration.deadline = .seconds(240)
        configuration.retry.initialDelay = .milliseconds(20)
        configuration.retry.maxDelay = .milliseconds(200)
        change(&configuration)
        return HTTPFetcher(configuration: configuration, logger: logger)
    }

    /// Simulator settings: the defaults, changed by `change`.
    private func simulatorSettings(_ change: (inout SimulatorSettings) -> Void) -> SimulatorSettings {
        var settings = SimulatorSettings()
        change(&settings)
        return settings
    }

    /// Runs `body` against a simulator of the test catalogue, stopped afterwards.
    private func withSimulator<Value>(
        settings: SimulatorSettings = SimulatorSettings(),
        _ body: (CatalogSimulator, URL) async throws -> Value
    ) async throws -> Value {
        let simulator = CatalogSimulator(
            catalog: try .generated(games: Self.games, categories: Self.categories), settings: settings,
            logger: quietLogger)
        let base = try await simulator.start()
        do {
            let value = try await body(simulator, base)
            await simulator.stop()
            return value
        } catch {
            await simulator.stop()
            throw error
        }
    }

    /// Normalizes a recording stamped at a fixed time (SOURCE_DATE_EPOCH) and writes its snapshot.
    private func build(_ recording: URL, to out: URL) throws {
        let source = try RecordedProviderSource(directory: recording)
        let catalog = try Normalizer(configuration: .default, logger: quietLogger)
            .normalize(source, generatedAt: Self.stampedAt).catalog
        try SnapshotWriter(logger: quietLogger).write(catalog, to: out)
    }

    /// A recording's files but `recording.json`, whose fetch time changes with every fetch.
    private func responseFiles(_ recording: URL) throws -> [String: Data] {
        try fileTree(recording).filter { $0.key != "recording.json" }
    }
}
