@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
@_spi(CatalogTools) import CatalogServer
import Foundation
@_spi(CatalogTools) import Gzip
import NIOConcurrencyHelpers
import Testing

/// Bulk validation end to end: a pipeline-built bundle, the simulator over loopback HTTP, the
/// app's HTTP upstream, and a cache on a real directory.
@Suite(.timeLimit(.minutes(5)))
struct CatalogSynchronizationTests {
    let directory: TemporaryDirectory
    let clock: ManualClock

    init() throws {
        directory = try TemporaryDirectory()
        clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
    }

    private static let validatePath = "/v1/casino/cache/validate"

    /// A cache on the simulator with the bundle the pipeline built from the same recording.
    private func makeCache(
        _ server: SimulatorFixture, configure: (inout CatalogCache.Configuration) -> Void = { _ in }
    ) throws -> CatalogCache {
        var configuration = CatalogCache.Configuration.showingEveryGame
        configure(&configuration)
        let bundle = directory.child("out")
        if !FileManager.default.fileExists(atPath: bundle.path) { _ = try server.writeBundle(in: directory) }
        return CatalogCache(
            configuration: configuration, upstream: server.upstream(), cacheDirectory: directory.child("cache"),
            bundleDirectory: bundle, clock: clock, logger: silentLogger)
    }

    /// The lobby's first screen from the bundle, without the network: categories and the first
    /// page of each category.
    private func showLobby(_ cache: CatalogCache, _ server: SimulatorFixture) -> [CacheKey] {
        var keys: [CacheKey] = [.categories(english)]
        _ = cache.cachedCategories(edition: english)
        for category in server.bundledCategories.items {
            _ = cache.cachedGamesPage(edition: english, categoryId: category.id)
            keys.append(.gamesPage(english, categoryId: category.id, offset: 0))
        }
        return keys
    }

