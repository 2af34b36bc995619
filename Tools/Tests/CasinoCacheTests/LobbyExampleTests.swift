import CasinoCache
import CasinoCacheTesting
import CasinoCatalog
import LobbyExample
import Testing

/// The quick start's lobby model (Tools/Examples/Lobby) against a real bundle: it must keep working.
@Suite(.timeLimit(.minutes(5)))
@MainActor
struct LobbyExampleTests: CacheTestEnvironment {
    let directory: TemporaryDirectory
    let bundle: BundleFixture
    let upstream: CountingUpstream
    let clock: ManualClock

    init() throws {
        (directory, bundle, upstream, clock) = try Self.makeParts()
    }

    @Test func showsTheBundleOnTheFirstFrameThenTheProvidersNewerContent() async throws {
        // Given a first launch: nothing cached yet, and a provider whose catalogue changed since the bundle
        upstream.set { $0.version = 1 }
        let cache = makeCache()
        let firstCategory = bundle.firstCategoryId

        // When the lobby model is made
        let model = LobbyModel(cache: cache, edition: english)

        // Then the first frame shows the bundle, without a network call
        #expect(model.state == .bundled)
        #expect(model.categories == bundle.categories().items)
        #expect(model.firstPages[firstCategory] == bundle.page(firstCategory))
        #expect(upstream.calls == 0)

        // When it runs, then the refreshed categories and first pages replace the bundled ones silently
        let running = Task { await model.run() }
        defer { running.cancel() }
        await eventually { model.state == .fresh && model.firstPages[firstCategory]?.items[0].name.hasSuffix(" v1") == true }
        #expect(model.categories[0].name == bundle.categories().items[0].name + " v1")
        #expect(model.firstPages[firstCategory]?.items[0].name == bundle.page(firstCategory).items[0].name + " v1")
        #expect(model.problem == nil)
    }

    @Test func keepsTheBundleOnScreenWhenTheProviderIsUnreachable() async throws {
        // Given a first launch offline
        upstream.set { $0.isOffline = true }
        let cache = makeCache()

        // When the lobby model runs
        let model = LobbyModel(cache: cache, edition: english)
        let running = Task { await model.run() }
        defer { running.cancel() }

        // Then the bundle stays on screen and the failed refresh is reported
        await eventually { model.problem != nil }
        #expect(model.problem != nil)
        #expect(model.categories == bundle.categories().items)
        #expect(model.state == .bundled)
    }
}
