@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
@_spi(CatalogTools) import ProviderAPI
import Synchronization

/// An upstream with the provider's 2–5 s latency on a virtual clock: it answers at once but
/// reports how long the real provider would have taken, counts calls and body bytes, can honour
/// or ignore ETags, and can answer bulk validations (the simulator's JSON, counted in bytes).
final class VirtualProvider: CatalogUpstream {
    private struct State {
        var calls = 0
        var notModified = 0
        var bytes = 0
        var random: UInt64 = 20_261_123
        var lastLatency: [String: Duration] = [:]

        /// Counts a call and draws its virtual latency.
        mutating func count(call key: String) {
            calls += 1
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            lastLatency[key] = .milliseconds(2000 + Int((random >> 33) % 3001))
        }
    }

    private let state = Mutex(State())
    let catalog: Catalog
    let honoursETags: Bool
    let validates: Bool

    init(catalog: Catalog, honoursETags: Bool, validates: Bool = false) {
        self.catalog = catalog
        self.honoursETags = honoursETags
        self.validates = validates
    }

    var calls: Int { state.withLock { $0.calls } }
    var notModified: Int { state.withLock { $0.notModified } }
    var bytes: Int { state.withLock { $0.bytes } }
    func latency(of key: String) -> Duration? { state.withLock { $0.lastLatency[key] } }

    private func answer<Value: Encodable & Sendable>(
        _ value: Value, key: String, etag: String?
    ) throws -> UpstreamResponse<Value> {
        let body = try CatalogCoding.encoder().encode(value)
        let tag = "\"" + String(FileNaming.hexSHA256(body).prefix(16)) + "\""
        return state.withLock { state in
            state.count(call: key)
            if honoursETags, etag == tag {
                state.notModified += 1
                return .notModified
            }
            state.bytes += body.count
            return .modified(value, etag: honoursETags ? tag : nil)
        }
    }

    func categories(edition: Edition, etag: String?) async throws -> UpstreamResponse<CategoryList> {
        try answer(catalog.editions[0].categories, key: "categories", etag: etag)
    }

    func gamesPage(
        edition: Edition, categoryId: String, offset: Int, limit: Int, etag: String?
    ) async throws
        -> UpstreamResponse<GamesPage>
    {
        let page = catalog.editions[0].pages.first { $0.categoryId == categoryId && $0.offset == offset }!
        return try answer(page, key: "\(categoryId)/\(offset)", etag: etag)
    }

    func validate(
        contentHashes: [SnapshotKey: String], pageSize: Int, inlineBytes: Int
    ) async throws -> [SnapshotKey: UpstreamVerdict]? {
        guard validates else { return nil }
        var verdicts: [SnapshotKey: UpstreamVerdict] = [:]
        var answer: [String: CacheValidation.Verdict] = [:]
        for (key, held) in contentHashes {
            let content: CacheValidation.Content
            switch key {
            case .categories: content = .categories(catalog.editions[0].categories)
            case .gamesPage(_, let categoryId, let offset):
                content = .gamesPage(
                    catalog.editions[0].pages.first { $0.categoryId == categoryId && $0.offset == offset }!)
            }
            let hash =
                CatalogRules.contentHashPrefix + FileNaming.hexSHA256(try CatalogCoding.encoder().encode(content))
            if hash == held {
                verdicts[key] = .current(etag: nil)
                answer[key.description] = CacheValidation.Verdict(invalidate: false)
            } else {
                answer[key.description] = CacheValidation.Verdict(invalidate: true, contentHash: hash, content: content)
                switch content {
                case .categories(let list): verdicts[key] = .changed(.categories(list), etag: nil)
                case .gamesPage(let page): verdicts[key] = .changed(.gamesPage(page), etag: nil)
                }
            }
        }
        let bytes = try CatalogCoding.encoder().encode(CacheValidation.Response(keys: answer)).count
        state.withLock { state in
            state.count(call: "validate")
            state.bytes += bytes
        }
        return verdicts
    }
}

