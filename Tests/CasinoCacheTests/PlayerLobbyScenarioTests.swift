@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

/// The player's lobby, end to end, for the player's own lobby rows: a scripted provider that
/// knows the players' lists and applies their changes, a real cache directory, an injected clock.
@Suite(.timeLimit(.minutes(5)))
struct PlayerLobbyScenarioTests {
    let fixture: PlayerFixture

    init() throws {
        fixture = try PlayerFixture()
    }

    @Test func openLobbySwitchAwayAndReturnServesThePlayerRowsFromMemoryAtOnce() async throws {
        // Given a player who played three games and favourited one, and a lobby that showed both rows
        let alice = PlayerFixture.alice
        fixture.script(.recentlyPlayed, of: alice, fixture.games[0..<3])
        fixture.script(.favourites, of: alice, [fixture.games[5]])
        let cache = fixture.makeCache()
        let played = try await cache.playerList(.recentlyPlayed, edition: english, player: alice)
        let favourites = try await cache.playerList(.favourites, edition: english, player: alice)
        #expect(played.value?.ids == fixture.games[0..<3].map(\.id))
        #expect(favourites.value?.ids == [fixture.games[5].id])
        // When the player switches to another tab for 10 minutes and returns
        _ = try await cache.categories(edition: english)
        fixture.clock.advance(by: .seconds(600))
        let requestsBefore = fixture.upstream.calls.count
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
        #expect(fixture.upstream.calls.count == requestsBefore)
    }

    @Test func pastFortyFiveMinutesAFreshFetchAndNoStaleRowsServedAsFresh() async throws {
        // Given recently played rows cached 46 minutes ago, and the player played another game since
        let alice = PlayerFixture.alice
        let key = CacheKey.playerList(.recentlyPlayed, edition: english, player: alice)
        fixture.script(.recentlyPlayed, of: alice, [fixture.games[0]])
        let cache = fixture.makeCache()
        _ = try await cache.playerList(.recentlyPlayed, edition: english, player: alice)
        fixture.script(.recentlyPlayed, of: alice, [fixture.games[1], fixture.games[0]])
        fixture.clock.advance(by: .seconds(46 * 60))
        let requestsBefore = fixture.upstream.calls(for: key)
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
        #expect(fixture.upstream.calls(for: key) == requestsBefore + 1)
        // And 44 minutes later it is still fresh, from memory
        fixture.clock.advance(by: .seconds(44 * 60))
        #expect(cache.cachedPlayerList(.recentlyPlayed, edition: english, player: alice).state == .fresh)
    }

    @Test func favouritingShowsAtOnceAndAServerFailureRollsBackExactlyAndIsReported() async throws {
        // Given favourites on screen, and a server that fails the next change after 300 ms
        let alice = PlayerFixture.alice
        fixture.script(.favourites, of: alice, [fixture.games[1]])
        let cache = fixture.makeCache()
        _ = try await cache.playerList(.favourites, edition: english, player: alice)
        let key = CacheKey.playerList(.favourites, edition: english, player: alice)
        let before = try #require(cache.memory.entry(for: key))
        fixture.upstream.scriptMutations(
            .after(.milliseconds(300), .failure(UpstreamError(.server, "internal server error", status: 500))))
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
        #expect(cache.pendingMutations(player: alice).count == 1 && cache.mutationStatistics().rejected == 0)
        // And when the server fails it, the call throws, the list is exactly as before, and
        // the stream holds one update, one update back, one failure
        await eventually { fixture.upstream.sentMutations.count == 1 }
        await fixture.advance(by: .milliseconds(300), onceWaiting: 2)
        let error = await #expect(throws: CacheError.self) { try await change.value }
        #expect(error?.code == .mutationRejected)
        #expect((error?.cause as? UpstreamError)?.status == 500)
        var undone = try #require(cache.memory.entry(for: key))
        undone.storedAt = before.storedAt  // the list is fetched again after an undo, 300 ms later
        #expect(undone == before)
        await updates.wait(for: 3)
        let contents = updates.contentUpdates.map { $0.1.ids }
        #expect(contents == [[game.id, fixture.games[1].id], [fixture.games[1].id]])
        #expect(updates.contentUpdates.first?.2.inserted == [game.id])
        #expect(updates.mutationFailures.map(\.0.gameId) == [game.id])
        #expect(updates.updates.count == 3)
        #expect(cache.mutationStatistics().rejected == 1)
        #expect(try await fixture.serverList(.favourites, of: alice).ids == [fixture.games[1].id])
    }

