@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
@_spi(CatalogTools) import CatalogServer
import Foundation
@_spi(CatalogTools) import ProviderAPI

/// The simulator over loopback with signed-in players, and caches on one real directory as an
/// app makes them at each launch: what the player-lobby tests start from.
struct PlayerFixture {
    let server: SimulatorFixture
    let directory: TemporaryDirectory
    let clock: ManualClock
    let upstream: ProviderHTTPUpstream

    static let alice = "alice"
    static let bob = "bob"

    /// `games` of the English edition, as the lobby shows them (mapped like the live upstream maps).
    let games: [Game]

    static func start(
        in directory: TemporaryDirectory, players: [String] = [alice, bob]
    ) async throws -> PlayerFixture {
        // The recording is generated and normalized once per process (SimulatorFixture's template).
        let server = try await SimulatorFixture.start(in: directory)
        let upstream = server.upstream()
        for player in players { upstream.signIn(player: player, sessionId: server.simulator.openSession(for: player)) }
        let games = server.catalog.editions.first { $0.edition == english }!.pages.flatMap(\.items)
        return PlayerFixture(
            server: server, directory: directory, clock: ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000)),
            upstream: upstream, games: games)
    }

    /// Runs `body` against a started fixture and stops the simulator afterwards, whatever happens.
    static func run(
        in directory: TemporaryDirectory, players: [String] = [alice, bob], _ body: (PlayerFixture) async throws -> Void
    ) async throws {
        let fixture = try await start(in: directory, players: players)
        try await withCleanup {
            try await body(fixture)
        } cleanup: {
            await fixture.stop()
        }
    }

    var simulator: CatalogSimulator { server.simulator }

    /// A cache as an app makes it at launch: the same directories every time.
    func makeCache(
        upstream: (any CatalogUpstream)? = nil, _ configure: (inout CatalogCache.Configuration) -> Void = { _ in }
    ) -> CatalogCache {
        var configuration = CatalogCache.Configuration.showingEveryGame
        configure(&configuration)
        return CatalogCache(
            configuration: configuration, upstream: upstream ?? self.upstream, cacheDirectory: cacheDirectory,
            bundleDirectory: nil, clock: clock, logger: silentLogger)
    }

    var cacheDirectory: URL { directory.child("cache") }
    var queueDirectory: URL { cacheDirectory.appendingPathComponent("PlayerMutations") }

    /// An upstream whose server cannot be reached (connection refused), with the players signed in.
    func offlineUpstream(players: [String] = [alice, bob]) -> ProviderHTTPUpstream {
        let upstream = ProviderHTTPUpstream(
            configuration: .init(baseURL: URL(string: "http://127.0.0.1:9")!, timeout: 5), logger: silentLogger)
        for player in players { upstream.signIn(player: player, sessionId: "offline") }
        return upstream
    }

    /// The favourites as the server answers them now, mapped like the cache maps them.
    func serverList(_ list: PlayerList, of player: String) async throws -> GamesPage {
        guard
            case .modified(let page, _) = try await upstream.playerList(
                list, player: player, edition: english, limit: 50, etag: nil)
        else { throw SimulatorError("expected a list") }
        return page
    }

    /// Requests the simulator served for a player route (`"PUT /v1/player/{playerId}/favorites/{gameId}"`).
    func requests(_ route: String) -> Int {
        simulator.statistics().requests[route] ?? 0
    }

    static let put = "PUT /v1/player/{playerId}/favorites/{gameId}"
    static let delete = "DELETE /v1/player/{playerId}/favorites/{gameId}"
    static let getFavourites = "GET /v1/player/{playerId}/favorites"
    static let getLastPlayed = "GET /v1/player/{playerId}/games/last-played"

    /// The names of the files under the cache directory, recursively, relative to it.
    func filesOnDisk() -> [String] {
        let root = cacheDirectory.path
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
        return enumerator.compactMap { $0 as? String }.filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }.sorted()
    }

    func stop() async { await simulator.stop() }
}

extension GamesPage {
    var ids: [String] { items.map(\.id) }
}

extension CatalogCache {
    /// Waits (bounded) until the player's queue is empty.
    func waitUntilSent(_ player: String) async {
        await eventually { self.pendingMutations(player: player).isEmpty }
        await flush()
    }
}

extension UpdateCollector {
    /// The failed mutations among the updates.
    var mutationFailures: [(PlayerMutation, CacheError)] {
        updates.compactMap { update in
            if case .mutationFailed(let mutation, let error) = update.event { return (mutation, error) }
            return nil
        }
    }
}

/// The game ids of a page's content (none for a category list).
func pageIDs(_ content: CatalogContent) -> [String] {
    if case .gamesPage(let page) = content { return page.ids }
    return []
}