    /// A previous session's cache that fetches every category's first page onto disk, after the
    /// bundle's date (a disk entry older than the bundle gives way to it): their keys, and the names
    /// of the files, sorted.
    private func fillDiskAsAPreviousSession(
        _ server: SimulatorFixture
    ) async throws -> (keys: [CacheKey], names: [String]) {
        let first = try makeCache(server)
        clock.advance(by: .seconds(max(server.catalog.generatedAt.timeIntervalSince(clock.now), 0) + 86_400))
        let keys = server.bundledCategories.items.map { CacheKey.gamesPage(english, categoryId: $0.id, offset: 0) }
        for key in keys { _ = try await first.content(for: key) }
        await first.waitForRefreshes()
        await first.flush()
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.child("cache").path)
            .filter { $0.hasSuffix(".json.gz") }.sorted()
        return (keys, names)
    }

    private func withSimulator(
        serving change: (inout SimulatedCatalog) -> Void = { _ in }, _ body: (SimulatorFixture) async throws -> Void
    ) async throws {
        try await SimulatorFixture.run(in: directory, serving: change, body)
    }

    @Test func oneRequestRenewsEveryUnchangedBundledEntryWithoutFetchingIt() async throws {
        try await withSimulator { server in
            // Given a lobby shown from the bundle, and a provider whose content has not changed
            let cache = try makeCache(server)
            let shown = showLobby(cache, server)
            // When the app synchronizes
            let report = await cache.synchronize()
            // Then one request validated every entry, and nothing was fetched
            #expect(report.requests == 1)
            #expect(report.keys == shown.count)
            #expect(report.current == shown.count)
            #expect(report.installed + report.refetched + report.refreshedKeyByKey == 0)
            let served = server.simulator.statistics()
            #expect(served.requests[Self.validatePath] == 1)
            #expect(served.totalRequests == 1)
            // And every shown entry is fresh network content now, still without a request
            for key in shown {
                guard case .fresh(let content, let metadata) = try await cache.content(for: key) else {
                    Issue.record("\(key) is not fresh")
                    continue
                }
                #expect(metadata.tier != .bundled)  // fresh: network content
                #expect(metadata.storedAt == clock.now)
                #expect(!content.ids.isEmpty)
            }
            #expect(server.simulator.statistics().totalRequests == 1)
            let statistics = cache.statistics()
            #expect(statistics.validationRequests == 1)
            #expect(statistics.validatedCurrent == shown.count)
        }
    }

    @Test func changedContentArrivesInlineInTheSameRequestAndIsAnnouncedOncePerKey() async throws {
        try await withSimulator { server in
            // Given a lobby shown from the bundle, then the provider renames every game
            let cache = try makeCache(server)
            let shown = showLobby(cache, server)
            _ = try server.simulator.bumpVersion()
            let updates = UpdateCollector(cache.updates())
            // When the app synchronizes
            let report = await cache.synchronize()
            // Then the category list is current, every page came inline: one request in all
            #expect(report.requests == 1)
            #expect(report.current == 1)
            #expect(report.installed == shown.count - 1)
            #expect(server.simulator.statistics().totalRequests == 1)
            // And each changed page was announced once and is served fresh
            await updates.wait(for: shown.count - 1)
            #expect(updates.contentUpdates.count == shown.count - 1)
            let page = cache.cachedGamesPage(edition: english, categoryId: server.firstCategoryId)
            guard case .fresh(let games, _) = page else {
                Issue.record("expected a fresh page, got \(page)")
                return
            }
            #expect(games.items.allSatisfy { $0.name.hasSuffix(" v2") })
            #expect(cache.statistics().validatedInline == shown.count - 1)
        }
    }

    @Test func changesOverTheInlineBudgetAreFetchedThroughTheUsualPath() async throws {
        try await withSimulator { server in
            // Given an app that asks for no inline content, and a changed catalogue
            let cache = try makeCache(server) { $0.validationInlineBytes = 0 }
            let shown = showLobby(cache, server)
            _ = try server.simulator.bumpVersion()
            // When it synchronizes
            let report = await cache.synchronize()
            // Then each changed page was fetched with its own GET, once
            #expect(report.installed == 0)
            #expect(report.refetched == shown.count - 1)
            #expect(report.failedFetches == 0)
            let served = server.simulator.statistics()
            #expect(served.requests[Self.validatePath] == 1)
            #expect(served.requests["/v1/casino/games"] == shown.count - 1)
            guard
                case .fresh(let games, _) = cache.cachedGamesPage(edition: english, categoryId: server.firstCategoryId)
            else {
                Issue.record("expected a fresh page")
                return
            }
            #expect(games.items.allSatisfy { $0.name.hasSuffix(" v2") })
        }
    }

    @Test func entriesOnDiskAreValidatedTooAndACategoryTheProviderRemovedIsForgotten() async throws {
        // Given a previous session that fetched a category's first page onto disk
        let elsewhere = try TemporaryDirectory()
        var dropped = ""
        try await withSimulator { server in
            let first = try makeCache(server)
            // (after the bundle's date: a disk entry older than the bundle gives way to it)
            clock.advance(by: .seconds(max(server.catalog.generatedAt.timeIntervalSince(clock.now), 0) + 86_400))
            dropped = server.bundledCategories.items.last!.id
            _ = try await first.content(for: .gamesPage(english, categoryId: dropped, offset: 0))
            await first.waitForRefreshes()
            await first.flush()
        }
        // And a provider that has since dropped that category
        let droppedId = dropped
        try await SimulatorFixture.run(in: elsewhere) { catalog in
            var content = catalog.editions[english]!
            content.categories.removeAll { $0["id"]?.text == droppedId }
            content.games[droppedId] = nil
            catalog.editions[english] = content
        } _: { server in
            // When a new launch (nothing in memory) synchronizes
            let cache = CatalogCache(
                configuration: .showingEveryGame, upstream: server.upstream(), cacheDirectory: directory.child("cache"),
                bundleDirectory: directory.child("out"), clock: clock, logger: silentLogger)
            let report = await cache.synchronize()
            await cache.flush()
            // Then the disk entry was sent and forgotten as removed
            #expect(report.keys == 1)
            #expect(report.removed == 1)
            let withoutBundle = CatalogCache(
                configuration: .showingEveryGame, upstream: server.upstream(), cacheDirectory: directory.child("cache"),
                bundleDirectory: nil,
                clock: clock,
                logger: silentLogger)
            #expect(withoutBundle.cachedContent(for: .gamesPage(english, categoryId: droppedId, offset: 0)) == .miss)
        }
    }

    @Test func aRelaunchValidatesDiskEntriesByTheirHeadersAndHasRenewedThemWhenItReturns() async throws {
        try await withSimulator { server in
            // Given a previous session that fetched every category's first page onto disk
            let (keys, names) = try await fillDiskAsAPreviousSession(server)
            let cacheDirectory = directory.child("cache")
            #expect(names.count == keys.count)
            // And one of them written by 0.1.0 (one gzip'd object, no content hash): no longer read
            let previous = cacheDirectory.appendingPathComponent(names[0])
            let previousHeader = String(decoding: try Data(contentsOf: previous).prefix(2048), as: UTF8.self)
            let previousKey = try #require(keys.first { previousHeader.contains("\nkey \($0.description)\n") })
            try Self.downgrade(previous)
            var before: [String: Data] = [:]
            for name in names.dropFirst() {
                before[name] = try Data(contentsOf: cacheDirectory.appendingPathComponent(name))
            }
            let requestsBefore = server.simulator.statistics().totalRequests

            // When the app is relaunched a day later (nothing in memory, every page stale) and synchronizes
            clock.advance(by: .seconds(86_400))
            let cache = try makeCache(server)
            let report = await cache.synchronize()

            // Then one request found every page of the current format current, and nothing was fetched
            #expect(report.requests == 1 && report.current == keys.count - 1)
            #expect(report.installed + report.refetched + report.refreshedKeyByKey == 0)
            // And as it returns, each file is marked renewed now with not a byte of it changed
            for (name, data) in before {
                let file = cacheDirectory.appendingPathComponent(name)
                #expect(try Data(contentsOf: file) == data)
                let modified = try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date
                #expect(modified == clock.now)
            }
            // And every such page is served fresh from disk, without another request
            for key in keys where key != previousKey {
                guard case .fresh(_, let metadata) = cache.cachedContent(for: key) else {
                    Issue.record("\(key) is not fresh")
                    continue
                }
                #expect(metadata.tier == .disk && metadata.storedAt == clock.now)
            }
            #expect(server.simulator.statistics().totalRequests == requestsBefore + 1)
            // And the 0.1.0 file is a miss, removed when its key is read
            #expect(cache.cachedContent(for: previousKey).metadata?.tier != .disk)
            await cache.flush()
            #expect(!FileManager.default.fileExists(atPath: previous.path))
        }
    }

    private static func downgrade(_ file: URL) throws {
        let data = try Data(contentsOf: file)
        let end = try #require(data.firstRange(of: Data("\n\n".utf8)))
        var fields: [String: String] = [:]
        for line in String(decoding: data[..<end.lowerBound], as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            fields[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        let stored = Date(timeIntervalSince1970: TimeInterval(Int(try #require(fields["stored"]))!))
        var object: [String: Any] = [
            "key": try #require(fields["key"]), "schemaVersion": Int(try #require(fields["schema"]))!,
            "cacheVersion": Int(try #require(fields["cache"]))!, "origin": try #require(fields["origin"]),
            "storedAt": ISO8601DateFormatter().string(from: stored),
        ]
        object["etag"] = fields["etag"]?.removingPercentEncoding
        let page = try JSONSerialization.jsonObject(with: Gzip.decompress(data[end.upperBound...], limit: 1 << 20))
        object["content"] = ["gamesPage": ["_0": page]]
        try Gzip.compress(try JSONSerialization.data(withJSONObject: object)).write(to: file)
    }

    @Test func aRelaunchReadsTheDiskHeadersOneBatchAtATimeAsItSendsThem() async throws {
        try await withSimulator { server in
            // Given a previous session that left every category's first page on disk
            let (keys, names) = try await fillDiskAsAPreviousSession(server)
            let cacheDirectory = directory.child("cache")
            #expect(names.count == keys.count && keys.count > 2)
            // When the app is relaunched with batches of one key, and the files vanish while its first
            // request is out
            let upstream = ValidationObserver(base: server.upstream()) { call in
                guard call == 1 else { return }
                for name in names {
                    try? FileManager.default.removeItem(at: cacheDirectory.appendingPathComponent(name))
                }
            }
            var configuration = CatalogCache.Configuration.showingEveryGame
            configuration.validationBatchSize = 1
            let cache = CatalogCache(
                configuration: configuration, upstream: upstream, cacheDirectory: cacheDirectory,
                bundleDirectory: directory.child("out"), clock: clock, logger: silentLogger)
            let report = await cache.synchronize()
            // Then only the first batch's header had been read: the rest were read after it, and
            // were gone (holding every header before the first request would have sent them all)
            #expect(report.keys == 1 && report.requests == 1 && report.current == 1)
            #expect(upstream.keysSent == [1])
        }
    }

    @Test func manyKeysGoOutInBatchesUnderTheConfiguredSize() async throws {
        try await withSimulator { server in
            // Given five shown entries and batches of two
            let cache = try makeCache(server) { $0.validationBatchSize = 2 }
            let shown = showLobby(cache, server)
            // When it synchronizes
            let report = await cache.synchronize()
            // Then three requests carried them all
            #expect(report.requests == (shown.count + 1) / 2)
            #expect(report.current == shown.count)
            #expect(server.simulator.statistics().requests[Self.validatePath] == (shown.count + 1) / 2)
        }
    }

    @Test func aSynchronizeCancelledBeforeItStartsSendsNothing() async throws {
        try await withSimulator { server in
            // Given a shown lobby whose entries are all stale
            let cache = try makeCache(server) {
                $0.categoriesTTL = .zero
                $0.gamesPageTTL = .zero
            }
            _ = showLobby(cache, server)
            // When the calling task is cancelled before it synchronizes
            let report = await Task { () -> SynchronizationReport in
                withUnsafeCurrentTask { $0?.cancel() }
                return await cache.synchronize()
            }.value
            // Then it says so and has sent no request at all
            #expect(report.isCancelled)
            #expect(report.requests == 0 && report.refreshedKeyByKey == 0)
            #expect(server.simulator.statistics().totalRequests == 0)
        }
    }

    @Test func aSynchronizeCancelledDuringItsRequestReturnsAtOnceAndFallsBackToNothing() async throws {
        try await withSimulator { server in
            // Given stale entries and a validation request that stalls for 30 s
            let cache = try makeCache(server) {
                $0.categoriesTTL = .zero
                $0.gamesPageTTL = .zero
            }
            let shown = showLobby(cache, server)
            server.simulator.update {
                $0.faults = [.init(kind: .stall, path: Self.validatePath, count: 1, milliseconds: 30_000)]
            }
            // When the caller cancels while the request is under way
            let call = Task { await cache.synchronize() }
            try await Task.sleep(for: .milliseconds(200))
            let cancelled = ContinuousClock.now
            call.cancel()
            let report = await call.value
            // Then it returns promptly, without refreshing key by key, and every entry is still shown
            #expect(ContinuousClock.now - cancelled < .seconds(5))
            #expect(report.isCancelled)
            // (on a busy machine the request may not have started yet: it is then never sent)
            #expect(report.requests <= 1 && report.failedRequests == 0 && report.refreshedKeyByKey == 0)
            #expect(server.simulator.statistics().requests["/v1/casino/games"] == nil)
            for key in shown { #expect(cache.cachedContent(for: key).value != nil) }
        }
    }

    @Test(arguments: [500, 429])
    func aFailingValidationFallsBackToKeyByKeyRefreshesAndLosesNothing(status: Int) async throws {
        try await withSimulator { server in
            // Given a shown lobby and a validation endpoint that fails once
            let cache = try makeCache(server)
            let shown = showLobby(cache, server)
            server.simulator.update {
                $0.faults = [.init(kind: .status, path: Self.validatePath, count: 1, status: status)]
                $0.retryAfterSeconds = 0
            }
            // When it synchronizes
            let report = await cache.synchronize()
            // Then the failure is reported and every bundled entry was refreshed on its own
            #expect(report.failedRequests == 1)
            #expect(report.refreshedKeyByKey == shown.count)
            #expect(server.simulator.statistics().requests[Self.validatePath] == 1)
            for key in shown {
                guard case .fresh = cache.cachedContent(for: key) else {
                    Issue.record("\(key) was lost or not refreshed")
                    continue
                }
            }
        }
    }

    @Test(arguments: [
        #"{"keys": {"en-iPhone/categories": {"invalidate": "yes"}}}"#,
        #"{"keys": ["en-iPhone/categories"]}"#,
        #"not json"#,
    ])
    func anAnswerOfTheWrongShapeFallsBackWithoutTouchingAnEntry(body: String) async throws {
        try await withSimulator { server in
            // Given a shown lobby and an endpoint answering garbage once
            let cache = try makeCache(server)
            let shown = showLobby(cache, server)
            server.simulator.update { $0.faults = [.init(kind: .body, path: Self.validatePath, count: 1, body: body)] }
            // When it synchronizes
            let report = await cache.synchronize()
            // Then nothing was installed from it, and the entries were refreshed one by one
            #expect(report.failedRequests == 1)
            #expect(report.current + report.installed == 0)
            #expect(report.refreshedKeyByKey == shown.count)
            #expect(cache.statistics().updatesEmitted == 0)
        }
    }

    @Test func verdictsForKeysTheAppDidNotAskForAreIgnored() async throws {
        try await withSimulator { server in
            // Given an answer naming only keys the app does not hold
            let cache = try makeCache(server)
            _ = showLobby(cache, server)
            let foreign =
                #"{"keys": {"de-iPhone/categories": {"invalidate": true, "content": {"items": []}},"#
                + #" "en-iPhone/games/ELSEWHERE/0": {"invalidate": false}}}"#
            server.simulator.update {
                $0.faults = [.init(kind: .body, path: Self.validatePath, count: 1, body: foreign)]
            }
            // When it synchronizes
            let report = await cache.synchronize()
            // Then no entry changed, the held keys counted as unanswered and refreshed on their own
            #expect(report.requests == 1)
            #expect(report.failedRequests == 0)
            #expect(report.current + report.installed + report.removed == 0)
            #expect(report.unanswered == report.keys)
            #expect(cache.statistics().updatesEmitted == 0)
            #expect(cache.statistics().validatedInline == 0)
        }
    }

    @Test func aTwoGigabyteAnswerIsCutOffAtTheCapAndFallsBack() async throws {
        try await withSimulator { server in
            // Given an endpoint that announces and streams a 2 GiB answer
            let cache = try makeCache(server)
            let shown = showLobby(cache, server)
            server.simulator.update { $0.faults = [.init(kind: .oversized, path: Self.validatePath, count: 1)] }
            // When it synchronizes
            let report = await cache.synchronize()
            // Then the request failed at the cap, and the entries were refreshed one by one
            #expect(report.failedRequests == 1)
            #expect(report.refreshedKeyByKey == shown.count)
        }
    }

    @Test func staleAndBundledAnswersWithinTheBatchWindowAreValidatedInOneRequest() async throws {
        try await withSimulator { server in
            // Given a cache that gathers refreshes for a second
            let cache = try makeCache(server) { $0.refreshBatchWindow = .seconds(1) }
            // When the lobby's screens are read (bundled answers at once)
            guard case .bundled = try await cache.categories(edition: english) else {
                Issue.record("expected a bundled answer")
                return
            }
            for category in server.bundledCategories.items {
                _ = try await cache.gamesPage(edition: english, categoryId: category.id)
            }
            // Then nothing is sent before the window ends
            #expect(server.simulator.statistics().totalRequests == 0)
            // And when it ends, one validation covers every screen, and they are fresh
            await eventually { clock.sleeperCount > 0 }
            clock.advance(by: .seconds(1))
            await eventually { cache.statistics().validatedCurrent == server.bundledCategories.items.count + 1 }
            await cache.waitForRefreshes()
            #expect(server.simulator.statistics().requests[Self.validatePath] == 1)
            #expect(server.simulator.statistics().totalRequests == 1)
            guard case .fresh = try await cache.categories(edition: english) else {
                Issue.record("expected fresh categories")
                return
            }
            await cache.flush()  // no disk write may land after the directory is gone
        }
    }

    @Test func waitingForRefreshesSendsWhatIsGatheredAtOnce() async throws {
        try await withSimulator { server in
            // Given bundled answers gathered for a batch an hour long
            let cache = try makeCache(server) { $0.refreshBatchWindow = .seconds(3600) }
            _ = try await cache.categories(edition: english)
            _ = try await cache.gamesPage(edition: english, categoryId: server.firstCategoryId)
            // When the app waits for its refreshes
            await cache.waitForRefreshes()
            // Then one validation was sent without waiting out the window
            #expect(server.simulator.statistics().requests[Self.validatePath] == 1)
            #expect(cache.statistics().validatedCurrent == 2)
            await cache.flush()
        }
    }
}

/// An upstream that passes every call to `base`, and tells `beforeValidation` (with the call's
/// number, from 1) before each bulk validation it passes on.
private final class ValidationObserver: CatalogUpstream {
    private let base: any CatalogUpstream
    private let beforeValidation: @Sendable (Int) -> Void
    private let sent = NIOLockedValueBox<[Int]>([])

    init(base: any CatalogUpstream, beforeValidation: @escaping @Sendable (Int) -> Void) {
        self.base = base
        self.beforeValidation = beforeValidation
    }

    /// How many keys each validation carried, in order.
    var keysSent: [Int] { sent.withLockedValue { $0 } }

    func categories(edition: Edition, etag: String?) async throws -> UpstreamResponse<CategoryList> {
        try await base.categories(edition: edition, etag: etag)
    }

    func gamesPage(
        edition: Edition, categoryId: String, offset: Int, limit: Int, etag: String?
    ) async throws -> UpstreamResponse<GamesPage> {
        try await base.gamesPage(edition: edition, categoryId: categoryId, offset: offset, limit: limit, etag: etag)
    }

    func validate(
        contentHashes: [SnapshotKey: String], pageSize: Int, inlineBytes: Int, withdrawalSequence: Int
    ) async throws -> UpstreamValidation? {
        let call = sent.withLockedValue { sent in
            sent.append(contentHashes.count)
            return sent.count
        }
        beforeValidation(call)
        return try await base.validate(
            contentHashes: contentHashes, pageSize: pageSize, inlineBytes: inlineBytes,
            withdrawalSequence: withdrawalSequence)
    }
}
