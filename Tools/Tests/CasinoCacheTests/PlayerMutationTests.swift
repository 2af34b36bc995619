@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogServer
import Foundation
@_spi(CatalogTools) import ProviderAPI
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Player mutations beyond the checklist: order, timeouts, the simulator's player routes, held
/// catalogue refreshes and the memory-warning trim.
@Suite(.timeLimit(.minutes(5)))
struct PlayerMutationTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test func severalChangesInFlightApplyInOrderAndSettleOnTheServersList() async throws {
        try await PlayerFixture.run(in: directory) { fixture in
            // Given a slow server (300 ms per answer) and an empty favourites row
            let alice = PlayerFixture.alice
            let cache = fixture.makeCache()
            _ = try await cache.playerList(.favourites, edition: english, player: alice)
            fixture.simulator.update { $0.latencyMilliseconds = [300] }
            let (first, second, third) = (fixture.games[1], fixture.games[2], fixture.games[3])
            // When the player adds three favourites and removes the first, each before the last is answered
            var tasks: [Task<MutationOutcome, any Error>] = []
            tasks.append(Task { try await cache.addFavourite(first, edition: english, player: alice) })
            await eventually { cache.pendingMutations(player: alice).count == 1 }
            tasks.append(Task { try await cache.addFavourite(second, edition: english, player: alice) })
            await eventually { cache.pendingMutations(player: alice).count == 2 }
            tasks.append(Task { try await cache.addFavourite(third, edition: english, player: alice) })
            await eventually { cache.pendingMutations(player: alice).count == 3 }
            tasks.append(Task { try await cache.removeFavourite(gameId: first.id, edition: english, player: alice) })
            await eventually { cache.pendingMutations(player: alice).count == 4 }
            // Then all four show at once, in order
            #expect(
                cache.cachedPlayerList(.favourites, edition: english, player: alice).value?.ids == [
                    third.id, second.id,
                ])
            #expect(fixture.requests(PlayerFixture.put) <= 1)
            for task in tasks { _ = try await task.value }
            // And the server applied them in order, and the row equals its list
            #expect(fixture.requests(PlayerFixture.put) == 3 && fixture.requests(PlayerFixture.delete) == 1)
            #expect(fixture.simulator.favourites(of: alice) == [third.id, second.id])
            fixture.simulator.update { $0.latencyMilliseconds = [0] }
            #expect(
                cache.cachedPlayerList(.favourites, edition: english, player: alice).value
                    == (try await fixture.serverList(.favourites, of: alice)))
            #expect(cache.mutationStatistics().applied == 4)
        }
    }

    @Test func aChangeThatTimesOutStaysQueuedAndIsSentAgainSafely() async throws {
        try await PlayerFixture.run(in: directory) { fixture in
            // Given a server that applies the change but holds its answer past the upstream's 30 s
            // timeout (long enough that a busy machine's slowness is never mistaken for it)
            let alice = PlayerFixture.alice
            let cache = fixture.makeCache(
                upstream: {
                    let upstream = fixture.server.upstream(timeout: 30)
                    upstream.signIn(player: alice, sessionId: fixture.simulator.openSession(for: alice))
                    return upstream
                }())
            fixture.simulator.update {
                $0.faults = [.init(kind: .stall, path: "/favorites/", count: 1, milliseconds: 120_000)]
            }
            let game = fixture.games[6]
            // When the player favourites a game
            let outcome = try await cache.addFavourite(game, edition: english, player: alice)
            // Then it stays shown and queued
            #expect(outcome == .queued)
            #expect(cache.pendingMutations(player: alice).map(\.gameId) == [game.id])
            #expect(cache.cachedPlayerList(.favourites, edition: english, player: alice).value?.ids == [game.id])
            // When the app learns the network is back
            await cache.sendPendingMutations()
            // Then it is sent again (idempotent): the server holds it once, and the row is the server's
            #expect(cache.pendingMutations(player: alice).isEmpty)
            #expect(fixture.requests(PlayerFixture.put) == 2)
            #expect(fixture.simulator.favourites(of: alice) == [game.id])
            #expect(cache.cachedPlayerList(.favourites, edition: english, player: alice).value?.ids == [game.id])
        }
    }

    @Test func theSimulatorAuthenticatesPlayerRoutesBySessionCookie() async throws {
        try await PlayerFixture.run(in: directory) { fixture in
            let (alice, bob) = (PlayerFixture.alice, PlayerFixture.bob)
            let request = PlayerRequest.favourites(player: alice, edition: english, offset: 0, limit: 10)
            // Without a cookie: 401
            let (_, response) = try await URLSession.shared.data(from: request.url(relativeTo: fixture.server.baseURL))
            #expect((response as? HTTPURLResponse)?.statusCode == 401)
            // With Bob's session for Alice's id: 403
            let upstream = fixture.server.upstream()
            upstream.signIn(player: alice, sessionId: fixture.simulator.openSession(for: bob))
            let forbidden = await #expect(throws: UpstreamError.self) {
                try await upstream.playerList(.favourites, player: alice, edition: english, limit: 10, etag: nil)
            }
            #expect(forbidden?.code == .unauthorized && forbidden?.status == 403)
            // Signed out: refused without a request
            upstream.signOut(player: alice)
            let before = fixture.simulator.statistics().totalRequests
            let signedOut = await #expect(throws: UpstreamError.self) {
                try await upstream.playerList(.recentlyPlayed, player: alice, edition: english, limit: 10, etag: nil)
            }
            #expect(signedOut?.code == .unauthorized && signedOut?.status == nil)
            #expect(fixture.simulator.statistics().totalRequests == before)
            // A game the edition lacks: 404, a refusal
            let unknown = PlayerMutation(
                kind: .removeFavourite, player: alice, edition: english, gameId: "no-such-game", createdAt: Date())
            var adding = unknown
            adding.kind = .addFavourite
            let missing = await #expect(throws: UpstreamError.self) {
                try await fixture.upstream.send(adding, limit: 10)
            }
            #expect(missing?.code == .client && missing?.status == 404)
            // Removing what is not there is fine (idempotent), and answers the list
            #expect(try await fixture.upstream.send(unknown, limit: 10).ids.isEmpty)
            // The request builder and the simulator agree on escaped ids
            let hostile = PlayerRequest.addFavourite(player: "../x/\u{0}🎰", gameId: "a/b", edition: english, limit: 5)
            #expect(hostile.path == "/v1/player/%2E%2E%2Fx%2F%00%F0%9F%8E%B0/favorites/a%2Fb")
            let parsed = try PlayerRequest(
                method: "PUT", path: hostile.path,
                parameters: Dictionary(uniqueKeysWithValues: hostile.parameters.map { ($0.name, $0.value) }))
            #expect(parsed == hostile)
        }
    }
}

