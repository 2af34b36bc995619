@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
@_spi(CatalogTools) import XMLGameFeed

/// Loops one hot path for `perf record`: `cache-bench profile-hit`.
@MainActor func profileMemoryHit() async throws {
    let edition = try Edition(id: "en-iPhone")
    let page = GamesPage(categoryId: "SLOTS", offset: 0, limit: 10, total: 10, items: [])
    struct Up: CatalogUpstream {
        let page: GamesPage
        func categories(edition: Edition, etag: String?) async throws -> UpstreamResponse<CategoryList> { .notModified }
        func gamesPage(
            edition: Edition, categoryId: String, offset: Int, limit: Int, etag: String?
        ) async throws -> UpstreamResponse<GamesPage> {
            .modified(page, etag: nil)
        }
    }
    let cache = CatalogCache(upstream: Up(page: page), cacheDirectory: nil, bundleDirectory: nil, logger: benchLogger)
    _ = try await cache.gamesPage(edition: edition, categoryId: "SLOTS")
    var sink = 0
    let start = clock.now
    for _ in 0..<20_000_000 { sink &+= cache.cachedGamesPage(edition: edition, categoryId: "SLOTS").value?.count ?? 0 }
    print("profile-hit: \(nanoseconds(clock.now - start) / 20_000_000) ns per hit, sink \(sink)")
    let asyncStart = clock.now
    for _ in 0..<20_000_000 {
        sink &+= try await cache.gamesPage(edition: edition, categoryId: "SLOTS").value?.count ?? 0
    }
    print("profile-hit async: \(nanoseconds(clock.now - asyncStart) / 20_000_000) ns per hit, sink \(sink)")
}

/// Loops a disk hit of a 10-game page for `perf record`: `cache-bench profile-disk`.
func profileDiskHit(work: URL) async throws {
    let catalog = try sampleCatalog(games: 200, categories: 2, in: work)
    let edition = catalog.editions[0].edition
    let page = catalog.editions[0].pages[0]
    let disk = DiskTier(configuration: .init(directory: work.appendingPathComponent("disk")), logger: benchLogger)
    let key = CacheKey.gamesPage(edition, categoryId: page.categoryId, offset: 0)
    disk.store(CacheEntry(key: key, content: .gamesPage(page), storedAt: Date()))
    await disk.flush()
    var sink = 0
    let start = clock.now
    for _ in 0..<20_000 { sink &+= disk.entry(for: key) == nil ? 0 : 1 }
    print("profile-disk: \(nanoseconds(clock.now - start) / 20_000) ns per hit, sink \(sink)")
}

/// Loops a cold start (new cache on a bundle: categories + first page) for `perf record`:
/// `cache-bench profile-cold`.
func profileColdStart(work: URL) throws {
    let catalog = try sampleCatalog(games: 2000, categories: 20, in: work)
    let edition = catalog.editions[0].edition
    let bundle = work.appendingPathComponent("out")
    _ = try SnapshotWriter(logger: benchLogger).write(catalog, to: bundle)
    let categoryId = catalog.editions[0].pages[0].categoryId
    let upstream = ImmediateUpstream(catalog: catalog)
    var sink = 0
    let start = clock.now
    for _ in 0..<2_000 {
        let cache = CatalogCache(upstream: upstream, cacheDirectory: nil, bundleDirectory: bundle, logger: benchLogger)
        sink &+= cache.cachedCategories(edition: edition).value?.items.count ?? 0
        sink &+= cache.cachedGamesPage(edition: edition, categoryId: categoryId).value?.count ?? 0
    }
    print("profile-cold: \(nanoseconds(clock.now - start) / 2_000) ns per cold start, sink \(sink)")
}

/// Normalize + snapshot of 10,000 generated games (`PROFILE_GAMES`), every page, for `perf record`:
/// `cache-bench profile-pipeline`.
func profilePipeline(work: URL) throws {
    let recording = work.appendingPathComponent("recording-pipeline")
    let games = Int(ProcessInfo.processInfo.environment["PROFILE_GAMES"] ?? "") ?? 10_000
    var sample = SampleRecording(games: games, categories: 20)
    sample.editions = [try Edition(id: "en-iPhone")]
    try sample.write(to: recording)
    let configuration = PipelineConfiguration.everyPage
    let writer = SnapshotWriter(limits: configuration.snapshotLimits, logger: benchLogger)
    for run in 0..<(games > 10_000 ? 1 : 3) {
        let start = clock.now
        let source = try RecordedProviderSource(directory: recording, limits: configuration.limits)
        let catalog = try Normalizer(configuration: configuration, logger: benchLogger).normalize(source).catalog
        let normalized = clock.now
        try writer.write(catalog, to: work.appendingPathComponent("out-pipeline-\(run)"))
        let written = clock.now
        _ = try writer.render(catalog)
        let rendered = clock.now
        _ = SnapshotValidator(limits: configuration.snapshotLimits).validate(
            directory: work.appendingPathComponent("out-pipeline-\(run)"))
        print(
            "profile-pipeline: normalize \(format(nanoseconds(normalized - start))), write \(format(nanoseconds(written - normalized)))"
                + " (of which render alone \(format(nanoseconds(rendered - written))), validate alone \(format(nanoseconds(clock.now - rendered))))"
        )
    }
}