    /// The refresh's answer lands while the change is in flight (it is rebased under the change),
    /// or after the change's answer (it is older than that answer, and dropped).
    @Test(arguments: [(refreshHeldFor: 600, changeHeldFor: 1500), (refreshHeldFor: 1500, changeHeldFor: 0)])
    func favouritingWhileARefreshIsInFlightIsNotUndoneByTheRefresh(refreshHeldFor: Int, changeHeldFor: Int) async throws
    {
        // Given expired favourites, a refresh the server holds (its body is the list before the
        // change), and a change the server may hold too
        let alice = PlayerFixture.alice
        let game = fixture.games[9]
        let key = CacheKey.playerList(.favourites, edition: english, player: alice)
        let listBefore = PlayerFixture.page(.favourites, [fixture.games[1]])
        let listAfter = PlayerFixture.page(.favourites, [game, fixture.games[1]])
        fixture.upstream.script(
            key, .content(.gamesPage(listBefore)),
            .after(.milliseconds(refreshHeldFor), .content(.gamesPage(listBefore))), .content(.gamesPage(listAfter)))
        fixture.upstream.scriptMutations(.after(.milliseconds(changeHeldFor), .content(.gamesPage(listAfter))))
        let cache = fixture.makeCache()
        _ = try await cache.playerList(.favourites, edition: english, player: alice)
        fixture.clock.advance(by: .seconds(46 * 60))
        let updates = UpdateCollector(cache.updates(for: key))
        let refresh = Task { try await cache.playerList(.favourites, edition: english, player: alice) }
        await eventually { fixture.upstream.calls(for: key) == 2 }
        // When the player favourites a game while that refresh is in flight
        let change = Task { try await cache.addFavourite(game, edition: english, player: alice) }
        await eventually { fixture.upstream.sentMutations.count == 1 }
        // (the server answers both, in the order it holds them: each answer still held, and the
        // cache's deadline for it, waits on the clock)
        let held = [(refreshHeldFor, isRefresh: true), (changeHeldFor, isRefresh: false)].sorted { $0.0 < $1.0 }
        var outcome: MutationOutcome?
        var elapsed = 0
        for (index, (heldFor, isRefresh)) in held.enumerated() {
            let waiting = 2 * held[index...].filter { $0.0 > elapsed }.count
            await fixture.advance(by: .milliseconds(heldFor - elapsed), onceWaiting: waiting)
            elapsed = heldFor
            if isRefresh { _ = try await refresh.value } else { outcome = try await change.value }
        }
        await cache.waitForRefreshes()
        // Then no update ever showed the list without the game after the change, and the
        // final list is the server's
        guard case .applied(let server)? = outcome else {
            Issue.record("expected the change applied, got \(String(describing: outcome))")
            return
        }
        #expect(server.ids == [game.id, fixture.games[1].id])
        let shown = updates.contentUpdates.map { $0.1.ids }
        #expect(shown.first == [game.id, fixture.games[1].id])
        #expect(shown.allSatisfy { $0.first == game.id })
        #expect(cache.cachedPlayerList(.favourites, edition: english, player: alice).value?.ids == server.ids)
        #expect(try await fixture.serverList(.favourites, of: alice).ids == server.ids)
    }

