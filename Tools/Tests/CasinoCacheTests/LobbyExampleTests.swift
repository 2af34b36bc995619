@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import LobbyExample
import Testing

/// The quick start's lobby model (Tools/Examples/Lobby), tested as an app team would test its own
/// view model: a `TestBundle` written from a few values, a `ScriptedUpstream`, a `ManualClock`.
@Suite(.timeLimit(.minutes(5)))
@MainActor
struct LobbyExampleTests {
    let edition = try! Edition(id: "en-iPhone")
    let clock = ManualClock()
    let upstream: ScriptedUpstream
    let directory: TemporaryDirectory
    let bundle: URL
    let lobby = CategoryList(items: [Category(id: "SLOTS", name: "Slots", gamesTotal: 2)])
    let slots: GamesPage

    init() throws {
        upstream = ScriptedUpstream(clock: clock)
        directory = try TemporaryDirectory()
        let games = (1...2).map {
            Game(
                id: "\($0)", name: "Game \($0)", slug: "game-\($0)", launchUrl: "https://launch.example.com/\($0)",
                thumbnail: "https://static.example.com/\($0).jpg")
        }
        slots = GamesPage(categoryId: "SLOTS", offset: 0, limit: 10, total: 2, items: games)
        var bundle = TestBundle(generatedAt: clock.now.addingTimeInterval(-86_400))
        bundle.add(lobby, edition: edition)
        bundle.add(slots, edition: edition)
        self.bundle = try bundle.write(to: directory.child("out"))
    }

    func makeCache() -> CatalogCache {
        CatalogCache(
            upstream: upstream, cacheDirectory: directory.child("cache"), bundleDirectory: bundle, clock: clock)
    }

    @Test func showsTheBundleOnTheFirstFrameThenTheProvidersNewerContent() async throws {
        // Given a first launch: nothing cached yet, and a provider whose catalogue changed since the bundle
        var newLobby = lobby
        newLobby.items[0].name = "Slots v1"
        var newSlots = slots
        newSlots.items[0].name = "Game 1 v1"
        upstream.script(.categories(edition), .content(.categories(newLobby)))
        upstream.script(.gamesPage(edition, categoryId: "SLOTS", offset: 0), .content(.gamesPage(newSlots)))
        let cache = makeCache()

        // When the lobby model is made
        let model = LobbyModel(cache: cache, edition: edition)

        // Then the first frame shows the bundle, without a network call
        #expect(model.state == .bundled)
        #expect(model.categories == lobby.items)
        #expect(model.firstPages["SLOTS"] == slots)
        #expect(upstream.calls.isEmpty)

        // When it runs, then the refreshed categories and first page replace the bundled ones silently
        let running = Task { await model.run() }
        defer { running.cancel() }
        await eventually { model.state == .fresh && model.firstPages["SLOTS"]?.items[0].name == "Game 1 v1" }
        #expect(model.categories == newLobby.items)
        #expect(model.problem == nil)
        #expect(upstream.calls(for: CacheKey(.categories(edition))) == 1)
    }

    @Test func keepsTheBundleOnScreenWhenTheProviderIsUnreachable() async throws {
        // Given a first launch offline (nothing scripted: every call fails as offline)
        let cache = makeCache()

        // When the lobby model runs
        let model = LobbyModel(cache: cache, edition: edition)
        let running = Task { await model.run() }
        defer { running.cancel() }

        // Then the bundle stays on screen and the failed refresh is reported
        await eventually { model.problem != nil }
        #expect(model.problem != nil)
        #expect(model.categories == lobby.items)
        #expect(model.state == .bundled)
    }
}
