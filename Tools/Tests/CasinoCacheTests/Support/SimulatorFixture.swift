@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
@_spi(CatalogTools) import CatalogServer
import Foundation
import NIOConcurrencyHelpers

/// A simulator serving a synthetic recording on a loopback port, and the catalogue the pipeline
/// built from that same recording (what an app would have bundled).
///
/// The recording, its catalogue and its snapshot are built once per test process and size
/// (``Template``); each fixture starts its own simulator on them, and ``writeBundle(in:)`` copies
/// the snapshot. Dozens of tests then do not each generate, normalize and write the same files:
/// that synchronous work held the test pool's threads, and starved tests that wait on
/// background tasks on a busy 2-core machine.
struct SimulatorFixture {
    let simulator: CatalogSimulator
    let baseURL: URL
    let catalog: Catalog
    private let template: Template

    /// - Parameter serving: Changes the simulator's catalogue before it starts (the bundle and
    ///   ``catalog`` keep the recording's).
    static func start(
        in directory: TemporaryDirectory, games: Int = 200, categories: Int = 4,
        serving change: (inout SimulatedCatalog) -> Void = { _ in }
    ) async throws -> SimulatorFixture {
        let template = try Template.make(games: games, categories: categories)
        var served = template.served
        change(&served)
        let simulator = CatalogSimulator(catalog: served, logger: silentLogger)
        let baseURL = try await simulator.start()
        return SimulatorFixture(simulator: simulator, baseURL: baseURL, catalog: template.catalog, template: template)
    }

    /// An upstream for the simulator; its 60 s timeout is a hang detector, long enough for a loopback
    /// answer on a machine busy with a parallel build (tests of timeouts pass their own).
    func upstream(timeout: TimeInterval = 60, maxResponseBytes: Int = 8 << 20) -> ProviderHTTPUpstream {
        ProviderHTTPUpstream(
            configuration: .init(baseURL: baseURL, timeout: timeout, maxResponseBytes: maxResponseBytes),
            logger: silentLogger)
    }

    var bundledCategories: CategoryList {
        catalog.editions.first { $0.edition == english }!.categories
    }

    func bundledPage(_ categoryId: String, offset: Int = 0) -> GamesPage {
        catalog.editions.first { $0.edition == english }!.pages.first {
            $0.categoryId == categoryId && $0.offset == offset
        }!
    }

    var firstCategoryId: String { bundledCategories.items[0].id }

    /// Copies the catalogue's snapshot, as an app would bundle it, into `directory`; returns it.
    func writeBundle(in directory: TemporaryDirectory) throws -> URL {
        let out = directory.child("out")
        try FileManager.default.copyItem(at: template.bundle, to: out)
        return out
    }

    /// The recording as the simulator serves it, its catalogue and its snapshot, built once.
    private struct Template: Sendable {
        let served: SimulatedCatalog
        let catalog: Catalog
        let bundle: URL

        private static let built = NIOLockedValueBox<[String: Template]>([:])
        private static let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("cache-tests-simulator-\(UUID().uuidString)")

        /// The template of this size, built on first use (under the lock: one build, others wait).
        static func make(games: Int, categories: Int) throws -> Template {
            try built.withLockedValue { built in
                let name = "\(games)x\(categories)"
                if let template = built[name] { return template }
                if built.isEmpty { atexit { try? FileManager.default.removeItem(at: Template.root) } }
                let directory = root.appendingPathComponent(name)
                let recording = directory.appendingPathComponent("recording")
                try SampleRecording(games: games, categories: categories).write(to: recording)
                let source = try RecordedProviderSource(directory: recording)
                let catalog = try Normalizer(configuration: .default, logger: silentLogger).normalize(source).catalog
                let bundle = directory.appendingPathComponent("out")
                try SnapshotWriter(logger: silentLogger).write(catalog, to: bundle)
                let template = Template(served: try .load(recording: recording), catalog: catalog, bundle: bundle)
                built[name] = template
                return template
            }
        }
    }
}

extension SimulatorFixture {
    /// Runs `body` against a running simulator (see ``start(in:games:categories:serving:)``) and
    /// stops it afterwards, whatever happens.
    static func run(
        in directory: TemporaryDirectory, serving change: (inout SimulatedCatalog) -> Void = { _ in },
        _ body: (SimulatorFixture) async throws -> Void
    ) async throws {
        let server = try await start(in: directory, serving: change)
        try await withCleanup {
            try await body(server)
        } cleanup: {
            await server.simulator.stop()
        }
    }
}
