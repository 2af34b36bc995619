import CasinoCache
import CasinoCacheTesting
@_spi(Internals) import CasinoCatalog
import CatalogPipeline
import Foundation
import Logging
import NIOConcurrencyHelpers

let silentLogger = Logger(label: "cache-tests") { _ in SwiftLogNoOpLogHandler() }
let english = try! Edition(id: "en-iPhone")
let french = try! Edition(id: "fr-iPhone")

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

    var generatedAt: Date { catalog.generatedAt }

    func categories(_ edition: Edition = english) -> CategoryList {
        catalog.editions.first { $0.edition == edition }!.categories
    }

    func page(_ categoryId: String, offset: Int = 0, edition: Edition = english) -> GamesPage {
        catalog.editions.first { $0.edition == edition }!.pages.first { $0.categoryId == categoryId && $0.offset == offset }!
    }

    var firstCategoryId: String { categories().items[0].id }
}

/// An upstream that serves a catalogue from memory and counts its calls: the one fake the
/// scenario tests use (ProviderHTTPUpstreamTests cover real HTTP). Knobs: fail, hang, change content,
/// answer 304 for a matching ETag, answer a wrong item count.
final class CountingUpstream: CatalogUpstream {
    struct Knobs {
        var isOffline = false
        var hangs = false
        var version = 0
        var returnsWrongCount = false
        var usesETags = true
    }

    private struct State {
        var knobs = Knobs()
        var callCount = 0
        var gate: [CheckedContinuation<Void, Never>]? = nil
    }

    private let state = NIOLockedValueBox(State())
    let catalog: Catalog

    init(catalog: Catalog) {
        self.catalog = catalog
    }

    var calls: Int { state.withLockedValue { $0.callCount } }

    func set(_ change: (inout Knobs) -> Void) { state.withLockedValue { change(&$0.knobs) } }

    /// Makes every call wait until ``open()``.
    func close() { state.withLockedValue { $0.gate = [] } }

    /// Lets waiting calls through.
    func open() {
        let waiting = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            defer { state.gate = nil }
            return state.gate ?? []
        }
        for continuation in waiting { continuation.resume() }
    }

    private func enter() async throws -> Knobs {
        let current = state.withLockedValue { state -> Knobs in
            state.callCount += 1
            return state.knobs
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let mustWait = state.withLockedValue { state -> Bool in
                if state.gate != nil { state.gate!.append(continuation); return true }
                return false
            }
            if !mustWait { continuation.resume() }
        }
        if current.hangs {
            try await Task.sleep(for: .seconds(3600))  // until cancelled by the cache's timeout
        }
        if current.isOffline { throw URLError(.notConnectedToInternet) }
        return current
    }

    func categories(edition: Edition, etag: String?) async throws -> UpstreamResponse<CategoryList> {
        let knobs = try await enter()
        var list = catalog.editions.first { $0.edition == edition }!.categories
        if knobs.version > 0 { list.items[0].name += " v\(knobs.version)" }
        let tag = "\"categories-\(edition)-v\(knobs.version)\""
        if knobs.usesETags, etag == tag { return .notModified }
        return .modified(list, etag: knobs.usesETags ? tag : nil)
    }

    func gamesPage(edition: Edition, categoryId: String, offset: Int, limit: Int, etag: String?) async throws
        -> UpstreamResponse<GamesPage>
    {
        let knobs = try await enter()
        let pages = catalog.editions.first { $0.edition == edition }!.pages
        guard var page = pages.first(where: { $0.categoryId == categoryId && $0.offset == offset }) else {
            throw URLError(.fileDoesNotExist)
        }
        if knobs.version > 0 { page.items[0].name += " v\(knobs.version)" }
        if knobs.returnsWrongCount { page.count += 1 }
        let tag = "\"page-\(edition)-\(categoryId)-\(offset)-v\(knobs.version)\""
        if knobs.usesETags, etag == tag { return .notModified }
        return .modified(page, etag: knobs.usesETags ? tag : nil)
    }
}

/// Collects what arrives on an update stream.
final class UpdateCollector: Sendable {
    private let received = NIOLockedValueBox<[CacheUpdate]>([])
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<CacheUpdate>) {
        let received = self.received
        task = Task {
            for await update in stream { received.withLockedValue { $0.append(update) } }
        }
    }

    deinit { task.cancel() }

    var updates: [CacheUpdate] { received.withLockedValue { $0 } }

    var contentUpdates: [(CacheKey, CatalogContent, ContentChanges)] {
        updates.compactMap { update in
            if case .updated(let content, let changes) = update.event { return (update.key, content, changes) }
            return nil
        }
    }

    var failures: [(CacheKey, CacheError, Int)] {
        updates.compactMap { update in
            if case .refreshFailed(let error, let attempt, _) = update.event { return (update.key, error, attempt) }
            return nil
        }
    }

    /// Waits (bounded) until `count` updates arrived: the stream delivers on another task.
    func wait(for count: Int) async {
        await eventually { self.updates.count >= count }
    }
}

/// What every cache test starts from: a temp directory, a real bundle built by the pipeline, an
/// upstream serving the same catalogue, and a manual clock a day after the bundle was made.
protocol CacheTestEnvironment {
    var directory: TemporaryDirectory { get }
    var bundle: BundleFixture { get }
    var upstream: CountingUpstream { get }
    var clock: ManualClock { get }
}

extension CacheTestEnvironment {
    /// A cache as an app makes it at launch: the same directories every time.
    func makeCache(
        _ configuration: CatalogCache.Configuration = .default, bundled: Bool = true, disk: Bool = true
    ) -> CatalogCache {
        CatalogCache(
            configuration: configuration, upstream: upstream, cacheDirectory: disk ? directory.child("cache") : nil,
            bundleDirectory: bundled ? bundle.directory : nil, clock: clock, logger: silentLogger)
    }

    /// The four parts, made fresh.
    static func makeParts() throws -> (TemporaryDirectory, BundleFixture, CountingUpstream, ManualClock) {
        let directory = try TemporaryDirectory()
        let bundle = try BundleFixture(in: directory)
        return (
            directory, bundle, CountingUpstream(catalog: bundle.catalog),
            ManualClock(now: bundle.generatedAt.addingTimeInterval(86_400))
        )
    }
}

/// Runs `body`, then `cleanup`, also when `body` throws: a fixture that starts a server stops it
/// whatever the test does.
nonisolated(nonsending) func withCleanup<Value>(
    _ cleanup: () async -> Void, _ body: () async throws -> Value
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

/// Polls `condition` every 2 ms until it holds or `timeout` passes: generous, because tests run in
/// parallel on 2 busy cores, and bounded, so a test never hangs.
nonisolated(nonsending) func eventually(timeout: Duration = .seconds(60), _ condition: () -> Bool) async {
    let deadline = ContinuousClock.now + timeout
    while !condition(), ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(2))
    }
}
