@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

/// Signed-in players on a scripted provider (``ScriptedUpstream``), and caches on one real directory
/// as an app makes them at each launch: what the player-lobby tests start from.
///
/// The provider answers each player's lists as scripted (empty until a test scripts them), applies
/// a favourites change to the player's last list and answers it; ``offlineUpstream()`` reaches
/// nothing. Its delays run on ``clock``, which only the test moves.
struct PlayerFixture {
    let directory: TemporaryDirectory
    let clock: ManualClock
    let upstream: ScriptedUpstream

    static let alice = "alice"
    static let bob = "bob"

    /// How many games a list holds: the cache asks for it, and the scripted lists are its pages.
    static let listLimit = 50

    /// The English edition's games of the lobby bundle, each once, in lobby order.
    let games: [Game]

    init(players: [String] = [alice, bob]) throws {
        directory = try TemporaryDirectory()
        clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        upstream = ScriptedUpstream(clock: clock)
        let edition = try #require(try BundleFixture.catalog().editions.first { $0.edition == english })
        var seen = Set<String>()
        games = edition.pages.flatMap(\.items).filter { seen.insert($0.id).inserted }
        for player in players {
            for list in PlayerList.allCases { script(list, of: player, []) }
        }
        upstream.script(SnapshotKey.categories(english), .content(.categories(edition.categories)))
    }

    /// A cache as an app makes it at launch: the same directories every time. Its deadline for an
    /// answer is 30 s on ``clock`` (no test holds one that long but the one about timeouts).
    func makeCache(
        upstream: ScriptedUpstream? = nil, _ configure: (inout CatalogCache.Configuration) -> Void = { _ in }
    ) -> CatalogCache {
        var configuration = CatalogCache.Configuration.default
        configuration.unknownTerritoryPolicy = .showAll  // the bundle's games carry restrictions
        configuration.playerListLimit = Self.listLimit
        configuration.upstreamTimeout = .seconds(30)
        configure(&configuration)
        return CatalogCache(
            configuration: configuration, upstream: upstream ?? self.upstream, cacheDirectory: cacheDirectory,
            bundleDirectory: nil, clock: clock, logger: silentLogger)
    }

    var cacheDirectory: URL { directory.child("cache") }
    var queueDirectory: URL { cacheDirectory.appendingPathComponent("PlayerMutations") }

    /// A provider that cannot be reached: every read and every change fails as offline.
    func offlineUpstream() -> ScriptedUpstream {
        let upstream = ScriptedUpstream(clock: clock)
        upstream.scriptMutations(.unscripted)
        return upstream
    }

    // MARK: - The provider's lists

    /// `games` as the provider answers `list`.
    static func page(_ list: PlayerList, _ games: some Collection<Game>) -> GamesPage {
        GamesPage(categoryId: list.categoryId, offset: 0, limit: listLimit, total: games.count, items: Array(games))
    }

    /// Sets the player's `list` on the provider (played on another device, or favourited there):
    /// every read answers it from now on, and changes apply to it.
    func script(_ list: PlayerList, of player: String, _ games: some Collection<Game>) {
        upstream.script(
            .playerList(list, edition: english, player: player), .content(.gamesPage(Self.page(list, games))))
    }

    /// The list as the provider answers it now.
    func serverList(_ list: PlayerList, of player: String) async throws -> GamesPage {
        let answer = try await upstream.playerList(
            list, player: player, edition: english, limit: Self.listLimit, etag: nil)
        var page: GamesPage?
        if case .modified(let value, _) = answer { page = value }
        return try #require(page, "expected the \(list) list of \(player)")
    }

    /// Moves the clock by `duration` once at least `sleepers` tasks wait on it (held answers, and
    /// the cache's deadlines for them): a delay that starts after the move would never end.
    func advance(by duration: Duration, onceWaiting sleepers: Int) async {
        await eventually { clock.sleeperCount >= sleepers }
        #expect(clock.sleeperCount >= sleepers, "the clock's sleepers")
        clock.advance(by: duration)
    }

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
