@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Synchronization

/// The provider's player routes with its 2–5 s latency on a virtual clock: answers at once,
/// reports how long the real provider would have taken, counts calls and body bytes (the JSON of
/// each answer), honours ETags on list reads, and applies favourites changes.
final class VirtualPlayerProvider: PlayerUpstream {
    private struct State {
        var favourites: [String] = []
        var lastPlayed: [String] = []
        var calls = 0
        var notModified = 0
        var bytes = 0
        var random: UInt64 = 4_242
        var lastLatency: Duration = .zero

        mutating func count(_ body: Int) {
            calls += 1
            bytes += body
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            lastLatency = .milliseconds(2000 + Int((random >> 33) % 3001))
        }
    }

    private let state = Mutex(State())
    private let catalogue: VirtualProvider
    private let games: [String: Game]
    let honoursETags: Bool

    init(catalog: Catalog, honoursETags: Bool) {
        catalogue = VirtualProvider(catalog: catalog, honoursETags: honoursETags)
        var games: [String: Game] = [:]
        for page in catalog.editions[0].pages {
            for game in page.items where games[game.id] == nil { games[game.id] = game }
        }
        self.games = games
        self.honoursETags = honoursETags
    }

    var calls: Int { state.withLock { $0.calls } }
    var notModified: Int { state.withLock { $0.notModified } }
    var bytes: Int { state.withLock { $0.bytes } }
    var lastLatency: Duration { state.withLock { $0.lastLatency } }

    /// The player played `ids` on another device, most recent first.
    func played(_ ids: [String]) {
        state.withLock { $0.lastPlayed = Array((ids + $0.lastPlayed.filter { !ids.contains($0) }).prefix(50)) }
    }

    private func page(_ ids: [String], _ list: PlayerList, limit: Int) -> GamesPage {
        let items = ids.compactMap { games[$0] }
        return GamesPage(
            categoryId: list.categoryId, offset: 0, limit: limit, total: items.count, items: Array(items.prefix(limit)))
    }

    func playerList(
        _ list: PlayerList, player: String, edition: Edition, limit: Int, etag: String?
    ) async throws
        -> UpstreamResponse<GamesPage>
    {
        let ids = state.withLock { list == .favourites ? $0.favourites : $0.lastPlayed }
        let page = page(ids, list, limit: limit)
        let body = try CatalogCoding.encoder().encode(page)
        let tag = "\"" + String(FileNaming.hexSHA256(body).prefix(16)) + "\""
        return state.withLock { state in
            if honoursETags, etag == tag {
                state.count(0)
                state.notModified += 1
                return .notModified
            }
            state.count(body.count)
            return .modified(page, etag: honoursETags ? tag : nil)
        }
    }

    func send(_ mutation: PlayerMutation, limit: Int) async throws -> GamesPage {
        let ids = state.withLock { state -> [String] in
            state.favourites.removeAll { $0 == mutation.gameId }
            if mutation.kind == .addFavourite { state.favourites.insert(mutation.gameId, at: 0) }
            return state.favourites
        }
        let page = page(ids, .favourites, limit: limit)
        let body = try CatalogCoding.encoder().encode(page)
        state.withLock { $0.count(body.count) }
        return page
    }

    func categories(edition: Edition, etag: String?) async throws -> UpstreamResponse<CategoryList> {
        try await catalogue.categories(edition: edition, etag: etag)
    }

    func gamesPage(
        edition: Edition, categoryId: String, offset: Int, limit: Int, etag: String?
    ) async throws
        -> UpstreamResponse<GamesPage>
    {
        try await catalogue.gamesPage(
            edition: edition, categoryId: categoryId, offset: offset, limit: limit, etag: etag)
    }
}

