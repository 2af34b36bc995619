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

/// The HTTP upstream against the provider simulator over real loopback HTTP: mapping identical to
/// the pipeline's, ETag revalidation, every failure typed, and the cache on top of it.
@Suite(.timeLimit(.minutes(5)))  // hang detectors: a busy machine takes minutes
struct ProviderHTTPUpstreamTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    // MARK: - Mapping

    @Test func categoriesAndPagesMapExactlyLikeThePipelineMapsTheSameRecording() async throws {
        try await withSimulator { server in
            // Given the catalogue the pipeline built from the recording the simulator serves
            let upstream = server.upstream()
            let bundled = try #require(server.catalog.editions.first { $0.edition == english })
            // When the upstream fetches the categories and every bundled page over HTTP
            guard case .modified(let categories, let etag) = try await upstream.categories(edition: english, etag: nil)
            else {
                Issue.record("expected content for a request without an ETag")
                return
            }
            var live: [GamesPage] = []
            for page in bundled.pages {
                let answer = try await upstream.gamesPage(
                    edition: english, categoryId: page.categoryId, offset: page.offset, limit: page.limit, etag: nil)
                if case .modified(let value, _) = answer { live.append(value) }
            }
            // Then live content equals bundled content, value for value, and carries a validator
            #expect(categories == bundled.categories)
            #expect(live == bundled.pages)
            #expect(etag?.hasPrefix("\"") == true)
            #expect(bundled.pages.count > 4)
        }
    }

    // MARK: - Revalidation

    @Test func aMatchingETagAnswersNotModifiedAndTheServerCountsA304() async throws {
        try await withSimulator { server in
            // Given a page fetched once, with its ETag
            let upstream = server.upstream()
            let categoryId = server.firstCategoryId
            guard
                case .modified(_, let etag?) = try await upstream.gamesPage(
                    edition: english, categoryId: categoryId, offset: 0, limit: 10, etag: nil)
            else {
                Issue.record("expected content with an ETag")
                return
            }
            // When it is asked again with that ETag
            let again = try await upstream.gamesPage(
                edition: english, categoryId: categoryId, offset: 0, limit: 10, etag: etag)
            // Then the answer is "not modified", and the server sent a 304 without a body
            guard case .notModified = again else {
                Issue.record("expected notModified, got \(again)")
                return
            }
            #expect(server.simulator.statistics().count(status: 304) == 1)
            #expect(server.simulator.statistics().count(status: 200) == 1)
        }
    }

    @Test func aChangedCatalogueAnswersNewContentForAnOldETag() async throws {
        try await withSimulator { server in
            // Given a page and its ETag, then the provider changes its content
            let upstream = server.upstream()
            let categoryId = server.firstCategoryId
            guard
                case .modified(let old, let etag?) = try await upstream.gamesPage(
                    edition: english, categoryId: categoryId, offset: 0, limit: 10, etag: nil)
            else {
                Issue.record("expected content with an ETag")
                return
            }
            server.simulator.update { $0.version = 2 }
            // When it is revalidated with the old ETag
            let answer = try await upstream.gamesPage(
                edition: english, categoryId: categoryId, offset: 0, limit: 10, etag: etag)
            // Then the new content comes back with a new ETag
            guard case .modified(let new, let newETag) = answer else {
                Issue.record("expected new content, got \(answer)")
                return
            }
            #expect(newETag != etag)
            #expect(new.items.map(\.id) == old.items.map(\.id))
            #expect(new.items.allSatisfy { $0.name.hasSuffix(" v2") })
        }
    }

    // MARK: - Withdrawals

    /// The HTTP side of what `WithdrawalScenarioTests` (root package) drives through the cache: the
    /// simulator's push payload and its validation answer, read by the app's decoder and upstream.
    @Test func aWithdrawalReachesTheAppByItsPushAndByAValidationHoldingAnOlderList() async throws {
        try await withSimulator { server in
            // Given a game withdrawn at the provider, and the push its withdrawal sends
            let upstream = server.upstream()
            let withdrawn = try #require(server.bundledPage(server.firstCategoryId).items.first?.id)
            let push = try CatalogInvalidation(json: server.simulator.withdraw(Withdrawal(id: withdrawn)))
            // When an app holding no list validates its categories, then one holding the list
            let hashes = [
                SnapshotKey.categories(english): try CatalogContent.categories(server.bundledCategories).contentHash()
            ]
            let pageSize = server.catalog.pageSize
            let missed = try await upstream.validate(
                contentHashes: hashes, pageSize: pageSize, inlineBytes: 0, withdrawalSequence: 0)
            let holding = try await upstream.validate(
                contentHashes: hashes, pageSize: pageSize, inlineBytes: 0, withdrawalSequence: 1)
            // Then the push reads back as the withdrawal at sequence 1; the first answer carries the
            // complete list, the second a verdict and no list
            let list = WithdrawalList(sequence: 1, games: [Withdrawal(id: withdrawn)])
            #expect(push.withdrawals == list && push.withdrawalError == nil && push.patterns.isEmpty)
            #expect(missed?.withdrawals == list)
            #expect(holding?.withdrawals == nil && holding?.verdicts.count == 1)
        }
    }

    // MARK: - Failures

    @Test func aStoppedServerIsOffline() async throws {
        // Given a simulator that was running and has stopped
        let server = try await SimulatorFixture.start(in: directory)
        await server.simulator.stop()
        // When the upstream asks it
        let error = await #expect(throws: UpstreamError.self) {
            try await server.upstream().categories(edition: english, etag: nil)
        }
        // Then the error says offline, with the URLError behind it and no status
        #expect(error?.code == .offline)
        #expect(error?.status == nil)
        #expect(error?.cause is URLError)
    }

    @Test(arguments: [
        (500, UpstreamError.Code.server), (503, .server), (404, .client), (400, .client),
    ])
    func anErrorStatusMapsToItsCode(status: Int, code: UpstreamError.Code) async throws {
        try await withSimulator { server in
            // Given a provider that answers every request with `status`
            server.simulator.update { $0.faults = [.init(kind: .status, status: status)] }
            // When the upstream asks for the categories
            let error = await #expect(throws: UpstreamError.self) {
                try await server.upstream().categories(edition: english, etag: nil)
            }
            // Then the error has the code and the status
            #expect(error?.code == code)
            #expect(error?.status == status)
        }
    }

    @Test func rateLimitingIsReportedWithRetryAfter() async throws {
        try await withSimulator { server in
            // Given a provider that rate limits with Retry-After: 7
            server.simulator.update {
                $0.faults = [.init(kind: .status, status: 429)]
                $0.retryAfterSeconds = 7
            }
            // When the upstream asks for a page
            let error = await #expect(throws: UpstreamError.self) {
                try await server.upstream().gamesPage(
                    edition: english, categoryId: server.firstCategoryId, offset: 0, limit: 10, etag: nil)
            }
            // Then the error says rate limited, for 7 seconds
            #expect(error?.code == .rateLimited)
            #expect(error?.status == 429)
            #expect(error?.retryAfter == 7)
        }
    }

    @Test func aStalledBodyPastTheTimeoutTimesOut() async throws {
        try await withSimulator { server in
            // Given a provider that sends half the body, then nothing for 2 minutes, and a 1 s timeout
            server.simulator.update { $0.faults = [.init(kind: .stall, milliseconds: 120_000)] }
            let upstream = server.upstream(timeout: 1)
            // When the upstream asks
            let started = ContinuousClock.now
            let error = await #expect(throws: UpstreamError.self) {
                try await upstream.categories(edition: english, etag: nil)
            }
            // Then it gives up at the timeout, as timed out, long before the stall ends (a loose
            // bound: a busy machine must not be mistaken for a missing timeout)
            #expect(error?.code == .timedOut)
            #expect(ContinuousClock.now - started < .seconds(60))
        }
    }

    @Test func malformedJSONIsAnInvalidResponse() async throws {
        try await withSimulator { server in
            // Given a provider that answers 200 with JSON cut off and garbage after it
            server.simulator.update { $0.faults = [.init(kind: .malformed)] }
            // When the upstream asks for a page
            let error = await #expect(throws: UpstreamError.self) {
                try await server.upstream().gamesPage(
                    edition: english, categoryId: server.firstCategoryId, offset: 0, limit: 10, etag: nil)
            }
            // Then the error says invalid response, naming the decoding failure
            #expect(error?.code == .invalidResponse)
            #expect(error?.status == 200)
            #expect(error?.message.contains("JSON") == true)
        }
    }

    @Test func aBodyOverTheSizeCapIsAnInvalidResponse() async throws {
        try await withSimulator { server in
            // Given an upstream that accepts at most 256 bytes (a page is several KiB)
            let upstream = server.upstream(maxResponseBytes: 256)
            // When it asks for a page
            let error = await #expect(throws: UpstreamError.self) {
                try await upstream.gamesPage(
                    edition: english, categoryId: server.firstCategoryId, offset: 0, limit: 10, etag: nil)
            }
            // Then the answer is refused for its size
            #expect(error?.code == .invalidResponse)
            #expect(error?.message.contains("larger than 256 bytes") == true)
        }
    }

    // MARK: - Player routes

    @Test func theSimulatorAuthenticatesPlayerRoutesBySessionCookie() async throws {
        try await withSimulator { server in
            let (alice, bob) = ("alice", "bob")
            let request = PlayerRequest.favourites(player: alice, edition: english, offset: 0, limit: 10)
            // Without a cookie: 401
            let (_, response) = try await URLSession.shared.data(from: request.url(relativeTo: server.baseURL))
            #expect((response as? HTTPURLResponse)?.statusCode == 401)
            // With her own session: her list, as the player list's page
            let game = try #require(server.catalog.editions.first { $0.edition == english }?.pages.first?.items.first)
            server.simulator.setFavourites([game.id], for: alice)
            let signedIn = server.upstream()
            signedIn.signIn(player: alice, sessionId: server.simulator.openSession(for: alice))
            guard
                case .modified(let list, _) = try await signedIn.playerList(
                    .favourites, player: alice, edition: english, limit: 10, etag: nil)
            else {
                Issue.record("expected her list")
                return
            }
            #expect(list.items.map(\.id) == [game.id] && list.categoryId == PlayerList.favourites.categoryId)
            // With an expired session: 401, a refusal of the session
            let expired = server.upstream()
            expired.signIn(player: alice, sessionId: server.simulator.openSession(for: alice, lifetime: -1))
            let unauthorized = await #expect(throws: UpstreamError.self) {
                try await expired.playerList(.recentlyPlayed, player: alice, edition: english, limit: 10, etag: nil)
            }
            #expect(unauthorized?.code == .unauthorized && unauthorized?.status == 401)
            // With Bob's session for Alice's id: 403
            let upstream = server.upstream()
            upstream.signIn(player: alice, sessionId: server.simulator.openSession(for: bob))
            let forbidden = await #expect(throws: UpstreamError.self) {
                try await upstream.playerList(.favourites, player: alice, edition: english, limit: 10, etag: nil)
            }
            #expect(forbidden?.code == .unauthorized && forbidden?.status == 403)
            // Signed out: refused without a request
            upstream.signOut(player: alice)
            let before = server.simulator.statistics().totalRequests
            let signedOut = await #expect(throws: UpstreamError.self) {
                try await upstream.playerList(.recentlyPlayed, player: alice, edition: english, limit: 10, etag: nil)
            }
            #expect(signedOut?.code == .unauthorized && signedOut?.status == nil)
            #expect(server.simulator.statistics().totalRequests == before)
            // A game the edition lacks: 404, a refusal
            let unknown = PlayerMutation(
                kind: .removeFavourite, player: alice, edition: english, gameId: "no-such-game", createdAt: Date())
            var adding = unknown
            adding.kind = .addFavourite
            let missing = await #expect(throws: UpstreamError.self) {
                try await signedIn.send(adding, limit: 10)
            }
            #expect(missing?.code == .client && missing?.status == 404)
            // Removing what is not there is fine (idempotent), and answers the list
            #expect(try await signedIn.send(unknown, limit: 10).items.map(\.id) == [game.id])
            // The request builder and the simulator agree on escaped ids
            let hostile = PlayerRequest.addFavourite(player: "../x/\u{0}🎰", gameId: "a/b", edition: english, limit: 5)
            #expect(hostile.path == "/v1/player/%2E%2E%2Fx%2F%00%F0%9F%8E%B0/favorites/a%2Fb")
            let parsed = try PlayerRequest(
                method: "PUT", path: hostile.path,
                parameters: Dictionary(uniqueKeysWithValues: hostile.parameters.map { ($0.name, $0.value) }))
            #expect(parsed == hostile)
        }
    }

    // MARK: - With the cache

    @Test func theCacheFetchesRevalidatesUpdatesSurvivesOfflineAndRecoversOverHTTP() async throws {
        try await withSimulator { server in
            // Given a cache over the HTTP upstream, with no bundle, on a manual clock
            let clock = ManualClock()
            let cache = CatalogCache(
                configuration: .showingEveryGame, upstream: server.upstream(), cacheDirectory: directory.child("cache"),
                bundleDirectory: nil,
                clock: clock, logger: silentLogger)
            let updates = UpdateCollector(cache.updates())
            let categoryId = server.firstCategoryId
            let simulator = server.simulator

            // When the lobby opens: a miss fetches over HTTP
            let categories = try await cache.categories(edition: english)
            let page = try await cache.gamesPage(edition: english, categoryId: categoryId)
            // Then both come from the upstream, fresh, as the pipeline would have built them
            #expect(categories.metadata?.tier == .upstream)
            #expect(categories.value == server.bundledCategories)
            #expect(page.value?.items.map(\.id) == server.bundledPage(categoryId).items.map(\.id))
            #expect(simulator.statistics().count(status: 200) == 2)
            await updates.wait(for: 2)
            let updatesAfterMiss = updates.contentUpdates.count

            // When the time to live passes: the stale entries are served and revalidated with a 304
            clock.advance(by: .seconds(7 * 3600))
            guard case .stale = try await cache.categories(edition: english) else {
                Issue.record("expected stale categories after 7 h")
                return
            }
            _ = try await cache.gamesPage(edition: english, categoryId: categoryId)
            await cache.waitForRefreshes()
            // Then the server counted two 304s, the entries are fresh again from now, and no update came
            #expect(simulator.statistics().count(status: 304) == 2)
            guard case .fresh(_, let renewed) = cache.cachedCategories(edition: english) else {
                Issue.record("expected fresh categories after the 304")
                return
            }
            #expect(renewed.storedAt == clock.now)
            #expect(updates.contentUpdates.count == updatesAfterMiss)

            // When the provider changes its games and the time to live passes again
            simulator.update { $0.version = 2 }
            clock.advance(by: .seconds(7 * 3600))
            _ = try await cache.categories(edition: english)
            _ = try await cache.gamesPage(edition: english, categoryId: categoryId)
            await cache.waitForRefreshes()
            await updates.wait(for: updatesAfterMiss + 1)
            // Then exactly one update arrives: the page, every game renamed (categories did not change)
            let changed = Array(updates.contentUpdates.dropFirst(updatesAfterMiss))
            #expect(changed.count == 1)
            #expect(changed.first?.0 == .gamesPage(english, categoryId: categoryId, offset: 0))
            #expect(changed.first?.2.updated == page.value?.items.map(\.id))

            // When the provider goes away and the time to live passes
            let port = try #require(simulator.baseURL?.port)
            await simulator.stop()
            clock.advance(by: .seconds(7 * 3600))
            let offline = try await cache.categories(edition: english)
            await cache.waitForRefreshes()
            await updates.wait(for: updatesAfterMiss + 2)
            // Then the cached categories are still served, and the failure says offline
            guard case .stale(let served, _) = offline else {
                Issue.record("expected stale categories while offline, got \(offline)")
                return
            }
            #expect(served == categories.value)
            let failure = try #require(updates.failures.first)
            #expect((failure.1.cause as? UpstreamError)?.code == .offline)
            #expect(cache.statistics().refreshFailures == 1)

            // When the provider is back on the same port and the app says the network is back
            _ = try await simulator.start(port: port)
            let notModifiedBefore = simulator.statistics().count(status: 304)
            await cache.refreshStale()
            // Then the categories and the page are revalidated (two 304s) and fresh again
            guard case .fresh(_, let recovered) = cache.cachedCategories(edition: english) else {
                Issue.record("expected fresh categories after coming back")
                return
            }
            #expect(recovered.storedAt == clock.now)
            #expect(simulator.statistics().count(status: 304) == notModifiedBefore + 2)
        }
    }
}

extension ProviderHTTPUpstreamTests {
    func withSimulator(_ body: (SimulatorFixture) async throws -> Void) async throws {
        try await SimulatorFixture.run(in: directory, body)
    }
}