    @Test func favouritingOfflineThenKillingTheAppAndRelaunchingOnlineSendsItOnceAndMatchesTheServer() async throws {
        // Given favourites cached while online
        let alice = PlayerFixture.alice
        fixture.script(.favourites, of: alice, [fixture.games[1]])
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
        #expect(fixture.upstream.sentMutations.isEmpty)
        // And the app relaunches online: the first frame, then the sync that follows it
        let relaunched = fixture.makeCache()
        let firstFrame = relaunched.cachedPlayerList(.favourites, edition: english, player: alice)
        #expect(firstFrame.value?.ids.first == game.id)  // still shown, from the queue and the disk
        _ = try await relaunched.playerList(.favourites, edition: english, player: alice)
        #expect(fixture.upstream.sentMutations.isEmpty)  // reads send nothing
        await relaunched.synchronize()
        // Then, when that returns, the change was sent once and its queue file is gone (nothing flushed)
        #expect(fixture.upstream.sentMutations.map(\.gameId) == [game.id])
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

    @Test func readingQueuedChangesAfterARelaunchOfflineSendsNothingUntilAsked() async throws {
        // Given a change made offline, and the app killed
        let alice = PlayerFixture.alice
        let game = fixture.games[4]
        do {
            let offline = fixture.makeCache(upstream: fixture.offlineUpstream())
            #expect(try await offline.addFavourite(game, edition: english, player: alice) == .queued)
            await offline.flush()
        }
        // When the app relaunches offline and only reads: the queue, and the first frame
        let offline = fixture.offlineUpstream()
        let relaunched = fixture.makeCache(upstream: offline)
        #expect(relaunched.pendingMutations(player: alice).map(\.gameId) == [game.id])
        #expect(relaunched.cachedPlayerList(.favourites, edition: english, player: alice).value?.ids.first == game.id)
        try await Task.sleep(for: .milliseconds(300))  // room for a send attempt that should not happen
        // Then the reads answered what is queued and made no send attempt
        #expect(relaunched.mutationStatistics().deferredSends == 0)
        #expect(offline.sentMutations.isEmpty)
        #expect(relaunched.pendingMutations(player: alice).count == 1)
        // And an explicit call does try (and keeps the change queued, being offline)
        await relaunched.sendPendingMutations()
        #expect(relaunched.mutationStatistics().deferredSends == 1)
        #expect(offline.sentMutations.map(\.gameId) == [game.id])
        #expect(relaunched.pendingMutations(player: alice).count == 1)
    }

    @Test func anotherPlayersSessionSeesNoneOfTheFirstPlayersRows() async throws {
        // Given Alice's rows cached on the device
        let (alice, bob) = (PlayerFixture.alice, PlayerFixture.bob)
        fixture.script(.recentlyPlayed, of: alice, fixture.games[0..<3])
        fixture.script(.favourites, of: alice, [fixture.games[3]])
        fixture.script(.recentlyPlayed, of: bob, [fixture.games[10]])
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
        #expect(fixture.upstream.sentMutations.allSatisfy { $0.player == alice })
        #expect(try await fixture.serverList(.favourites, of: bob).ids.isEmpty)
    }

    @Test func logoutLeavesNothingOfThePlayerInMemoryOrOnDisk() async throws {
        // Given Bob's row on disk, then Alice's rows cached and persisted, and a change of hers queued offline
        let (alice, bob) = (PlayerFixture.alice, PlayerFixture.bob)
        fixture.script(.recentlyPlayed, of: alice, fixture.games[0..<3])
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

    @Test func aFetchInFlightAtLogoutStoresNothing() async throws {
        // Given a read of Alice's favourites that the server holds for 500 ms
        let alice = PlayerFixture.alice
        let key = CacheKey.playerList(.favourites, edition: english, player: alice)
        fixture.upstream.script(
            key, .after(.milliseconds(500), .content(.gamesPage(PlayerFixture.page(.favourites, [fixture.games[1]])))))
        let cache = fixture.makeCache()
        let read = Task { try await cache.playerList(.favourites, edition: english, player: alice) }
        await eventually { fixture.upstream.calls(for: key) == 1 }
        // When she logs out while it is in flight
        await cache.clear(scope: .user(alice))
        await fixture.advance(by: .milliseconds(500), onceWaiting: 2)
        _ = try await read.value
        await cache.flush()
        // Then its answer was stored nowhere
        #expect(cache.memory.entries(in: .user(alice)).isEmpty)
        #expect(fixture.filesOnDisk().isEmpty)
    }

    @Test func aHeldUpdateIsAnnouncedAsNewGamesAvailableThenAppliedOnRequest() async throws {
        // Given a lobby that holds recently played refreshes, and the row on screen
        let alice = PlayerFixture.alice
        let games = fixture.games
        let ids = games.map(\.id)
        fixture.script(.recentlyPlayed, of: alice, [games[0], games[1], games[2]])
        let cache = fixture.makeCache { $0.heldUpdates = HeldUpdates(kinds: [.recentlyPlayed]) }
        let shown = try await cache.playerList(.recentlyPlayed, edition: english, player: alice)
        let key = CacheKey.playerList(.recentlyPlayed, edition: english, player: alice)
        // When the player played two games on another device, and the row is refreshed
        fixture.script(.recentlyPlayed, of: alice, [games[5], games[6], games[0], games[1]])
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
