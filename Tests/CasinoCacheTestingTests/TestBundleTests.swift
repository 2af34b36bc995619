@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

/// A test bundle is a real snapshot: the bundled tier reads it, and what breaks the contract is
/// refused when it is written, naming what to fix.
@Suite struct TestBundleTests {
    static let edition = try! Edition(id: "en-iPhone")
    static let games = (1...3).map {
        Game(
            id: "\($0)", name: "Game \($0)", slug: "game-\($0)", launchUrl: "https://launch.example.com/\($0)",
            thumbnail: "https://static.example.com/\($0).jpg")
    }
    static let lobby = CategoryList(items: [
        Category(id: "SLOTS", name: "Slots", gamesTotal: 3), Category(id: "LIVE", name: "Live", gamesTotal: 2),
    ])
    static let slots = GamesPage(categoryId: "SLOTS", offset: 0, limit: 10, total: 3, items: games)

    @Test func theCacheServesATestBundleOnTheFirstFrameAsItServesThePipelines() throws {
        // Given a bundle of two categories and one page
        let directory = try TemporaryDirectory()
        var bundle = TestBundle()
        bundle.add(Self.lobby, edition: Self.edition)
        bundle.add(Self.slots, edition: Self.edition)
        let out = try bundle.write(to: directory.child("out"))
        // Then its manifest keeps every rule, its content hash included
        let manifest = try SnapshotReader(directory: out).manifest()
        #expect(manifest.contentHashViolation() == nil)
        #expect(manifest.files.count == 2)
        // And a cache answers from it, without the network
        let upstream = ScriptedUpstream()
        let cache = CatalogCache(upstream: upstream, cacheDirectory: nil, bundleDirectory: out, clock: ManualClock())
        #expect(cache.cachedCategories(edition: Self.edition).value == Self.lobby)
        guard case .bundled(let page, _) = cache.cachedGamesPage(edition: Self.edition, categoryId: "SLOTS", offset: 0)
        else {
            Issue.record("expected the bundled page")
            return
        }
        #expect(page == Self.slots)
        #expect(upstream.calls.isEmpty)
    }

    @Test func aPageCutWithAnotherSizeOrAnEditionWithoutCategoriesIsRefusedByName() throws {
        let directory = try TemporaryDirectory()
        var bundle = TestBundle(pageSize: 20)
        bundle.add(Self.lobby, edition: Self.edition)
        bundle.add(Self.slots, edition: Self.edition)
        #expect(throws: TestBundle.Error.self) { try bundle.write(to: directory.child("a")) }

        var pagesOnly = TestBundle()
        pagesOnly.add(Self.slots, edition: Self.edition)
        let error = #expect(throws: TestBundle.Error.self) { try pagesOnly.write(to: directory.child("b")) }
        #expect(error?.message.contains("no categories") == true)
    }
}
