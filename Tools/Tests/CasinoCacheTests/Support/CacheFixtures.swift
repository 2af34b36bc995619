@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Logging

/// A real snapshot directory built by the pipeline from a small synthetic recording, and the
/// catalogue it holds (what an app ships as its bundled tier).
///
/// The pipeline runs once per test process (``template``); each fixture is a copy of its output
/// in the test's own directory, so a test may damage its bundle without touching another's, and
/// dozens of parallel tests do not each generate, normalize and write the same snapshot.
struct BundleFixture {
    let directory: URL
    let catalog: Catalog

    init(in parent: TemporaryDirectory) throws {
        let template = try Self.template.get()
        catalog = template.catalog
        directory = parent.child("out")
        try FileManager.default.copyItem(at: template.directory, to: directory)
    }

    private init(building parent: URL) throws {
        let recording = parent.appendingPathComponent("recording")
        var sample = SampleRecording(games: 60, categories: 3)
        sample.seed = 11
        try sample.write(to: recording)
        let source = try RecordedProviderSource(directory: recording)
        catalog = try Normalizer(configuration: .default, logger: silentLogger).normalize(source).catalog
        directory = parent.appendingPathComponent("out")
        try SnapshotWriter(logger: silentLogger).write(catalog, to: directory)
    }

    /// The pipeline's output, built on first use; removed when the test process exits.
    private static let template: Result<BundleFixture, any Error> = {
        atexit { try? FileManager.default.removeItem(at: BundleFixture.templateRoot) }
        return Result { try BundleFixture(building: templateRoot) }
    }()

    private static let templateRoot = FileManager.default.temporaryDirectory
        .appendingPathComponent("cache-tests-bundle-\(UUID().uuidString)")
}

/// Runs `body`, then `cleanup`, also when `body` throws: a fixture that starts a server stops it
/// whatever the test does.
nonisolated(nonsending) func withCleanup<Value>(
    _ body: () async throws -> Value, cleanup: () async -> Void
) async throws -> Value {
    let value: Value
    do {
        value = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return value
}

extension CatalogCache.Configuration {
    /// The defaults, but every game shown before a territory is known: the simulator's and the
    /// bundles' games carry territory restrictions, which these suites are not about (an app licensed
    /// everywhere; `TerritoryAnswerTests` covers the default, conservative policy).
    static var showingEveryGame: Self {
        var configuration = Self.default
        configuration.unknownTerritoryPolicy = .showAll
        return configuration
    }
}