/// The queue file's format on its own: what the fuzzer's seeds hold, and refusals by header.
struct PlayerMutationQueueFileTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/player")

    @Test(arguments: [
        ("queue-42.mutations", "42", 2), ("queue-slash.mutations", "a/b", 1), ("queue-empty.mutations", "🎰", 0),
    ])
    func theFuzzersSeedsAreValidQueues(file: String, player: String, count: Int) throws {
        let data = try Data(contentsOf: Self.corpus.appendingPathComponent(file))
        let mutations = try PlayerMutationQueueFile.decode(data, player: player)
        #expect(mutations.count == count)
        #expect(
            try PlayerMutationQueueFile.decode(
                try PlayerMutationQueueFile.encode(mutations, player: player), player: player) == mutations)
        #expect(throws: PlayerMutationQueueFile.Rejection.self) {
            try PlayerMutationQueueFile.decode(data, player: player + "x")
        }
    }

    @Test func aHeaderThatDoesNotMatchItsBodyIsRefused() throws {
        let mutation = PlayerMutation(
            kind: .removeFavourite, player: "42", edition: english, gameId: "1",
            createdAt: Date(timeIntervalSince1970: 0))
        let good = try PlayerMutationQueueFile.encode([mutation, mutation], player: "42")
        // Two mutations with one id: refused
        let repeated = #expect(throws: PlayerMutationQueueFile.Rejection.self) {
            try PlayerMutationQueueFile.decode(good, player: "42")
        }
        #expect(repeated?.reason.contains("repeated") == true)
        // A body longer than the header says (padding): refused
        let single = try PlayerMutationQueueFile.encode([mutation], player: "42")
        let padded = #expect(throws: PlayerMutationQueueFile.Rejection.self) {
            try PlayerMutationQueueFile.decode(single + Data(" ".utf8), player: "42")
        }
        #expect(padded?.reason.contains("truncated or padded") == true)
        // No header line at all: refused
        #expect(throws: PlayerMutationQueueFile.Rejection.self) {
            try PlayerMutationQueueFile.decode(Data(repeating: UInt8(ascii: "{"), count: 10_000), player: "42")
        }
    }
}
