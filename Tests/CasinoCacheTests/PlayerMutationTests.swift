@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

/// Player mutations beyond the checklist: order and timeouts. (The HTTP player routes and the
/// simulator's sessions: ProviderHTTPUpstreamTests in Tools.)
@Suite(.timeLimit(.minutes(5)))
struct PlayerMutationTests {
    let fixture: PlayerFixture

    init() throws {
        fixture = try PlayerFixture()
    }

    @Test func severalChangesInFlightApplyInOrderAndSettleOnTheServersList() async throws {
        // Given a slow server (it holds its answer to the first change for 300 ms) and an empty favourites row
        let alice = PlayerFixture.alice
        let cache = fixture.makeCache()
        _ = try await cache.playerList(.favourites, edition: english, player: alice)
        let (first, second, third) = (fixture.games[1], fixture.games[2], fixture.games[3])
        fixture.upstream.scriptMutations(
            .after(.milliseconds(300), .content(.gamesPage(PlayerFixture.page(.favourites, [first])))))
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
        // Then all four show at once, in order, while the first is still unanswered (a change is queued
        // a moment before the row shows it: wait for the row, bounded)
        let shown = { cache.cachedPlayerList(.favourites, edition: english, player: alice).value?.ids }
        await eventually { shown() == [third.id, second.id] }
        #expect(shown() == [third.id, second.id])
        await eventually { !fixture.upstream.sentMutations.isEmpty }
        #expect(fixture.upstream.sentMutations.map(\.gameId) == [first.id])  // one at a time
        // (the server applied the first; the others it answers at once, applied to its list)
        fixture.script(.favourites, of: alice, [first])
        fixture.upstream.scriptMutations(nil)
        await fixture.advance(by: .milliseconds(300), onceWaiting: 2)
        for task in tasks { _ = try await task.value }
        // And the server applied them in order, and the row equals its list
        #expect(fixture.upstream.sentMutations.map(\.gameId) == [first.id, second.id, third.id, first.id])
        #expect(
            fixture.upstream.sentMutations.map(\.kind) == [
                .addFavourite, .addFavourite, .addFavourite, .removeFavourite,
            ]
        )
        #expect(try await fixture.serverList(.favourites, of: alice).ids == [third.id, second.id])
        #expect(
            cache.cachedPlayerList(.favourites, edition: english, player: alice).value
                == (try await fixture.serverList(.favourites, of: alice)))
        #expect(cache.mutationStatistics().applied == 4)
    }

    @Test func aChangeThatTimesOutStaysQueuedAndIsSentAgainSafely() async throws {
        // Given a server that applies the change but holds its answer for 2 minutes, past the
        // cache's 30 s deadline for it
        let alice = PlayerFixture.alice
        let cache = fixture.makeCache { $0.upstreamTimeout = .seconds(30) }
        let game = fixture.games[6]
        fixture.upstream.scriptMutations(
            .after(.seconds(120), .content(.gamesPage(PlayerFixture.page(.favourites, [game])))))
        // When the player favourites a game
        let change = Task { try await cache.addFavourite(game, edition: english, player: alice) }
        await eventually { !fixture.upstream.sentMutations.isEmpty }
        fixture.script(.favourites, of: alice, [game])  // applied; the answer is held
        await fixture.advance(by: .seconds(30), onceWaiting: 2)
        let outcome = try await change.value
        // Then it stays shown and queued
        #expect(outcome == .queued)
        #expect(cache.pendingMutations(player: alice).map(\.gameId) == [game.id])
        #expect(cache.cachedPlayerList(.favourites, edition: english, player: alice).value?.ids == [game.id])
        // When the app learns the network is back
        fixture.upstream.scriptMutations(nil)
        await cache.sendPendingMutations()
        // Then it is sent again (idempotent): the server holds it once, and the row is the server's
        #expect(cache.pendingMutations(player: alice).isEmpty)
        #expect(fixture.upstream.sentMutations.map(\.gameId) == [game.id, game.id])
        #expect(try await fixture.serverList(.favourites, of: alice).ids == [game.id])
        #expect(cache.cachedPlayerList(.favourites, edition: english, player: alice).value?.ids == [game.id])
    }
}

/// The queue file's format on its own: what the fuzzer's seeds hold, and refusals by header.
struct PlayerMutationQueueFileTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/player")

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
