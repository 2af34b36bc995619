@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

/// Bad input, one test each: refused sessions mid-session, damaged queue files, a flood
/// of offline changes, a server that answers another list, and hostile player ids.
@Suite(.timeLimit(.minutes(5)))
struct PlayerLobbyBadInputTests {
    let fixture: PlayerFixture

    init() throws {
        fixture = try PlayerFixture()
    }

    enum Refusal: String, CaseIterable {
        case expiredSession = "401"
        case anotherPlayersSession = "403"
    }

    /// The HTTP upstream's statuses for these refusals: ProviderHTTPUpstreamTests.
    @Test(arguments: Refusal.allCases)
    func aSessionRefusedMidSessionDropsThePlayersRows(_ refusal: Refusal) async throws {
        // Given Alice's rows cached on disk and in memory
        let alice = PlayerFixture.alice
        fixture.script(.recentlyPlayed, of: alice, fixture.games[0..<3])
        let cache = fixture.makeCache()
        _ = try await cache.playerList(.recentlyPlayed, edition: english, player: alice)
        _ = try await cache.playerList(.favourites, edition: english, player: alice)
        await cache.flush()
        #expect(fixture.filesOnDisk().count == 2)
        // When her session expires (401), or the app sends another player's session (403),
        // and the row is read past its time to live
        fixture.upstream.script(
            .playerList(.recentlyPlayed, edition: english, player: alice),
            .failure(UpstreamError(.unauthorized, "the session was refused", status: Int(refusal.rawValue))))
        fixture.clock.advance(by: .seconds(46 * 60))
        let error = await #expect(throws: CacheError.self) {
            try await cache.playerList(.recentlyPlayed, edition: english, player: alice)
        }
        await cache.flush()
        // Then the read fails as unauthorized, and nothing of hers is served to whoever is next
        let cause = try #require(error?.cause as? UpstreamError)
        #expect(cause.code == .unauthorized)
        #expect(cause.status == Int(refusal.rawValue))
        #expect(cache.cachedPlayerList(.recentlyPlayed, edition: english, player: alice).state == .miss)
        #expect(cache.cachedPlayerList(.favourites, edition: english, player: alice).state == .miss)
        #expect(cache.memory.entries(in: .user(alice)).isEmpty)
        #expect(fixture.filesOnDisk().isEmpty)
    }

    enum Damage: String, CaseIterable {
        case truncated, garbage, flippedByte, anotherPlayersFile, empty
    }

    @Test(arguments: Damage.allCases)
    func aDamagedQueueFileIsDroppedCountedAndNeverReplayed(_ damage: Damage) async throws {
        // Given two changes queued offline for Alice, and one for Bob
        let (alice, bob) = (PlayerFixture.alice, PlayerFixture.bob)
        do {
            let offline = fixture.makeCache(upstream: fixture.offlineUpstream())
            try await offline.addFavourite(fixture.games[1], edition: english, player: alice)
            try await offline.removeFavourite(gameId: fixture.games[2].id, edition: english, player: alice)
            try await offline.addFavourite(fixture.games[3], edition: english, player: bob)
            await offline.flush()
        }
        let file = fixture.queueDirectory.appendingPathComponent(PlayerMutationQueueFile.fileName(for: alice))
        let bytes = try Data(contentsOf: file)
        #expect(try PlayerMutationQueueFile.decode(bytes, player: alice).count == 2)
        // When Alice's file is damaged while the app is not running
        let damaged: Data
        switch damage {
        case .truncated: damaged = bytes.prefix(bytes.count - 40)
        case .garbage: damaged = Data((0..<bytes.count).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        case .flippedByte:
            var flipped = bytes
            let digit = flipped.lastIndex(of: UInt8(ascii: "\"")) ?? flipped.count - 2
            flipped[digit - 1] ^= 0x01
            damaged = flipped
        case .anotherPlayersFile:
            damaged = try Data(
                contentsOf: fixture.queueDirectory.appendingPathComponent(PlayerMutationQueueFile.fileName(for: bob)))
        case .empty: damaged = Data()
        }
        try damaged.write(to: file)
        let relaunched = fixture.makeCache()
        // Then none of it is replayed; it is counted, and the file is gone; Bob's queue is intact
        #expect(relaunched.pendingMutations(player: alice).isEmpty)
        _ = try await relaunched.playerList(.favourites, edition: english, player: alice)
        await relaunched.mutationQueue?.flush()
        #expect(relaunched.mutationStatistics().corruptQueueFiles == 1)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(fixture.upstream.sentMutations.isEmpty)
        #expect(try await fixture.serverList(.favourites, of: alice).ids.isEmpty)
        #expect(relaunched.pendingMutations(player: bob).map(\.gameId) == [fixture.games[3].id])
    }

    /// A thousand changes pass the bound ten times over; 10,000 took 40 s in a debug build (each
    /// change saves the queue, whose SHA-256 is slow unoptimized) and starved the suites beside it.
    @Test func aThousandQueuedChangesAreBoundedAndTheOldestDroppedWithAReport() async throws {
        // Given a player offline
        let alice = PlayerFixture.alice
        let cache = fixture.makeCache(upstream: fixture.offlineUpstream())
        let key = CacheKey.playerList(.favourites, edition: english, player: alice)
        let updates = UpdateCollector(cache.updates(for: key))
        // When they make 1,000 changes
        var made: [PlayerMutation.Kind] = []
        for index in 0..<1_000 {
            let game = fixture.games[index % fixture.games.count]
            if index % 3 == 2 {
                made.append(.removeFavourite)
                _ = try? await cache.removeFavourite(gameId: game.id, edition: english, player: alice)
            } else {
                made.append(.addFavourite)
                _ = try? await cache.addFavourite(game, edition: english, player: alice)
            }
        }
        await cache.flush()
        // Then the queue holds the newest 100, in order, on disk too; 900 were dropped and reported
        let pending = cache.pendingMutations(player: alice)
        #expect(pending.count == 100)
        #expect(pending.map(\.kind) == Array(made.suffix(100)))
        #expect(pending.map(\.gameId) == (900..<1_000).map { fixture.games[$0 % fixture.games.count].id })
        let file = try Data(
            contentsOf: fixture.queueDirectory.appendingPathComponent(PlayerMutationQueueFile.fileName(for: alice)))
        #expect(try PlayerMutationQueueFile.decode(file, player: alice) == pending)
        #expect(cache.mutationStatistics().dropped == 900)
        await eventually { !updates.mutationFailures.isEmpty }
        #expect(updates.mutationFailures.allSatisfy { $0.1.code == .mutationDropped })
        // And what is shown is the queue's 100 changes applied in order on the empty list
        var expected = GamesPage(
            categoryId: PlayerList.favourites.categoryId, offset: 0, limit: PlayerFixture.listLimit, total: 0,
            items: [])
        for mutation in pending { expected = mutation.applied(to: expected) }
        #expect(cache.cachedPlayerList(.favourites, edition: english, player: alice).value == expected)
    }

    @Test func aServerAnsweringAChangeWithADifferentListWins() async throws {
        // Given an empty favourites row on screen, and favourites added on another device since
        let alice = PlayerFixture.alice
        let cache = fixture.makeCache()
        _ = try await cache.playerList(.favourites, edition: english, player: alice)
        fixture.script(.favourites, of: alice, [fixture.games[20], fixture.games[21]])
        let key = CacheKey.playerList(.favourites, edition: english, player: alice)
        let updates = UpdateCollector(cache.updates(for: key))
        // When the player favourites a game
        let game = fixture.games[3]
        let outcome = try await cache.addFavourite(game, edition: english, player: alice)
        // Then the optimistic row is replaced by the server's answer
        let expected = [game.id, fixture.games[20].id, fixture.games[21].id]
        #expect(outcome == .applied(try await fixture.serverList(.favourites, of: alice)))
        #expect(cache.cachedPlayerList(.favourites, edition: english, player: alice).value?.ids == expected)
        await updates.wait(for: 2)
        #expect(updates.contentUpdates.map { $0.1.ids } == [[game.id], expected])
    }

    @Test func hostilePlayerIdsGetSafeDistinctFilesAndNeverMix() async throws {
        let ids = [
            "a/b", "a%2Fb", "..", "../../etc/passwd", "nul\u{0}id", "🎰", "🎰\u{0}", String(repeating: "x", count: 256),
        ]
        let fixture = try PlayerFixture(players: ids)
        let cache = fixture.makeCache()
        // Given each hostile id favourites its own game, one of them while offline
        for (index, id) in ids.enumerated() {
            _ = try await cache.playerList(.favourites, edition: english, player: id)
            try await cache.addFavourite(fixture.games[index], edition: english, player: id)
        }
        let offline = fixture.makeCache(upstream: fixture.offlineUpstream())
        for (index, id) in ids.enumerated() {
            #expect(try await offline.addFavourite(fixture.games[50 + index], edition: english, player: id) == .queued)
        }
        await cache.flush()
        await offline.flush()
        // Then the server holds each id's change under that exact id, and each list is its own
        for (index, id) in ids.enumerated() {
            #expect(
                fixture.upstream.sentMutations.filter { $0.player == id }.map(\.gameId) == [fixture.games[index].id])
            #expect(try await fixture.serverList(.favourites, of: id).ids == [fixture.games[index].id])
            #expect(
                cache.cachedPlayerList(.favourites, edition: english, player: id).value?.ids == [
                    fixture.games[index].id
                ])
            #expect(offline.pendingMutations(player: id).map(\.gameId) == [fixture.games[50 + index].id])
        }
        // And every file is a short ASCII name inside the cache directory: one row file and
        // one queue file per id, none shared
        let files = fixture.filesOnDisk()
        #expect(files.count == 2 * ids.count)
        #expect(
            files.allSatisfy {
                $0.utf8.count < 120 && $0.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 }
            })
        #expect(files.filter { $0.hasPrefix("PlayerMutations/") }.count == ids.count)
        #expect(Set(ids.map(PlayerMutationQueueFile.fileName(for:))).count == ids.count)
        #expect(
            !FileManager.default.fileExists(
                atPath: fixture.directory.url.deletingLastPathComponent().appendingPathComponent("etc").path))
    }

    @Test(arguments: ["", String(repeating: "x", count: 257)])
    func anUnusablePlayerIdIsRefusedBeforeAnyRequest(_ id: String) async throws {
        let cache = fixture.makeCache()
        let error = await #expect(throws: CacheError.self) {
            try await cache.addFavourite(fixture.games[0], edition: english, player: id)
        }
        #expect(error?.code == .invalidRequest)
        #expect(cache.cachedPlayerList(.favourites, edition: english, player: id).state == .miss)
        #expect(fixture.upstream.calls.isEmpty && fixture.upstream.sentMutations.isEmpty)
    }
}