/// Five app sessions across a day, each opening the lobby and two categories, for: no cache,
/// a TTL-only design (6 h TTL, no ETag), this cache with its defaults, and with bulk validation. Reports upstream
/// calls, body bytes and the time to first content per screen; returns each design's upstream calls
/// against the calls without a cache.
func simulatedDay() async throws -> [Result] {
    let work = benchRoot.appendingPathComponent("day-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: work) }
    let catalog = try sampleCatalog(games: 2000, categories: 20, in: work)
    let bundle = work.appendingPathComponent("bundle")
    try SnapshotWriter(logger: benchLogger).write(catalog, to: bundle)
    let categoryIds = catalog.editions[0].categories.items.map(\.id)
    let sessionHours = [0.0, 2.0, 5.0, 9.0, 14.0]
    // Favourites: the same two categories every session (a user's favourites).
    let favourites = sessionHours.map { _ in [categoryIds[0], categoryIds[1]] }
    var results = try await simulateDay(
        "favourites: the same 2 categories each session", screens: favourites,
        sessionHours: sessionHours, catalog: catalog, bundle: bundle, work: work)
    // Browsing: two categories drawn at random from 20 each session, mostly ones not seen yet.
    var random: UInt64 = 7
    let browsing: [[String]] = sessionHours.map { _ in
        (0..<2).map { _ in
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return categoryIds[Int((random >> 33) % UInt64(categoryIds.count))]
        }
    }
    print("")
    results += try await simulateDay(
        "browsing: 2 categories drawn at random from 20 each session", screens: browsing,
        sessionHours: sessionHours, catalog: catalog, bundle: bundle, work: work)
    // The player's own rows: recently played and favourites, with favourites changed each session.
    try await simulatedPlayerDay(catalog: catalog, work: work)
    print("")
    printTable(try await mutationShowBenchmark(catalog: catalog, work: work))
    return results
}

/// One simulated day of `screens` (the categories opened per session) for each design.
private func simulateDay(
    _ pattern: String, screens: [[String]], sessionHours: [Double], catalog: Catalog, bundle: URL, work: URL
) async throws -> [Result] {
    let edition = catalog.editions[0].edition

    struct Outcome {
        var name: String
        var calls: Int
        var notModified: Int
        var bytes: Int
        var firstContent: [Duration]
    }
    var outcomes: [Outcome] = []

    // (a) No cache: every screen waits for the provider.
    do {
        let provider = VirtualProvider(catalog: catalog, honoursETags: false)
        var times: [Duration] = []
        for categories in screens {
            _ = try await provider.categories(edition: edition, etag: nil)
            times.append(provider.latency(of: "categories")!)
            for id in categories {
                _ = try await provider.gamesPage(edition: edition, categoryId: id, offset: 0, limit: 10, etag: nil)
                times.append(provider.latency(of: "\(id)/0")!)
            }
        }
        outcomes.append(
            Outcome(name: "no cache", calls: provider.calls, notModified: 0, bytes: provider.bytes, firstContent: times)
        )
    }

    // (b) the TTL-only design and (c) this cache: a new cache per session (an app launch) on the
    // same directories; background refreshes finish before the next screen.
    let designs = [
        ("TTL only (6 h, no ETag)", false, false), ("CasinoCache defaults", true, false),
        ("CasinoCache + bulk validation (synchronize, 1 s batches)", true, true),
    ]
    for (name, honoursETags, validates) in designs {
        let provider = VirtualProvider(catalog: catalog, honoursETags: honoursETags, validates: validates)
        var configuration = CatalogCache.Configuration.default
        if validates { configuration.refreshBatchWindow = .seconds(1) }
        let clock = ManualClock(now: catalog.generatedAt.addingTimeInterval(86_400))
        let directory = work.appendingPathComponent("cache-\(UUID().uuidString)")
        var times: [Duration] = []
        var previousHour = 0.0
        for (session, hour) in sessionHours.enumerated() {
            clock.advance(by: .milliseconds(Int64((hour - previousHour) * 3_600_000)))
            previousHour = hour
            let cache = CatalogCache(
                configuration: configuration, upstream: provider, cacheDirectory: directory, bundleDirectory: bundle,
                clock: clock, logger: benchLogger)
            func screen(_ key: String, _ read: () async throws -> Bool) async throws {
                let start = ContinuousClock.now
                let fetched = try await read()
                times.append(fetched ? provider.latency(of: key)! : ContinuousClock.now - start)
                // The per-key designs refresh after each screen; the validating one gathers them.
                if !validates { await cache.waitForRefreshes() }
            }
            try await screen("categories") {
                if case .fresh(_, let metadata) = try await cache.categories(edition: edition),
                    metadata.tier == .upstream
                {
                    return true
                }
                return false
            }
            for id in screens[session] {
                try await screen("\(id)/0") {
                    if case .fresh(_, let metadata) = try await cache.gamesPage(edition: edition, categoryId: id),
                        metadata.tier == .upstream
                    {
                        return true
                    }
                    return false
                }
            }
            if validates {
                // Once the session's screens are up: one request validates what they showed and
                // what the disk holds.
                await cache.synchronize()
                await cache.waitForRefreshes()
            }
            await cache.flush()
        }
        outcomes.append(
            Outcome(
                name: name, calls: provider.calls, notModified: provider.notModified, bytes: provider.bytes,
                firstContent: times))
    }

    let baseline = Double(outcomes[0].calls)
    print(
        "A simulated day, \(pattern): 5 sessions (0 h, 2 h, 5 h, 9 h, 14 h), each the lobby + 2 categories; provider latency 2–5 s"
    )
    print("| design | upstream calls | vs no cache | 304s | body bytes | vs no cache | first content: median | worst |")
    print("|---|---|---|---|---|---|---|---|")
    for outcome in outcomes {
        let sorted = outcome.firstContent.sorted()
        let median = sorted[sorted.count / 2]
        print(
            "| \(outcome.name) | \(outcome.calls) | \(String(format: "%+.0f %%", (Double(outcome.calls) / baseline - 1) * 100)) | "
                + "\(outcome.notModified) | \(outcome.bytes) | \(String(format: "%.0f %%", Double(outcome.bytes) / Double(outcomes[0].bytes) * 100)) | "
                + "\(format(nanoseconds(median))) | \(format(nanoseconds(sorted.last!))) |")
    }
    print(
        "(time to first content counts the cache's real time; a screen that had to wait counts the provider's virtual latency)"
    )
    return outcomes.map { outcome in
        let calls = Double(outcome.calls)
        return Result(
            operation: "simulated day: upstream calls, \(pattern.prefix { $0 != ":" })", size: outcome.name,
            medianNanoseconds: calls, p99Nanoseconds: calls, floor: "no cache", floorMedianNanoseconds: baseline,
            unit: "calls")
    }
}
