@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

/// The scripted upstream behind a real cache: answers in order, failures, `304`, latency on the
/// injected clock, call counts, bulk validation and a player's favourites.
@Suite(.timeLimit(.minutes(1)))
struct ScriptedUpstreamTests {
    let edition = TestBundleTests.edition
    let clock = ManualClock()
    let directory: TemporaryDirectory
    let bundle: URL

    init() throws {
        directory = try TemporaryDirectory()
        var bundle = TestBundle(generatedAt: clock.now.addingTimeInterval(-86_400))
        bundle.add(TestBundleTests.lobby, edition: TestBundleTests.edition)
        bundle.add(TestBundleTests.slots, edition: TestBundleTests.edition)
        self.bundle = try bundle.write(to: directory.child("out"))
    }

    @Test func answersInOrderTheLastRepeatingAndCountsTheCalls() async throws {
        // Given categories answered once with content, then 304 for good
        let upstream = ScriptedUpstream(clock: clock)
        var renamed = TestBundleTests.lobby
        renamed.items[0].name = "Slots, renamed"
        upstream.script(.categories(edition), .content(.categories(renamed), etag: "v2"), .notModified)
        // When the upstream is asked three times
        let first = try await upstream.categories(edition: edition, etag: nil)
        let second = try await upstream.categories(edition: edition, etag: "v2")
        let third = try await upstream.categories(edition: edition, etag: "v2")
        // Then it answered in order, the last answer repeating, and kept every call
        guard case .modified(let list, "v2") = first, case .notModified = second, case .notModified = third else {
            Issue.record("unexpected answers: \(first), \(second), \(third)")
            return
        }
        #expect(list == renamed)
        #expect(upstream.calls(for: CacheKey(.categories(edition))) == 3)
        #expect(upstream.calls.map(\.etag) == [nil, "v2", "v2"])
    }

    @Test func aSlowAnswerWaitsForTheInjectedClockWhileTheBundleShows() async throws {
        // Given a page that takes 3 s to come, and a cache over the bundle
        let upstream = ScriptedUpstream(clock: clock)
        var fresh = TestBundleTests.slots
        fresh.items[0].name = "Fresh"
        upstream.script(
            .gamesPage(edition, categoryId: "SLOTS", offset: 0), .after(.seconds(3), .content(.gamesPage(fresh))))
        let cache = CatalogCache(upstream: upstream, cacheDirectory: nil, bundleDirectory: bundle, clock: clock)
        let updates = cache.updates(for: CacheKey(.gamesPage(edition, categoryId: "SLOTS", offset: 0)))
        // When the page is read: the bundle answers at once, and the refresh waits on the clock
        guard case .bundled = try await cache.gamesPage(edition: edition, categoryId: "SLOTS") else {
            Issue.record("expected the bundle first")
            return
        }
        // (two sleepers: the cache's upstream deadline, and the scripted latency)
        while clock.sleeperCount < 2 { try await Task.sleep(for: .milliseconds(1)) }
        clock.advance(by: .seconds(3))
        // Then the new page arrives as a silent update
        for await update in updates {
            if case .updated(.gamesPage(let page), _) = update.event {
                #expect(page.items[0].name == "Fresh")
                break
            }
        }
        #expect(upstream.calls.count == 1)
    }

    @Test func aFailureKeepsTheBundleAndBulkValidationIsScripted() async throws {
        // Given an offline provider (nothing scripted) that does answer bulk validation
        let upstream = ScriptedUpstream(clock: clock)
        upstream.scriptValidation { hashes in hashes.mapValues { _ in .current(etag: nil) } }
        let cache = CatalogCache(upstream: upstream, cacheDirectory: nil, bundleDirectory: bundle, clock: clock)
        // When the app reads, and synchronizes
        #expect(try await cache.categories(edition: edition).value == TestBundleTests.lobby)
        let report = await cache.synchronize()
        // Then the bundle stayed, and the validation went out once
        #expect(upstream.validationCalls == 1)
        #expect(report.requests == 1)
        #expect(cache.cachedCategories(edition: edition).value == TestBundleTests.lobby)
    }

    @Test func aFavouriteIsSentAndTheListAnswersWithIt() async throws {
        // Given a player with no favourites on the scripted provider
        let upstream = ScriptedUpstream(clock: clock)
        let player = "alice"
        let cache = CatalogCache(upstream: upstream, cacheDirectory: nil, bundleDirectory: bundle, clock: clock)
        let game = TestBundleTests.games[1]
        // When the player adds a favourite
        let outcome = try await cache.addFavourite(game, edition: edition, player: player)
        // Then it was sent once, applied, and the list the provider answers holds it
        guard case .applied(let list) = outcome else {
            Issue.record("expected the change applied, got \(outcome)")
            return
        }
        #expect(list.items.map(\.id) == [game.id])
        #expect(upstream.sentMutations.map(\.gameId) == [game.id])
        let fetched = try await upstream.playerList(.favourites, player: player, edition: edition, limit: 50, etag: nil)
        guard case .modified(let page, _) = fetched else {
            Issue.record("expected the list")
            return
        }
        #expect(page.items.map(\.id) == [game.id])
    }
}