/// One player's day: five sessions (0, 20 min, 2 h, 2 h 30, 9 h), each showing their two rows
/// (recently played, favourites), then favouriting a game and unfavouriting the one favourited the
/// session before; between sessions they play two games elsewhere. Without a cache every row and
/// every change waits for the provider; with the cache, rows within the 45-minute player TTL come
/// from memory or disk, older ones are fetched (expired rows are never served), and a change shows at once.
func simulatedPlayerDay(catalog: Catalog, work: URL) async throws {
    let edition = catalog.editions[0].edition
    let ids = catalog.editions[0].pages.flatMap(\.items).map(\.id)
    let sessionMinutes = [0, 20, 120, 150, 540]
    let player = "player-1"

    struct Outcome {
        var name: String
        var calls: Int
        var notModified: Int
        var bytes: Int
        var rows: [Duration]
        var changes: [Duration]
    }
    var outcomes: [Outcome] = []

    // (a) No cache: each row and each change waits for the provider.
    do {
        let provider = VirtualPlayerProvider(catalog: catalog, honoursETags: false)
        var rows: [Duration] = []
        var changes: [Duration] = []
        for session in sessionMinutes.indices {
            for list in PlayerList.allCases {
                _ = try await provider.playerList(list, player: player, edition: edition, limit: 50, etag: nil)
                rows.append(provider.lastLatency)
            }
            let add = PlayerMutation(
                kind: .addFavourite, player: player, edition: edition, gameId: ids[session], createdAt: Date())
            _ = try await provider.send(add, limit: 50)
            changes.append(provider.lastLatency)
            if session > 0 {
                let remove = PlayerMutation(
                    kind: .removeFavourite, player: player, edition: edition, gameId: ids[session - 1],
                    createdAt: Date())
                _ = try await provider.send(remove, limit: 50)
                changes.append(provider.lastLatency)
            }
            provider.played([ids[100 + 2 * session], ids[101 + 2 * session]])
        }
        outcomes.append(
            Outcome(
                name: "no cache", calls: provider.calls, notModified: 0, bytes: provider.bytes, rows: rows,
                changes: changes))
    }

    // (b) CasinoCache: a new cache per session (an app launch) on the same directory.
    do {
        let provider = VirtualPlayerProvider(catalog: catalog, honoursETags: true)
        let clock = ManualClock(now: catalog.generatedAt.addingTimeInterval(86_400))
        let directory = work.appendingPathComponent("player-cache-\(UUID().uuidString)")
        var rows: [Duration] = []
        var changes: [Duration] = []
        var previousMinute = 0
        for (session, minute) in sessionMinutes.enumerated() {
            clock.advance(by: .seconds(Int64((minute - previousMinute) * 60)))
            previousMinute = minute
            let cache = CatalogCache(
                upstream: provider, cacheDirectory: directory, bundleDirectory: nil, clock: clock, logger: benchLogger)
            for list in PlayerList.allCases {
                let start = ContinuousClock.now
                if case .fresh = cache.cachedPlayerList(list, edition: edition, player: player) {
                    rows.append(ContinuousClock.now - start)
                } else if case .fresh(_, let metadata) = try await cache.playerList(
                    list, edition: edition, player: player),
                    metadata.tier == .upstream
                {
                    rows.append(provider.lastLatency)
                } else {
                    rows.append(ContinuousClock.now - start)
                }
            }
            let key = CacheKey.playerList(.favourites, edition: edition, player: player)
            func timeToShow(_ change: @escaping @Sendable () async throws -> Void) async throws -> Duration {
                var updates = cache.updates(for: key).makeAsyncIterator()
                let start = ContinuousClock.now
                let task = Task { try await change() }
                _ = await updates.next()
                let shown = ContinuousClock.now - start
                try await task.value
                return shown
            }
            let game = catalog.editions[0].pages.flatMap(\.items)[session]
            changes.append(
                try await timeToShow { _ = try await cache.addFavourite(game, edition: edition, player: player) })
            if session > 0 {
                changes.append(
                    try await timeToShow {
                        _ = try await cache.removeFavourite(gameId: ids[session - 1], edition: edition, player: player)
                    })
            }
            await cache.flush()
            provider.played([ids[100 + 2 * session], ids[101 + 2 * session]])
        }
        outcomes.append(
            Outcome(
                name: "CasinoCache (45 min player TTL)", calls: provider.calls, notModified: provider.notModified,
                bytes: provider.bytes,
                rows: rows, changes: changes))
    }

    print("")
    print(
        "A player's day: 5 sessions (0, 20 min, 2 h, 2 h 30, 9 h), each their 2 rows + favourite one game, unfavourite the previous; provider latency 2–5 s"
    )
    print(
        "| design | upstream calls | 304s | body bytes | rows' first content: median | worst | change shown: median | worst |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for outcome in outcomes {
        let rows = outcome.rows.sorted()
        let changes = outcome.changes.sorted()
        print(
            "| \(outcome.name) | \(outcome.calls) | \(outcome.notModified) | \(outcome.bytes) | \(format(nanoseconds(rows[rows.count / 2]))) | "
                + "\(format(nanoseconds(rows.last!))) | \(format(nanoseconds(changes[changes.count / 2]))) | \(format(nanoseconds(changes.last!))) |"
        )
    }
    print("(a row or change that had to wait counts the provider's virtual latency; the cache's own time is real)")
}

