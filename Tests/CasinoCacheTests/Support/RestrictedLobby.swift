@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation

/// A lobby whose page holds games restricted in Canada, Ontario and Great Britain, served by a
/// bundle and a scripted upstream, and caches on a real directory: what the territory and
/// withdrawal tests read.
struct RestrictedLobby {
    let directory: TemporaryDirectory
    let clock = ManualClock(now: Date(timeIntervalSince1970: 1_795_003_600))
    let upstream: ScriptedUpstream
    let bundle: URL
    static let categoryId = "SLOTS"
    /// The page's key.
    static let key = CacheKey.gamesPage(english, categoryId: categoryId, offset: 0)

    /// Ten games: 0 restricted in CA, 1 in CA-ON, 2 in GB and CA-QC, the rest nowhere.
    static let page = GamesPage(
        categoryId: categoryId, offset: 0, limit: 10, total: 10,
        items: (0..<10).map { index in
            Game(
                id: "g\(index)", name: "Game \(index)", slug: "game-\(index)",
                launchUrl: "https://play.example.com/\(index)", thumbnail: "https://img.example.com/\(index).png",
                restrictedTerritories: [["CA"], ["CA-ON"], ["GB", "CA-QC"]].indices.contains(index)
                    ? [["CA"], ["CA-ON"], ["GB", "CA-QC"]][index] : [])
        })

    init() throws {
        directory = try TemporaryDirectory()
        upstream = ScriptedUpstream(clock: clock)
        var snapshot = TestBundle(generatedAt: Date(timeIntervalSince1970: 1_795_000_000))
        snapshot.add(
            CategoryList(items: [Category(id: Self.categoryId, name: "Slots", gamesTotal: 10)]), edition: english)
        snapshot.add(Self.page, edition: english)
        bundle = try snapshot.write(to: directory.child("out"))
    }

    func makeCache(
        _ configure: (inout CatalogCache.Configuration) -> Void = { _ in }, bundled: Bool = true
    ) -> CatalogCache {
        var configuration = CatalogCache.Configuration.default
        configure(&configuration)
        return CatalogCache(
            configuration: configuration, upstream: upstream, cacheDirectory: directory.child("cache"),
            bundleDirectory: bundled ? bundle : nil, clock: clock, logger: silentLogger)
    }

    static func ids(_ result: CacheResult<GamesPage>) -> [String] { result.value?.items.map(\.id) ?? [] }

    /// The page with its last `count` games only, none of them restricted.
    static func lastGames(_ count: Int) -> GamesPage {
        var page = page
        page.items = Array(page.items.suffix(count))
        page.count = count
        return page
    }

}