/// Reads a 10,000-game XML feed 20 times for `perf record`: `cache-bench profile-xml`.
func profileXMLFeed(work: URL) throws {
    let feed = work.appendingPathComponent("feed-profile.xml")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    try makeFeed(games: 10_000).write(to: feed)
    let start = clock.now
    for _ in 0..<20 { _ = try XMLFeedReader.read(contentsOf: feed) }
    print("profile-xml: \(format(nanoseconds(clock.now - start) / 20)) per read")
}

/// Stores and flushes a 10-game page 5,000 times for `perf record`: `cache-bench profile-store`.
func profileStore(work: URL) async throws {
    let edition = try Edition(id: "en-iPhone")
    let items = (0..<10).map { index in
        Game(
            id: "g\(index)", name: "Game \(index)", slug: "game-\(index)", launchUrl: "https://l.example.com/\(index)",
            thumbnail: "https://t.example.com/\(index).jpg")
    }
    let page = GamesPage(categoryId: "SLOTS", offset: 0, limit: 10, total: 10, items: items)
    let disk = DiskTier(configuration: .init(directory: work.appendingPathComponent("store")), logger: benchLogger)
    let entry = CacheEntry(
        key: .gamesPage(edition, categoryId: "SLOTS", offset: 0), content: .gamesPage(page), storedAt: Date())
    let start = clock.now
    for _ in 0..<5_000 {
        disk.store(entry)
        await disk.flush()
    }
    print("profile-store: \(format(nanoseconds(clock.now - start) / 5_000)) per store + flush")
}

/// Every page of every edition from an XML feed of `PROFILE_GAMES` games (40,000 by default) and a
/// tenth as many categories, the shape of `xml-scale`, in a loop for `perf record`:
/// `cache-bench profile-xml-source`. Prints the median of `PROFILE_LOOPS` runs (4 by default) of each
/// phase (freeing is the source going out of scope), and of reading the feed alone (as many runs, before the others).
func profileXMLFeedSource(work: URL) throws {
    let environment = ProcessInfo.processInfo.environment
    let games = Int(environment["PROFILE_GAMES"] ?? "") ?? 40_000
    let loops = Int(environment["PROFILE_LOOPS"] ?? "") ?? 4
    let feed = work.appendingPathComponent("feed-profile-source.xml")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    try makeFeed(games: games, categories: games / 10).write(to: feed)
    let limits = PipelineConfiguration.everyPage.limits
    let readerLimits = XMLFeedSource.readerLimits(limits)
    let parse = try measure(samples: loops, warmup: 0) {
        _ = try XMLFeedReader.read(contentsOf: feed, limits: readerLimits)
    }
    var initTimes: [Double] = []
    var editionTimes: [Double] = []
    var pageTimes: [Double] = []
    var freeTimes: [Double] = []
    var totals: [Double] = []
    var records = 0
    for _ in 0..<loops {
        let start = clock.now
        var paged = start
        do {
            let source = try XMLFeedSource(file: feed, limits: limits)
            let initialized = clock.now
            let list = try source.editions()
            let listed = clock.now
            for edition in list {
                for category in edition.categories {
                    for page in category.pages { records += try source.page(page).records.count }
                }
            }
            paged = clock.now
            withExtendedLifetime(source) {}  // freed at the end of the scope, not after its last read
            initTimes.append(nanoseconds(initialized - start))
            editionTimes.append(nanoseconds(listed - initialized))
            pageTimes.append(nanoseconds(paged - listed))
        }
        let freed = clock.now
        freeTimes.append(nanoseconds(freed - paged))
        totals.append(nanoseconds(freed - start))
    }
    func median(_ values: [Double]) -> String { format(values.sorted()[values.count / 2]) }
    print(
        "profile-xml-source, \(games) games: read alone \(format(parse.median)); source init \(median(initTimes)),"
            + " editions \(median(editionTimes)), pages \(median(pageTimes)), freeing \(median(freeTimes)), total \(median(totals))"
            + " (\(records / loops) records per run)")
}