/// How long a favourites change takes to show (the list in memory changed, the update delivered
/// to a subscriber), against the floor of the same shape: a task that writes a `Mutex<[String:
/// GamesPage]>` and yields on an `AsyncStream`, awaited by its reader.
func mutationShowBenchmark(catalog: Catalog, work: URL) async throws -> [Result] {
    let edition = catalog.editions[0].edition
    let games = Array(catalog.editions[0].pages.flatMap(\.items).prefix(20))
    let player = "player-1"
    var results: [Result] = []
    for persistent in [false, true] {
        let provider = VirtualPlayerProvider(catalog: catalog, honoursETags: true)
        let directory = persistent ? work.appendingPathComponent("mutation-\(UUID().uuidString)") : nil
        let cache = CatalogCache(
            upstream: provider, cacheDirectory: directory, bundleDirectory: nil, logger: benchLogger)
        _ = try await cache.playerList(.favourites, edition: edition, player: player)
        let key = CacheKey.playerList(.favourites, edition: edition, player: player)
        var updates = cache.updates(for: key).makeAsyncIterator()
        let floorMap = FloorMap()
        let (floorStream, floorContinuation) = AsyncStream<Int>.makeStream()
        var floorUpdates = floorStream.makeAsyncIterator()
        let page = GamesPage(categoryId: "~favourites", offset: 0, limit: 50, total: 1, items: [games[0]])
        var floorValues: [Double] = []
        var values: [Double] = []
        for index in 0..<400 {
            let game = games[index % games.count]
            var start = ContinuousClock.now
            let floorTask = Task {
                floorMap.pages.withLock { $0[key.description] = page }
                floorContinuation.yield(index)
            }
            _ = await floorUpdates.next()
            floorValues.append(nanoseconds(ContinuousClock.now - start))
            await floorTask.value
            start = ContinuousClock.now
            let change = Task {
                _ = try await cache.addFavourite(game, edition: edition, player: player)
            }
            _ = await updates.next()
            values.append(nanoseconds(ContinuousClock.now - start))
            try await change.value
            _ = try await cache.removeFavourite(gameId: game.id, edition: edition, player: player)
            _ = await updates.next()
        }
        await cache.flush()
        let floor = Samples(values: Array(floorValues.dropFirst(50)))
        let shown = Samples(values: Array(values.dropFirst(50)))
        results.append(
            Result(
                operation: persistent
                    ? "favourite shown (memory; disk + durable queue behind)" : "favourite shown (memory only)",
                size: "\(games.count)-game row", medianNanoseconds: shown.median, p99Nanoseconds: shown.p99,
                floor: "Task + Mutex<[String: V]> set + AsyncStream yield", floorMedianNanoseconds: floor.median))
    }
    return results
}

/// The floor's map, shared with the task that writes it.
private final class FloorMap: Sendable {
    let pages = Mutex<[String: GamesPage]>([:])
}
