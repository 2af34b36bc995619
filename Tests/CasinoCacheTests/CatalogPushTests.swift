@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

/// Push invalidation: the payload's decoder against hostile input, and the cache marking what a
/// push names stale, over the committed lobby bundle and an in-memory upstream (the HTTP side is
/// in Tools: the simulator's push payloads, ProviderHTTPUpstream).
@Suite(.timeLimit(.minutes(5)))
struct CatalogPushTests: CacheFixtureSuite {
    let fixture: CacheFixture

    init() throws {
        fixture = try CacheFixture()
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

    /// The payload a provider pushes to invalidate `patterns`.
    static func payload(invalidating patterns: [SnapshotKeyPattern]) throws -> Data {
        try JSONSerialization.data(withJSONObject: ["catalog": ["invalidate": patterns.map(\.description)]])
    }

    @Test func aPushAfterACatalogueChangeRefreshesWhatIsShownAndLeavesTheRestAlone() async throws {
        // Given a lobby shown and synchronized: every entry fresh
        let cache = makeCache()
        _ = cache.cachedCategories(edition: english)
        let ids = bundle.categories().items.map(\.id)
        for id in ids { _ = cache.cachedGamesPage(edition: english, categoryId: id) }
        _ = await cache.synchronize()
        await cache.waitForRefreshes()  // the refreshes the bundled answers started, too
        let callsBefore = upstream.calls
        // When the provider changes its catalogue and pushes the payload its bump announces: each
        // category's pages, in every edition
        upstream.set { $0.version = 1 }
        let announced = bundle.catalog.editions.flatMap { edition in
            edition.categories.items.map { SnapshotKeyPattern.categoryPages(edition.edition, categoryId: $0.id) }
        }
        let push = try CatalogInvalidation(json: Self.payload(invalidating: announced))
        let updates = UpdateCollector(cache.updates())
        let report = await cache.markStale(push)
        // Then each shown page was refreshed once and announced; the category list was not named
        #expect(report.matched == ids.count)
        #expect(report.refreshed == ids.count)
        // (as many calls as pages, each of which changed: none for the category list)
        #expect(upstream.calls - callsBefore == ids.count)
        await updates.wait(for: ids.count)
        let pages = Set(ids.map { CacheKey.gamesPage(english, categoryId: $0, offset: 0) })
        #expect(Set(updates.contentUpdates.map(\.0)) == pages)
        guard case .fresh(let page, _) = cache.cachedGamesPage(edition: english, categoryId: ids[0]),
            case .fresh(let list, let categories) = cache.cachedCategories(edition: english)
        else {
            Issue.record("expected fresh answers")
            return
        }
        #expect(page.items[0].name.hasSuffix(" v1"))  // the upstream's change: the first game's name
        #expect(categories.tier != .bundled)  // fresh: network content
        #expect(!list.items[0].name.hasSuffix(" v1"))  // as synchronized, not fetched again
    }

    @Test func aPushNamingAnotherEditionOrUnheldKeysTouchesNothing() async throws {
        // Given a synchronized lobby
        let cache = makeCache()
        _ = cache.cachedCategories(edition: english)
        _ = await cache.synchronize()
        await cache.waitForRefreshes()
        let before = cache.cachedCategories(edition: english)
        // When a push names French content and a category the cache does not hold
        let push = try CatalogInvalidation(userInfo: [
            "catalog": ["invalidate": ["fr-iPhone/categories", "en-iPhone/games/NOWHERE/*", "fr-iPhone/games/X/*"]]
        ])
        let report = await cache.markStale(push)
        // Then nothing matched, nothing was fetched, and the entry is as it was
        #expect(report.matched == 0 && report.refreshed == 0)
        #expect(cache.cachedCategories(edition: english) == before)
        #expect(cache.statistics().upstreamCalls == 1)  // the synchronization's
        #expect(upstream.calls == 1)
    }

    @Test func anEntryOnlyOnDiskIsMarkedStaleForTheNextLaunch() async throws {
        // Given synchronized categories on disk, and a new launch that has shown nothing yet
        let cache = makeCache()
        _ = cache.cachedCategories(edition: english)
        _ = await cache.synchronize()
        await cache.waitForRefreshes()
        await cache.flush()
        let relaunched = makeCache()
        let callsBefore = upstream.calls
        // When a push names the categories
        let report = await relaunched.markStale(CatalogInvalidation(patterns: [.key(.categories(english))]))
        await relaunched.flush()
        // Then nothing was fetched now, and the next launch reads them as stale
        #expect(report.matched == 1 && report.refreshed == 0)
        #expect(upstream.calls == callsBefore)
        let next = makeCache()
        guard case .stale(_, let metadata) = next.cachedCategories(edition: english) else {
            Issue.record("expected stale categories, got \(next.cachedCategories(edition: english))")
            return
        }
        #expect(metadata.tier == .disk)
    }
}
