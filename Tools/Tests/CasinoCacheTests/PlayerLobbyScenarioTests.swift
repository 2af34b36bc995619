@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogServer
import Foundation
import Testing

/// The player's lobby, end to end, for the player's own lobby rows: the simulator over
/// loopback HTTP with sessions, the app's HTTP upstream, a real cache directory, an injected clock.
@Suite(.timeLimit(.minutes(5)))
struct PlayerLobbyScenarioTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test func openLobbySwitchAwayAndReturnServesThePlayerRowsFromMemoryAtOnce() async throws {
        try await PlayerFixture.run(in: directory) { fixture in
            // Given a player who played three games and favourited one, and a lobby that showed both rows
            let alice = PlayerFixture.alice
            fixture.simulator.setLastPlayed(fixture.games[0..<3].map(\.id), for: alice)
            fixture.simulator.setFavourites([fixture.games[5].id], for: alice)
            let cache = fixture.makeCache()
            let played = try await cache.playerList(.recentlyPlayed, edition: english, player: alice)
            let favourites = try await cache.playerList(.favourites, edition: english, player: alice)
            #expect(played.value?.ids == fixture.games[0..<3].map(\.id))
            #expect(favourites.value?.ids == [fixture.games[5].id])
            // When the player switches to another tab for 10 minutes and returns
            _ = try await cache.categories(edition: english)
            fixture.clock.advance(by: .seconds(600))
            fixture.simulator.resetStatistics()
            let firstFrame = cache.cachedPlayerList(.recentlyPlayed, edition: english, player: alice)
            let again = try await cache.playerList(.favourites, edition: english, player: alice)
            // Then both rows come from memory, fresh, without a request
            guard case .fresh(let rows, let metadata) = firstFrame,
                case .fresh(let favouriteRows, let favouriteMetadata) = again
            else {
                Issue.record("expected fresh answers, got \(firstFrame.state) and \(again.state)")
                return
            }
            #expect(rows == played.value)
            #expect(favouriteRows == favourites.value)
            #expect(metadata.tier == .memory && favouriteMetadata.tier == .memory)
            #expect(fixture.simulator.statistics().totalRequests == 0)
        }
    }

    @Test func pastFortyFiveMinutesAFreshFetchAndNoStaleRowsServedAsFresh() async throws {
        try await PlayerFixture.run(in: directory) { fixture in
            // Given recently played rows cached 46 minutes ago, and the player played another game since
            let alice = PlayerFixture.alice
            fixture.simulator.setLastPlayed([fixture.games[0].id], for: alice)
            let cache = fixture.makeCache()
            _ = try await cache.playerList(.recentlyPlayed, edition: english, player: alice)
            fixture.simulator.setLastPlayed([fixture.games[1].id, fixture.games[0].id], for: alice)
            fixture.clock.advance(by: .seconds(46 * 60))
            fixture.simulator.resetStatistics()
            // When the lobby draws its first frame, then reads the row
            let firstFrame = cache.cachedPlayerList(.recentlyPlayed, edition: english, player: alice)
            let answer = try await cache.playerList(.recentlyPlayed, edition: english, player: alice)
            // Then the first frame says stale (not fresh), and the read waited for a fresh fetch
            #expect(firstFrame.state == .stale)
            guard case .fresh(let rows, let metadata) = answer else {
                Issue.record("expected a fresh fetch, got \(answer.state)")
                return
            }
            #expect(metadata.tier == .upstream)
            #expect(rows.ids == [fixture.games[1].id, fixture.games[0].id])
            #expect(fixture.requests(PlayerFixture.getLastPlayed) == 1)
            // And 44 minutes later it is still fresh, from memory
            fixture.clock.advance(by: .seconds(44 * 60))
            #expect(cache.cachedPlayerList(.recentlyPlayed, edition: english, player: alice).state == .fresh)
        }
    }

    @Test func favouritingShowsAtOnceAndAServerFailureRollsBackExactlyAndIsReported() async throws {
        try await PlayerFixture.run(in: directory) { fixture in
            // Given favourites on screen, and a server that fails the next change after 300 ms
            let alice = PlayerFixture.alice
            fixture.simulator.setFavourites([fixture.games[1].id], for: alice)
            let cache = fixture.makeCache()
            _ = try await cache.playerList(.favourites, edition: english, player: alice)
            let key = CacheKey.playerList(.favourites, edition: english, player: alice)
            let before = try #require(cache.memory.entry(for: key))
            fixture.simulator.update {
                $0.latencyMilliseconds = [300]
                $0.faults = [.init(kind: .status, path: "/favorites/", count: 1, status: 500)]
            }
            let updates = UpdateCollector(cache.updates(for: key))
            // When the player favourites a game
            let game = fixture.games[7]
            let change = Task { try await cache.addFavourite(game, edition: english, player: alice) }
            // Then the list shows it at once, before the server has answered
            await eventually {
                cache.cachedPlayerList(.favourites, edition: english, player: alice).value?.ids.first == game.id
            }
            #expect(
                cache.cachedPlayerList(.favourites, edition: english, player: alice).value?.ids == [
                    game.id, fixture.games[1].id,
                ])
            #expect(fixture.requests(PlayerFixture.put) == 0)
            // And when the server fails it, the call throws, the list is exactly as before, and
            // the stream holds one update, one update back, one failure
            let error = await #expect(throws: CacheError.self) { try await change.value }
            #expect(error?.code == .mutationRejected)
            #expect((error?.cause as? UpstreamError)?.status == 500)
            #expect(cache.memory.entry(for: key) == before)
            await updates.wait(for: 3)
            let contents = updates.contentUpdates.map { pageIDs($0.1) }
            #expect(contents == [[game.id, fixture.games[1].id], [fixture.games[1].id]])
            #expect(updates.contentUpdates.first?.2.inserted == [game.id])
            #expect(updates.mutationFailures.map(\.0.gameId) == [game.id])
            #expect(updates.updates.count == 3)
            #expect(cache.mutationStatistics().rejected == 1)
            #expect(fixture.simulator.favourites(of: alice) == [fixture.games[1].id])
        }
    }

    /// The refresh's answer lands while the change is in flight (it is rebased under the change),
    /// or after the change's answer (it is older than that answer, and dropped).
    @Test(arguments: [(refreshHeldFor: 600, changeHeldFor: 1500), (refreshHeldFor: 1500, changeHeldFor: 0)])
    func favouritingWhileARefreshIsInFlightIsNotUndoneByTheRefresh(refreshHeldFor: Int, changeHeldFor: Int) async throws
    {
        try await PlayerFixture.run(in: directory) { fixture in
            // Given expired favourites, a refresh the server holds (its body is the list before the
            // change), and a change the server may hold too
            let alice = PlayerFixture.alice
            fixture.simulator.setFavourites([fixture.games[1].id], for: alice)
            let cache = fixture.makeCache()
            _ = try await cache.playerList(.favourites, edition: english, player: alice)
            fixture.clock.advance(by: .seconds(46 * 60))
            fixture.simulator.update {
                $0.faults = [
                    .init(
                        kind: .stall, path: "/favorites/", count: changeHeldFor > 0 ? 1 : 0, milliseconds: changeHeldFor
                    ),
                    .init(kind: .stall, path: "/favorites", count: 1, milliseconds: refreshHeldFor),
                ]
            }
            let key = CacheKey.playerList(.favourites, edition: english, player: alice)
            let updates = UpdateCollector(cache.updates(for: key))
            let refresh = Task { try await cache.playerList(.favourites, edition: english, player: alice) }
            await eventually { fixture.requests(PlayerFixture.getFavourites) == 2 }
            // When the player favourites a game while that refresh is in flight
            let game = fixture.games[9]
            let outcome = try await cache.addFavourite(game, edition: english, player: alice)
            _ = try await refresh.value
            await cache.waitForRefreshes()
            // Then no update ever showed the list without the game after the change, and the
            // final list is the server's
            guard case .applied(let server) = outcome else {
                Issue.record("expected the change applied, got \(outcome)")
                return
            }
            #expect(server.ids == [game.id, fixture.games[1].id])
            let shown = updates.contentUpdates.map { pageIDs($0.1) }
            #expect(shown.first == [game.id, fixture.games[1].id])
            #expect(shown.allSatisfy { $0.first == game.id })
            #expect(cache.cachedPlayerList(.favourites, edition: english, player: alice).value?.ids == server.ids)
            #expect(try await fixture.serverList(.favourites, of: alice).ids == server.ids)
        }
    }

    @Test func favouritingOfflineThenKillingTheAppAndRelaunchingOnlineSendsItOnceAndMatchesTheServer() async throws {
        try await PlayerFixture.run(in: directory) { fixture in
            // Given favourites cached while online
            let alice = PlayerFixture.alice
            fixture.simulator.setFavourites([fixture.games[1].id], for: alice)
            do {
                let online = fixture.makeCache()
                _ = try await online.playerList(.favourites, edition: english, player: alice)
                await online.flush()
            }
            // When the player favourites a game offline, and the app is killed (nothing flushed)
            let game = fixture.games[4]
            do {
                let offline = fixture.makeCache(upstream: fixture.offlineUpstream())
                let outcome = try await offline.addFavourite(game, edition: english, player: alice)
                #expect(outcome == .queued)
                #expect(
                    offline.cachedPlayerList(.favourites, edition: english, player: alice).value?.ids == [
                        game.id, fixture.games[1].id,
                    ])
            }
            #expect(fixture.requests(PlayerFixture.put) == 0)
            // And the app relaunches online: the first frame, then the sync that follows it
            let relaunched = fixture.makeCache()
            let firstFrame = relaunched.cachedPlayerList(.favourites, edition: english, player: alice)
            #expect(firstFrame.value?.ids.first == game.id)  // still shown, from the queue and the disk
            _ = try await relaunched.playerList(.favourites, edition: english, player: alice)
            #expect(fixture.requests(PlayerFixture.put) == 0)  // reads send nothing
            await relaunched.synchronize()
            // Then, when that returns, the change was sent once and its queue file is gone (nothing flushed)
            #expect(fixture.requests(PlayerFixture.put) == 1)
            #expect(
                !FileManager.default.fileExists(
                    atPath: fixture.queueDirectory.appendingPathComponent(PlayerMutationQueueFile.fileName(for: alice))
                        .path))
            await relaunched.waitUntilSent(alice)
            // And the list matches the server's
            let server = try await fixture.serverList(.favourites, of: alice)
            #expect(server.ids == [game.id, fixture.games[1].id])
            #expect(relaunched.cachedPlayerList(.favourites, edition: english, player: alice).value == server)
        }
    }

    @Test func readingQueuedChangesAfterARelaunchOfflineSendsNothingUntilAsked() async throws {
        try await PlayerFixture.run(in: directory) { fixture in
            // Given a change made offline, and the app killed
            let alice = PlayerFixture.alice
            let game = fixture.games[4]
            do {
                let offline = fixture.makeCache(upstream: fixture.offlineUpstream())
                #expect(try await offline.addFavourite(game, edition: english, player: alice) == .queued)
                await offline.flush()
            }
            // When the app relaunches offline and only reads: the queue, and the first frame
            let relaunched = fixture.makeCache(upstream: fixture.offlineUpstream())
            #expect(relaunched.pendingMutations(player: alice).map(\.gameId) == [game.id])
            #expect(
                relaunched.cachedPlayerList(.favourites, edition: english, player: alice).value?.ids.first == game.id)
            try await Task.sleep(for: .milliseconds(300))
            // Then the reads answered what is queued and made no send attempt
            #expect(relaunched.mutationStatistics().deferredSends == 0)
            #expect(relaunched.pendingMutations(player: alice).count == 1)
            // And an explicit call does try (and keeps the change queued, being offline)
            await relaunched.sendPendingMutations()
            #expect(relaunched.mutationStatistics().deferredSends == 1)
            #expect(relaunched.pendingMutations(player: alice).count == 1)
        }
    }

    @Test func anotherPlayersSessionSeesNoneOfTheFirstPlayersRows() async throws {
        try await PlayerFixture.run(in: directory) { fixture in
            // Given Alice's rows cached on the device
            let (alice, bob) = (PlayerFixture.alice, PlayerFixture.bob)
            fixture.simulator.setLastPlayed(fixture.games[0..<3].map(\.id), for: alice)
            fixture.simulator.setFavourites([fixture.games[3].id], for: alice)
            fixture.simulator.setLastPlayed([fixture.games[10].id], for: bob)
            let cache = fixture.makeCache()
            _ = try await cache.playerList(.recentlyPlayed, edition: english, player: alice)
            _ = try await cache.playerList(.favourites, edition: english, player: alice)
            try await cache.addFavourite(fixture.games[8], edition: english, player: alice)
            await cache.flush()
            // When Bob signs in on the same device
            let firstFrame = cache.cachedPlayerList(.recentlyPlayed, edition: english, player: bob)
            let played = try await cache.playerList(.recentlyPlayed, edition: english, player: bob)
            let favourites = try await cache.playerList(.favourites, edition: english, player: bob)
            // Then Bob's first frame is empty, and his rows are his own only
            #expect(firstFrame.state == .miss)
            #expect(played.value?.ids == [fixture.games[10].id])
            #expect(favourites.value?.ids == [])
            let aliceIDs = Set(fixture.games[0..<4].map(\.id) + [fixture.games[8].id])
            let bobEntries = cache.memory.entries(in: .user(bob))
            #expect(bobEntries.count == 2)
            #expect(bobEntries.allSatisfy { Set($0.content.ids).isDisjoint(with: aliceIDs) })
            #expect(cache.pendingMutations(player: bob).isEmpty)
            #expect(fixture.simulator.favourites(of: bob).isEmpty)
        }
    }

    @Test func logoutLeavesNothingOfThePlayerInMemoryOrOnDisk() async throws {
        try await PlayerFixture.run(in: directory) { fixture in
            // Given Bob's row on disk, then Alice's rows cached and persisted, and a change of hers queued offline
            let (alice, bob) = (PlayerFixture.alice, PlayerFixture.bob)
            fixture.simulator.setLastPlayed(fixture.games[0..<3].map(\.id), for: alice)
            let online = fixture.makeCache()
            _ = try await online.playerList(.recentlyPlayed, edition: english, player: bob)
            await online.flush()
            let bobsFiles = fixture.filesOnDisk()
            _ = try await online.playerList(.recentlyPlayed, edition: english, player: alice)
            _ = try await online.playerList(.favourites, edition: english, player: alice)
            await online.flush()
            let cache = fixture.makeCache(upstream: fixture.offlineUpstream())
            #expect(try await cache.addFavourite(fixture.games[2], edition: english, player: alice) == .queued)
            await cache.flush()
            #expect(bobsFiles.count == 1)
            #expect(fixture.filesOnDisk().count == 4)  // Bob's row, Alice's two rows and her queue
            // When Alice logs out
            await cache.clear(scope: .user(alice))
            // Then nothing of hers is left in memory or on disk; Bob's row stays
            #expect(cache.memory.entries(in: .user(alice)).isEmpty)
            #expect(cache.pendingMutations(player: alice).isEmpty)
            #expect(cache.cachedPlayerList(.favourites, edition: english, player: alice).state == .miss)
            #expect(fixture.filesOnDisk() == bobsFiles)
            #expect(cache.cachedPlayerList(.recentlyPlayed, edition: english, player: bob).value?.ids == [])
        }
    }

    @Test func aFetchInFlightAtLogoutStoresNothing() async throws {
        try await PlayerFixture.run(in: directory) { fixture in
            // Given a read of Alice's favourites that the server holds for 500 ms
            let alice = PlayerFixture.alice
            fixture.simulator.setFavourites([fixture.games[1].id], for: alice)
            fixture.simulator.update {
                $0.faults = [.init(kind: .stall, path: "/favorites", count: 1, milliseconds: 500)]
            }
            let cache = fixture.makeCache()
            let read = Task { try await cache.playerList(.favourites, edition: english, player: alice) }
            await eventually { fixture.requests(PlayerFixture.getFavourites) == 1 }
            // When she logs out while it is in flight
            await cache.clear(scope: .user(alice))
            _ = try await read.value
            await cache.flush()
            // Then its answer was stored nowhere
            #expect(cache.memory.entries(in: .user(alice)).isEmpty)
            #expect(fixture.filesOnDisk().isEmpty)
        }
    }

    @Test func aHeldUpdateIsAnnouncedAsNewGamesAvailableThenAppliedOnRequest() async throws {
        try await PlayerFixture.run(in: directory) { fixture in
            // Given a lobby that holds recently played refreshes, and the row on screen
            let alice = PlayerFixture.alice
            let ids = fixture.games.map(\.id)
            fixture.simulator.setLastPlayed([ids[0], ids[1], ids[2]], for: alice)
            let cache = fixture.makeCache { $0.heldUpdates = HeldUpdates(kinds: [.recentlyPlayed]) }
            let shown = try await cache.playerList(.recentlyPlayed, edition: english, player: alice)
            let key = CacheKey.playerList(.recentlyPlayed, edition: english, player: alice)
            // When the player played two games on another device, and the row is refreshed
            fixture.simulator.setLastPlayed([ids[5], ids[6], ids[0], ids[1]], for: alice)
            fixture.clock.advance(by: .seconds(46 * 60))
            let updates = UpdateCollector(cache.updates(for: key))
            let answer = try await cache.playerList(.recentlyPlayed, edition: english, player: alice)
            // Then what is on screen stays, and "new games available" says what changed
            #expect(answer.value == shown.value)
            await updates.wait(for: 1)
            #expect(updates.pendingUpdates.count == 1)
            let changes = try #require(updates.pendingUpdates.first)
            #expect(changes.inserted == [ids[5], ids[6]])
            #expect(changes.removed == [ids[2]])
            #expect(cache.pendingUpdate(for: key) == changes)
            #expect(updates.contentUpdates.isEmpty)
            // When the player taps the banner
            #expect(cache.applyPendingUpdate(for: key))
            await updates.wait(for: 2)
            // Then the new row shows, and one update announced it
            #expect(
                cache.cachedPlayerList(.recentlyPlayed, edition: english, player: alice).value?.ids == [
                    ids[5], ids[6], ids[0], ids[1],
                ])
            #expect(updates.contentUpdates.count == 1)
            #expect(cache.pendingUpdate(for: key) == nil)
            #expect(!cache.applyPendingUpdate(for: key))
        }
    }
}
