@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogServer
import Foundation
import Testing

/// Push invalidation: the payload's decoder against hostile input, and the cache marking what a
/// push names stale, against the simulator over loopback.
@Suite(.timeLimit(.minutes(5)))
struct CatalogPushTests {
    let directory: TemporaryDirectory
    let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))

    init() throws {
        directory = try TemporaryDirectory()
    }

    // MARK: - The payload

    @Test func readsTheDocumentedPayloadFromANotificationsUserInfo() throws {
        // Given a notification as an app receives it, with APNs' own keys beside ours
        let userInfo: [AnyHashable: Any] = [
            "aps": ["content-available": 1],
            "catalog": [
                "invalidate": ["en-iPhone/categories", "en-iPhone/games/VIDEOSLOTS/*", "en-iPhone/categories"]
            ],
        ]
        // When it is read
        let push = try CatalogInvalidation(userInfo: userInfo)
        // Then the key and the wildcard are its patterns, once each
        #expect(push.patterns == [.key(.categories(english)), .categoryPages(english, categoryId: "VIDEOSLOTS")])
        #expect(push.rejected == 0)
    }

    @Test func anotherKindOfNotificationIsNotACatalogPush() {
        let error = #expect(throws: CatalogInvalidationError.self) {
            try CatalogInvalidation(userInfo: ["aps": ["alert": "Hi"]])
        }
        #expect(error?.code == .notACatalogPush)
    }

    @Test(arguments: [
        #"{"catalog": "en-iPhone/categories"}"#, #"{"catalog": {"invalidate": "en-iPhone/categories"}}"#,
        #"{"catalog": {"invalidate": {"a": 1}}}"#, #"{"catalog": {}}"#, #"["catalog"]"#, "not json",
    ])
    func aPayloadOfTheWrongShapeIsAClearError(json: String) {
        let error = #expect(throws: CatalogInvalidationError.self) { try CatalogInvalidation(json: Data(json.utf8)) }
        #expect(error?.code == .malformed)
    }

    @Test func entriesOfTheWrongTypeOrNotKeysAreSkippedAndReported() throws {
        // Given a list mixing good keys with numbers, nulls, traversal and oversized text
        let push = try CatalogInvalidation(userInfo: [
            "catalog": [
                "invalidate": [
                    42, NSNull(), "../../etc/passwd", "en-iPhone/games/X/*", String(repeating: "A", count: 100_000),
                    ["nested"], "en-iPhone/games/\u{0}/0",
                ] as [Any]
            ]
        ])
        // Then the one pattern is kept and the six others counted, with reasons
        #expect(push.patterns == [.categoryPages(english, categoryId: "X")])
        #expect(push.rejected == 6)
        #expect(push.problems.count == 6)
        #expect(push.problems[0].contains("invalidate[0]"))
    }

    @Test func aMillionKeysAreCappedWithoutParsingThemAll() throws {
        // Given a payload naming a million keys
        let keys = (0..<1_000_000).map { "en-iPhone/games/C\($0)/0" }
        let clock = ContinuousClock()
        let started = clock.now
        // When it is read
        let push = try CatalogInvalidation(userInfo: ["catalog": ["invalidate": keys]])
        // Then the first thousand are taken and the rest counted as rejected
        #expect(push.patterns.count == CatalogInvalidation.maxPatterns)
        #expect(push.rejected == 1_000_000 - CatalogInvalidation.maxPatterns)
        #expect(push.problems.count == 1)
        #expect(clock.now - started < .seconds(60))  // a hang detector, not a benchmark
    }

    @Test func aPayloadOverTheJSONCapIsRefusedBeforeParsing() {
        let huge =
            Data(#"{"catalog": {"invalidate": ["#.utf8) + Data(repeating: UInt8(ascii: " "), count: 1 << 20)
            + Data("]}}".utf8)
        let error = #expect(throws: CatalogInvalidationError.self) { try CatalogInvalidation(json: huge) }
        #expect(error?.code == .malformed)
    }

    // MARK: - The cache

    /// Runs `body` with the simulator and a cache over its bundle; the simulator stops afterwards.
    private func withLobby(_ body: (SimulatorFixture, CatalogCache) async throws -> Void) async throws {
        try await SimulatorFixture.run(in: directory) { server in
            let bundle = try server.writeBundle(in: directory)
            let cache = CatalogCache(
                configuration: .showingEveryGame, upstream: server.upstream(), cacheDirectory: directory.child("cache"),
                bundleDirectory: bundle,
                clock: clock, logger: silentLogger)
            try await body(server, cache)
        }
    }

    @Test func aPushAfterACatalogueChangeRefreshesWhatIsShownAndLeavesTheRestAlone() async throws {
        try await withLobby { server, cache in
            // Given a lobby shown and synchronized: every entry fresh
            _ = cache.cachedCategories(edition: english)
            let ids = server.bundledCategories.items.map(\.id)
            for id in ids { _ = cache.cachedGamesPage(edition: english, categoryId: id) }
            _ = await cache.synchronize()
            server.simulator.resetStatistics()
            // When the provider changes its catalogue and pushes the payload its bump announces
            let push = try CatalogInvalidation(json: try server.simulator.bumpVersion())
            let updates = UpdateCollector(cache.updates())
            let report = await cache.markStale(push)
            // Then each shown page was refreshed once and announced; the category list was not named
            #expect(report.matched == ids.count)
            #expect(report.refreshed == ids.count)
            #expect(server.simulator.statistics().requests["/v1/casino/games"] == ids.count)
            #expect(server.simulator.statistics().requests["/v1/casino/categories"] == nil)
            await updates.wait(for: ids.count)
            guard case .fresh(let page, _) = cache.cachedGamesPage(edition: english, categoryId: ids[0]),
                case .fresh(_, let categories) = cache.cachedCategories(edition: english)
            else {
                Issue.record("expected fresh answers")
                return
            }
            #expect(page.items.allSatisfy { $0.name.hasSuffix(" v2") })
            #expect(categories.tier != .bundled)  // fresh: network content
        }
    }

    @Test func aPushNamingAnotherEditionOrUnheldKeysTouchesNothing() async throws {
        try await withLobby { server, cache in
            // Given a synchronized lobby
            _ = cache.cachedCategories(edition: english)
            _ = await cache.synchronize()
            let before = cache.cachedCategories(edition: english)
            // When a push names French content and a category the cache does not hold
            let push = try CatalogInvalidation(userInfo: [
                "catalog": ["invalidate": ["fr-iPhone/categories", "en-iPhone/games/NOWHERE/*", "fr-iPhone/games/X/*"]]
            ])
            let report = await cache.markStale(push)
            // Then nothing matched, nothing was fetched, and the entry is as it was
            #expect(report.matched == 0 && report.refreshed == 0)
            #expect(cache.cachedCategories(edition: english) == before)
            #expect(cache.statistics().upstreamCalls == 1)
        }
    }

    @Test func anEntryOnlyOnDiskIsMarkedStaleForTheNextLaunch() async throws {
        try await withLobby { server, cache in
            // Given synchronized categories on disk, and a new launch that has shown nothing yet
            _ = cache.cachedCategories(edition: english)
            _ = await cache.synchronize()
            await cache.flush()
            let relaunched = CatalogCache(
                configuration: .showingEveryGame, upstream: server.upstream(), cacheDirectory: directory.child("cache"),
                bundleDirectory: directory.child("out"),
                clock: clock, logger: silentLogger)
            // When a push names the categories
            let report = await relaunched.markStale(CatalogInvalidation(patterns: [.key(.categories(english))]))
            await relaunched.flush()
            // Then nothing was fetched now, and the next launch reads them as stale
            #expect(report.matched == 1 && report.refreshed == 0)
            let next = CatalogCache(
                configuration: .showingEveryGame, upstream: server.upstream(), cacheDirectory: directory.child("cache"),
                bundleDirectory: directory.child("out"),
                clock: clock, logger: silentLogger)
            guard case .stale(_, let metadata) = next.cachedCategories(edition: english) else {
                Issue.record("expected stale categories, got \(next.cachedCategories(edition: english))")
                return
            }
            #expect(metadata.tier == .disk)
        }
    }
}
