@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
@_spi(CatalogTools) import CatalogServer
import Foundation
@_spi(CatalogTools) import ProviderAPI
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `refreshInBackground(checking:within:)` as a `BGAppRefreshTask` runs it, over loopback HTTP to the
/// simulator serving both the provider API and a published set: the whole refresh within its budget,
/// a budget shorter than the network, the expiration handler mid-download, and a second call. It
/// times deadlines, so `make test` runs it in a process of its own (`DEADLINE_SUITES`); its time
/// limits are hang detectors with room for a busy machine, the times themselves are printed.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct BackgroundRefreshTests {
    /// An app on the fixture's bundle, talking to the fixture's simulator, showing its first screen.
    func launchApp(_ fixture: PublishedSetFixture) -> CatalogCache {
        let base = fixture.manifestURL.deletingLastPathComponent().deletingLastPathComponent()
        let cache = CatalogCache(
            configuration: .showingEveryGame,
            upstream: ProviderHTTPUpstream(configuration: .init(baseURL: base, timeout: 10)),
            cacheDirectory: fixture.directory.child("cache"), bundleDirectory: fixture.bundle.directory,
            logger: silentLogger)
        let edition = fixture.bundle.catalog.editions[0]
        _ = cache.cachedCategories(edition: edition.edition)
        _ = cache.cachedGamesPage(edition: edition.edition, categoryId: edition.pages[0].categoryId)
        return cache
    }

    var firstGame: (PublishedSetFixture) -> String { { $0.bundle.catalog.editions[0].pages[0].items[0].id } }

    @Test func aRefreshValidatesWhatIsShownAndInstallsTheNewSetWithinItsBudget() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given an app showing its bundle, a provider whose content differs, and a set with a withdrawal list
            let cache = launchApp(fixture)
            try fixture.publish(withdrawals: WithdrawalList(sequence: 2, games: [Withdrawal(id: firstGame(fixture))]))
            // When the background task runs
            let report = await cache.refreshInBackground(checking: try fixture.launch(), within: .seconds(30))
            // Then both parts finished: the shown keys validated, the set installed, its list applied
            #expect(!report.isCutShort, "\(report)")
            #expect(report.synchronization.keys >= 2 && report.synchronization.requests >= 1, "\(report)")
            guard case .installed(let installation)? = report.snapshotUpdate else {
                Issue.record("not installed: \(report)")
                return
            }
            #expect(installation.version == 1)
            #expect(report.withdrawalsChanged && cache.withdrawalSequence == 2)
            #expect(report.hasChanges)
        }
    }

    @Test func aBudgetShorterThanTheNetworkCutsBothPartsShortAndInstallsNothing() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given a provider and a CDN that each take 3 s to answer
            let cache = launchApp(fixture)
            try fixture.publish(fixture.changedCatalog())
            fixture.simulator.update { $0.latencyMilliseconds = [3000, 3000] }
            fixture.simulator.delayPublishedFiles(milliseconds: 3000)
            let shown = cache.cachedGamesPage(
                edition: fixture.bundle.catalog.editions[0].edition,
                categoryId: fixture.bundle.catalog.editions[0].pages[0].categoryId)
            // When the background task has 300 ms
            let started = ContinuousClock.now
            let report = await cache.refreshInBackground(checking: try fixture.launch(), within: .milliseconds(300))
            let elapsed = ContinuousClock.now - started
            // Then it returns by the budget (a hang detector: the guard is 2 s more), cut short, with
            // nothing installed and the lobby as it was
            print("background refresh cut by a 300 ms budget returned after \(elapsed): \(report)")
            #expect(elapsed < .milliseconds(300) + CatalogCache.backgroundGrace + .seconds(5))
            #expect(report.isCutShort && report.synchronization.isCancelled, "\(report)")
            #expect(report.snapshotUpdate == nil && report.snapshotError != nil, "\(report)")
            #expect(!report.hasChanges)
            #expect(!fixture.generationNames().contains { !$0.hasPrefix(".") })
            #expect(try fixture.launch().activeVersion == nil)
            #expect(
                cache.cachedGamesPage(
                    edition: fixture.bundle.catalog.editions[0].edition,
                    categoryId: fixture.bundle.catalog.editions[0].pages[0].categoryId
                ).value == shown.value)
        }
    }

    @Test func theExpirationHandlerMidDownloadStopsItAndInstallsNothing() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given a set whose files take 3 s each, and a refresh with a long budget
            let cache = launchApp(fixture)
            try fixture.publish(fixture.changedCatalog())
            fixture.simulator.delayPublishedFiles(milliseconds: 3000)
            let updater = try fixture.launch()
            let work = Task { await cache.refreshInBackground(checking: updater, within: .seconds(60)) }
            // When the task's expiration handler cancels it once the download has begun
            var downloading = false
            for _ in 0..<400 where !downloading {
                downloading = fixture.generationNames().contains { $0.hasPrefix(".incoming-") }
                if !downloading { try await Task.sleep(for: .milliseconds(25)) }
            }
            let cancelled = ContinuousClock.now
            work.cancel()
            let report = await work.value
            let elapsed = ContinuousClock.now - cancelled
            // Then it returns at once, cut short, and no generation is installed
            #expect(downloading)
            print("background refresh cancelled mid-download returned after \(elapsed)")
            #expect(elapsed < CatalogCache.backgroundGrace + .seconds(5), "returned \(elapsed) after the cancellation")
            #expect(report.isCutShort && report.snapshotUpdate == nil, "\(report)")
            #expect(!fixture.generationNames().contains { !$0.hasPrefix(".") })
            fixture.simulator.delayPublishedFiles(milliseconds: 0)
            #expect(try fixture.launch().activeVersion == nil)
        }
    }

    @Test func withNoNetworkBothPartsFailCleanlyAndNothingChanges() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given an app showing its bundle, and nothing listening any more
            let cache = launchApp(fixture)
            let updater = try fixture.launch()
            await fixture.stop()
            // When the background task runs
            let report = await cache.refreshInBackground(checking: updater, within: .seconds(20))
            // Then validation failed and fell back, the check failed naming why, and nothing changed
            #expect(!report.isCutShort && report.synchronization.failedRequests >= 1, "\(report)")
            let error = try #require(report.snapshotError as? SnapshotUpdateError, "\(report)")
            #expect(error.code == .offline || error.code == .transportFailed, "\(error)")
            #expect(!report.hasChanges)
        }
    }

    @Test func aServerThatNeverAnswersIsCutAtTheBudgetAndNothingChanges() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given a provider and a CDN whose transport never answers (and blocks for 30 s when told
            // to stop), and a new set published
            try fixture.publish(fixture.changedCatalog())
            let configuration = URLSessionConfiguration.ephemeral
            configuration.protocolClasses = [StuckURLProtocol.self]
            let base = fixture.manifestURL.deletingLastPathComponent().deletingLastPathComponent()
            let cache = CatalogCache(
                configuration: .showingEveryGame,
                upstream: ProviderHTTPUpstream(
                    configuration: .init(baseURL: base, timeout: 30), sessionConfiguration: configuration),
                cacheDirectory: fixture.directory.child("cache"), bundleDirectory: fixture.bundle.directory,
                logger: silentLogger)
            let edition = fixture.bundle.catalog.editions[0]
            let shown = cache.cachedGamesPage(edition: edition.edition, categoryId: edition.pages[0].categoryId)
            var settings = try fixture.configuration()
            settings.requestTimeout = 30
            let updater = SnapshotUpdater(
                configuration: settings, sessionConfiguration: configuration, logger: silentLogger)
            // When the background task has a second
            let started = ContinuousClock.now
            let report = await cache.refreshInBackground(checking: updater, within: .seconds(1))
            let elapsed = ContinuousClock.now - started
            // Then it returns by the budget (a hang detector: the guard is 2 s more), cut short, with
            // nothing installed and the lobby as it was
            print("background refresh against a server that never answers returned after \(elapsed): \(report)")
            #expect(elapsed < .seconds(1) + CatalogCache.backgroundGrace + .seconds(5))
            #expect(report.isCutShort, "\(report)")
            #expect(report.snapshotUpdate == nil && !report.hasChanges, "\(report)")
            #expect(!fixture.generationNames().contains { !$0.hasPrefix(".") })
            #expect(
                cache.cachedGamesPage(edition: edition.edition, categoryId: edition.pages[0].categoryId).value
                    == shown.value)
        }
    }

    /// Rounds of refreshes with a random network, budget and cancellation, each round publishing a
    /// new version: every call returns by its budget or cancellation (plus the guard), and a
    /// relaunch serves exactly the newest version a report said it installed, or the one before.
    @Test func randomBudgetsCancellationsAndLatenciesNeverHangOrInstallHalfASet() async throws {
        let seed = UInt64.random(in: 0 ... .max)
        var random = SplitMix64(seed: seed)
        try await PublishedSetFixture.run { fixture in
            let cache = launchApp(fixture)
            var installed: Int?
            var (cut, completed) = (0, 0)
            for round in 1...40 {
                try fixture.publish(fixture.changedCatalog(name: "Round \(round)"))
                fixture.simulator.update { $0.latencyMilliseconds = [0, Int(random.next() % 300)] }
                fixture.simulator.delayPublishedFiles(milliseconds: Int(random.next() % 200))
                let budget = Duration.milliseconds(20 + Int64(random.next() % 400))
                let cancelAfter = random.next() % 2 == 0 ? Duration.milliseconds(Int64(random.next() % 400)) : nil
                let updater = try fixture.launch()
                #expect(updater.activeVersion == installed, "round \(round) (seed \(seed))")
                let started = ContinuousClock.now
                let work = Task { await cache.refreshInBackground(checking: updater, within: budget) }
                if let cancelAfter {
                    try await Task.sleep(for: cancelAfter)
                    work.cancel()
                }
                let report = await work.value
                let limit = min(budget, cancelAfter ?? budget) + CatalogCache.backgroundGrace + .seconds(5)
                #expect(ContinuousClock.now - started < limit, "round \(round) (seed \(seed)): \(report)")
                if case .installed(let installation)? = report.snapshotUpdate { installed = installation.version }
                if report.isCutShort { cut += 1 } else { completed += 1 }
                #expect(cache.cachedCategories(edition: fixture.bundle.catalog.editions[0].edition).value != nil)
            }
            print(
                "background refresh loop (seed \(seed)): \(cut) cut short, \(completed) completed, last installed \(installed.map(String.init) ?? "none")"
            )
        }
    }

    @Test func aSecondCallWhileOneRunsJoinsItAndOneValidationIsSent() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given a provider taking 500 ms
            let cache = launchApp(fixture)
            fixture.simulator.update { $0.latencyMilliseconds = [500, 500] }
            // When two refreshes are asked for at once
            async let first = cache.refreshInBackground(within: .seconds(30))
            async let second = cache.refreshInBackground(within: .seconds(30))
            let (one, two) = await (first, second)
            // Then they share one run: one validation request, one report
            #expect(fixture.simulator.statistics().requests[CacheValidation.path] == 1)
            #expect(one.synchronization == two.synchronization && !one.isCutShort, "\(one) / \(two)")
            // And a call after it runs again
            _ = await cache.refreshInBackground(within: .seconds(30))
            #expect(fixture.simulator.statistics().requests[CacheValidation.path] == 2)
        }
    }
}