/// Relaunches a cache on `PROFILE_PAGES` pages on disk (100 by default) and synchronizes it,
/// `PROFILE_LOOPS` times (2,000 by default), for `perf record`: `cache-bench profile-sync`. Prints
/// the median of each phase: the new cache, `synchronize()`, and the flush after it.
func profileSynchronize(work: URL) async throws {
    let environment = ProcessInfo.processInfo.environment
    let pages = Int(environment["PROFILE_PAGES"] ?? "") ?? 100
    let loops = Int(environment["PROFILE_LOOPS"] ?? "") ?? 2_000
    let catalog = try sampleCatalog(games: 2000, categories: 20, in: work.appendingPathComponent("sync-catalog"))
    let fixture = try await SynchronizeFixture(
        pages: pages, items: catalog.editions[0].pages.flatMap(\.items),
        directory: work.appendingPathComponent("profile-sync"))
    var phases: [[Double]] = [[], [], []]
    for _ in 0..<loops {
        let start = clock.now
        let cache = CatalogCache(
            upstream: fixture.upstream, cacheDirectory: fixture.directory, bundleDirectory: nil, logger: benchLogger)
        let created = clock.now
        let report = await cache.synchronize()
        let synchronized = clock.now
        await cache.flush()
        guard report.current == pages else { throw BenchFailure("synchronize found \(report.current) of \(pages)") }
        for (phase, duration) in zip(
            phases.indices, [created - start, synchronized - created, clock.now - synchronized])
        {
            phases[phase].append(nanoseconds(duration))
        }
    }
    func median(_ values: [Double]) -> String { format(values.sorted()[values.count / 2]) }
    print(
        "profile-sync, \(pages) pages: init \(median(phases[0])), synchronize \(median(phases[1])),"
            + " flush \(median(phases[2]))")
}

/// Misses to an upstream that answers at once, in a loop for `perf record`: `cache-bench profile-miss`.
@MainActor func profileMiss(work: URL) async throws {
    let catalog = try sampleCatalog(games: 2000, categories: 20, in: work.appendingPathComponent("miss"))
    let edition = catalog.editions[0].edition
    let key = CacheKey.gamesPage(edition, categoryId: catalog.editions[0].pages[0].categoryId, offset: 0)
    let cache = CatalogCache(
        upstream: ImmediateUpstream(catalog: catalog), cacheDirectory: nil, bundleDirectory: nil, logger: benchLogger)
    var sink = 0
    let start = clock.now
    for _ in 0..<20_000 {
        cache.invalidate(key)
        sink &+= try await cache.content(for: key).value?.ids.count ?? 0
    }
    print("profile-miss: \(format(nanoseconds(clock.now - start) / 20_000)) per miss (\(sink))")
}

/// Loops the schema check of a 10-game page for `perf record`: `cache-bench profile-check`.
func profileCheck(work: URL) throws {
    let catalog = try sampleCatalog(games: 2000, categories: 20, in: work.appendingPathComponent("check"))
    let page = catalog.editions[0].pages[0]
    var sink = 0
    let start = clock.now
    for _ in 0..<200_000 { sink &+= page.violations().count }
    let perPage = format(nanoseconds(clock.now - start) / 200_000)
    print("profile-check: \(perPage) per page of \(page.items.count) (\(sink))")
}

/// The report of a relaunched cache with `PROFILE_PAGES` pages on disk (3,000 by default), against a
/// plain listing of its directory: `cache-bench profile-inspection`. Prints the medians of five runs
/// of `inspection()`, of `CacheDirectoryReader` on the same directory, and of the listing, and the
/// report's JSON size.
func profileInspection(work: URL) async throws {
    let pages = Int(ProcessInfo.processInfo.environment["PROFILE_PAGES"] ?? "") ?? 3_000
    let catalog = try sampleCatalog(games: 2000, categories: 20, in: work.appendingPathComponent("sync-catalog"))
    let fixture = try await SynchronizeFixture(
        pages: pages, items: catalog.editions[0].pages.flatMap(\.items),
        directory: work.appendingPathComponent("profile-inspection"))
    var (inspections, offline, listings) = ([Double](), [Double](), [Double]())
    var bytes = 0
    for _ in 0..<5 {
        let cache = CatalogCache(
            upstream: fixture.upstream, cacheDirectory: fixture.directory, bundleDirectory: nil, logger: benchLogger)
        let start = clock.now
        let report = await cache.inspection()
        inspections.append(nanoseconds(clock.now - start))
        guard report.entries.count == pages else { throw BenchFailure("the report holds \(report.entries.count)") }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        bytes = try encoder.encode(report).count
        let read = clock.now
        let (directoryReport, _) = try CacheDirectoryReader.inspect(fixture.directory, bundle: nil, now: Date())
        offline.append(nanoseconds(clock.now - read))
        guard directoryReport.entries.count == pages else {
            throw BenchFailure("offline: \(directoryReport.entries.count)")
        }
        let list = clock.now
        let names = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path)
        listings.append(nanoseconds(clock.now - list))
        guard names.count >= pages else { throw BenchFailure("listed \(names.count)") }
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    print(
        "profile-inspection, \(pages) entries: inspection() \(format(median(inspections))), offline reader "
            + "\(format(median(offline))), directory listing \(format(median(listings))) "
            + "(\(String(format: "%.0f", median(inspections) / median(listings)))×); report \(bytes) bytes of JSON")
}
