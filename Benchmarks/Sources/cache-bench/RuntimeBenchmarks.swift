@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
@_spi(CatalogTools) import Gzip
import Logging
import Synchronization

let benchLogger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }

/// An upstream that answers at once from memory: the cache's own overhead shows.
struct ImmediateUpstream: CatalogUpstream {
    let catalog: Catalog
    func categories(edition: Edition, etag: String?) async throws -> UpstreamResponse<CategoryList> {
        .modified(catalog.editions[0].categories, etag: nil)
    }
    func gamesPage(
        edition: Edition, categoryId: String, offset: Int, limit: Int, etag: String?
    ) async throws
        -> UpstreamResponse<GamesPage>
    {
        .modified(catalog.editions[0].pages.first { $0.categoryId == categoryId && $0.offset == offset }!, etag: nil)
    }
}

/// An upstream that counts calls and answers after a short delay.
final class SlowUpstream: CatalogUpstream {
    let calls = Atomic<Int>(0)
    let catalog: Catalog
    init(catalog: Catalog) { self.catalog = catalog }
    func categories(edition: Edition, etag: String?) async throws -> UpstreamResponse<CategoryList> {
        calls.add(1, ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(50))
        return .modified(catalog.editions[0].categories, etag: "\"v2\"")
    }
    func gamesPage(
        edition: Edition, categoryId: String, offset: Int, limit: Int, etag: String?
    ) async throws
        -> UpstreamResponse<GamesPage>
    {
        calls.add(1, ordering: .relaxed)
        return .notModified
    }
}

/// The mirror of a disk tier file's JSON, for the disk floor.
struct DiskFileMirror: Codable {
    var key: String
    var schemaVersion: Int
    var cacheVersion: Int
    var storedAt: Date
    var etag: String?
    var content: CatalogContent
}

/// Reads a disk tier file, inflates what it holds and decodes it, without any check: the disk hit's
/// floor. A header first (the current format: the page alone is compressed, after an empty line),
/// else one gzip'd object (the first format, for a comparison with an older build).
func readGunzipDecode(_ file: URL, decoder: JSONDecoder) throws -> Int {
    let data = try Data(contentsOf: file)
    guard data.first != 0x1F, let end = data.firstRange(of: Data("\n\n".utf8)) else {
        return try decoder.decode(DiskFileMirror.self, from: Gzip.decompress(data, limit: 16 << 20)).key.count
    }
    return try decoder.decode(GamesPage.self, from: Gzip.decompress(data[end.upperBound...], limit: 16 << 20))
        .items.count
}

/// Holds an answer and returns it from an async call: the part of an async read that is the call.
final class HeldAnswer: Sendable {
    let held: CacheResult<GamesPage>
    init(_ held: CacheResult<GamesPage>) { self.held = held }
    @inline(never) nonisolated(nonsending) func answer() async -> CacheResult<GamesPage> { held }
}

/// Runs `body` on two threads at once, 20,000 times each, per sample; nanoseconds per call
/// (wall time of the pair divided by one thread's calls, so a perfect scaling equals 1 thread).
func twoThreads(_ body: @escaping @Sendable () -> Int) async -> Samples {
    var values: [Double] = []
    var sink = 0
    for _ in 0..<30 {
        let start = clock.now
        sink &+= await withTaskGroup(of: Int.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    var local = 0
                    for _ in 0..<20_000 { local &+= body() }
                    return local
                }
            }
            var total = 0
            for await value in group { total &+= value }
            return total
        }
        values.append(nanoseconds(clock.now - start) / 20_000)
    }
    if sink == 42 { print("") }
    return Samples(values: values)
}

/// The runtime's hot paths against their floors; `memoryOnly` stops after the memory hit rows.
@MainActor func runtimeBenchmarks(work: URL, memoryOnly: Bool = false) async throws -> [Result] {
    let logger = benchLogger
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)

    // A bundle built by the pipeline from a synthetic recording: 2,000 games, 20 categories.
    var catalog = try sampleCatalog(games: 2000, categories: 20, in: work)
    // The first page's games restricted nowhere: the hit rows measure what every hit cost before
    // territories; the row of a page with restricted games takes another page.
    for index in catalog.editions[0].pages[0].items.indices {
        catalog.editions[0].pages[0].items[index].restrictedTerritories = []
    }
    let edition = catalog.editions[0].edition
    let bundleDirectory = work.appendingPathComponent("out")
    let manifest = try SnapshotWriter(logger: logger).write(catalog, to: bundleDirectory)
    let pages = catalog.editions[0].pages
    let firstPage = pages[0]
    let categoryId = firstPage.categoryId

    var results: [Result] = []
    let upstream = ImmediateUpstream(catalog: catalog)

    // 1. Memory hit, synchronous and async, against a bare Mutex<[String: GamesPage]>, and the
    //    plain LRU an app might write instead (its get moves the entry to the front), as a peer. A page
    //    without territory restrictions: what every hit cost before territories (a page with them is
    //    the row after).
    let shownPage = pages.first { $0.items.allSatisfy(\.restrictedTerritories.isEmpty) } ?? firstPage
    let shownCategoryId = shownPage.categoryId
    do {
        let cache = CatalogCache(upstream: upstream, cacheDirectory: nil, bundleDirectory: nil, logger: logger)
        _ = try await cache.gamesPage(edition: edition, categoryId: shownCategoryId)
        let key = "global/en-iPhone/games/\(shownCategoryId)/0"
        let floor = Mutex<[String: GamesPage]>([key: shownPage])
        let lru = PlainLRU<String, GamesPage>(limit: 500)
        lru.setValue(shownPage, for: key)
        var sink = 0
        let (floorSamples, sync) = measurePair(batch: 2000) {
            sink &+= floor.withLock { $0[key]?.count ?? 0 }
        } operation: {
            sink &+= cache.cachedGamesPage(edition: edition, categoryId: shownCategoryId).value?.count ?? 0
        }
        let (lruFloor, plain) = measurePair(batch: 2000) {
            sink &+= floor.withLock { $0[key]?.count ?? 0 }
        } operation: {
            sink &+= lru.value(for: key)?.count ?? 0
        }
        let (asyncFloor, async) = try await measurePairAsync(batch: 500) {
            sink &+= floor.withLock { $0[key]?.count ?? 0 }
        } operation: {
            sink &+= try await cache.gamesPage(edition: edition, categoryId: shownCategoryId).value?.count ?? 0
        }
        // The hit against the LRU directly, interleaved: below 1× is a hit cheaper than the LRU's get.
        let (lruPeer, againstLRU) = measurePair(batch: 2000) {
            sink &+= lru.value(for: key)?.count ?? 0
        } operation: {
            sink &+= cache.cachedGamesPage(edition: edition, categoryId: shownCategoryId).value?.count ?? 0
        }
        // What any async read pays before doing anything: a call returning a held answer.
        let held = HeldAnswer(cache.cachedGamesPage(edition: edition, categoryId: shownCategoryId))
        let (callFloor, asyncCall) = await measurePairAsync(batch: 500) {
            sink &+= floor.withLock { $0[key]?.count ?? 0 }
        } operation: {
            sink &+= await held.answer().value?.count ?? 0
        }
        let cacheKey = CacheKey.gamesPage(edition, categoryId: shownCategoryId, offset: 0)
        let tierGet = measure(batch: 2000) { sink &+= cache.memory.entry(for: cacheKey) == nil ? 0 : 1 }
        let keyed = measure(batch: 2000) { sink &+= cache.cachedContent(for: cacheKey).value == nil ? 0 : 1 }
        results.append(
            Result(
                operation: "memory tier get (CacheKey)", size: "10-game page", medianNanoseconds: tierGet.median,
                p99Nanoseconds: tierGet.p99, floor: "Mutex<[String: V]> get",
                floorMedianNanoseconds: floorSamples.median))
        results.append(
            Result(
                operation: "cachedContent(for:) hit", size: "10-game page", medianNanoseconds: keyed.median,
                p99Nanoseconds: keyed.p99, floor: "Mutex<[String: V]> get", floorMedianNanoseconds: floorSamples.median)
        )
        results.append(
            Result(
                operation: "memory hit (sync)", size: "10-game page", medianNanoseconds: sync.median,
                p99Nanoseconds: sync.p99, floor: "Mutex<[String: V]> get", floorMedianNanoseconds: floorSamples.median))
        results.append(
            Result(
                operation: "memory hit (sync), against the LRU", size: "10-game page",
                medianNanoseconds: againstLRU.median,
                p99Nanoseconds: againstLRU.p99, floor: "peer: plain LRU get", floorMedianNanoseconds: lruPeer.median))
        results.append(
            Result(
                operation: "memory hit (async)", size: "10-game page", medianNanoseconds: async.median,
                p99Nanoseconds: async.p99, floor: "Mutex<[String: V]> get", floorMedianNanoseconds: asyncFloor.median))
        results.append(
            Result(
                operation: "async call returning a held answer (no lookup)", size: "10-game page",
                medianNanoseconds: asyncCall.median, p99Nanoseconds: asyncCall.p99, floor: "Mutex<[String: V]> get",
                floorMedianNanoseconds: callFloor.median))
        results.append(
            Result(
                operation: "peer: plain LRU get (NSLock + dictionary + list)", size: "10-game page",
                medianNanoseconds: plain.median, p99Nanoseconds: plain.p99, floor: "Mutex<[String: V]> get",
                floorMedianNanoseconds: lruFloor.median))

        // Two threads on one lock.
        let twoFloor = await twoThreads { floor.withLock { $0[key]?.count ?? 0 } }
        let twoCache = await twoThreads {
            cache.cachedGamesPage(edition: edition, categoryId: shownCategoryId).value?.count ?? 0
        }
        results.append(
            Result(
                operation: "memory hit (sync), 2 threads", size: "10-game page", medianNanoseconds: twoCache.median,
                p99Nanoseconds: twoCache.p99, floor: "Mutex get, 2 threads", floorMedianNanoseconds: twoFloor.median))

        // A page with restricted games, a territory set: filtered on its first answer, kept since.
        if let restricted = pages.first(where: { $0.items.contains { !$0.restrictedTerritories.isEmpty } }) {
            cache.setTerritory(Territory("GB"))
            _ = try await cache.gamesPage(edition: edition, categoryId: restricted.categoryId)
            let (restrictedFloor, filtered) = measurePair(batch: 2000) {
                sink &+= floor.withLock { $0[key]?.count ?? 0 }
            } operation: {
                sink &+= cache.cachedGamesPage(edition: edition, categoryId: restricted.categoryId).value?.count ?? 0
            }
            results.append(
                Result(
                    operation: "memory hit (sync), restricted games, territory set", size: "10-game page",
                    medianNanoseconds: filtered.median, p99Nanoseconds: filtered.p99, floor: "Mutex<[String: V]> get",
                    floorMedianNanoseconds: restrictedFloor.median))
        }
        // And a 1,000-game withdrawal list naming one game of the shown page: filtered from then on.
        if let withdrawnId = cache.cachedGamesPage(edition: edition, categoryId: shownCategoryId).value?.items.last?.id
        {
            try cache.applyWithdrawals(
                WithdrawalList(
                    sequence: 1,
                    games: (1..<1000).map { Withdrawal(id: "withdrawn-\($0)") } + [Withdrawal(id: withdrawnId)]))
            let (withdrawnFloor, withdrawn) = measurePair(batch: 2000) {
                sink &+= floor.withLock { $0[key]?.count ?? 0 }
            } operation: {
                sink &+= cache.cachedGamesPage(edition: edition, categoryId: shownCategoryId).value?.count ?? 0
            }
            results.append(
                Result(
                    operation: "memory hit (sync), territory set, 1,000 withdrawals (one on the page)",
                    size: "10-game page", medianNanoseconds: withdrawn.median, p99Nanoseconds: withdrawn.p99,
                    floor: "Mutex<[String: V]> get", floorMedianNanoseconds: withdrawnFloor.median))
        }
        if sink == 42 { print("") }
    }
    if memoryOnly { return results }

    // 2. Disk hit of a 10-game and a 50-game page, against reading, gunzipping and decoding the same file.
    for games in [10, 50] {
        let directory = work.appendingPathComponent("disk-\(games)")
        let disk = DiskTier(configuration: .init(directory: directory), logger: logger)
        let items = pages.flatMap(\.items).prefix(games)
        let page = GamesPage(categoryId: "BENCH", offset: 0, limit: games, total: games, items: Array(items))
        let key = CacheKey.gamesPage(edition, categoryId: "BENCH", offset: 0)
        disk.store(CacheEntry(key: key, content: .gamesPage(page), storedAt: Date()))
        await disk.flush()
        let file = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .first { $0.lastPathComponent.hasSuffix(".json.gz") }!
        let bytes = try Data(contentsOf: file)
        let decoder = CatalogCoding.decoder()
        var sink = 0
        let (floor, hit) = try measurePair(samples: 300) {
            sink &+= try readGunzipDecode(file, decoder: decoder)
        } operation: {
            sink &+= disk.entry(for: key)?.content.ids.count ?? 0
        }
        results.append(
            Result(
                operation: "disk hit", size: "\(games)-game page, \(bytes.count) B gzip", medianNanoseconds: hit.median,
                p99Nanoseconds: hit.p99, floor: "read + gunzip + decode", floorMedianNanoseconds: floor.median))
        if sink == 42 { print("") }
    }

    // 3. Bundled first content at cold start: a new cache, its categories and one page.
    do {
        let categoriesEntry = manifest.files.first { $0.kind == .categories }!
        let pageEntry = manifest.files.first { $0.key == .gamesPage(edition, categoryId: categoryId, offset: 0) }!
        let decoder = CatalogCoding.decoder()
        var sink = 0
        /// A launch: a new cache on the bundle (saving into `directory`), its categories and first page.
        func launch(_ directory: URL?) {
            let cache = CatalogCache(
                upstream: upstream, cacheDirectory: directory, bundleDirectory: bundleDirectory, logger: logger)
            sink &+= cache.cachedCategories(edition: edition).value?.items.count ?? 0
            sink &+= cache.cachedGamesPage(edition: edition, categoryId: categoryId).value?.count ?? 0
        }
        let (floor, cold) = try measurePair(samples: 200) {
            let manifestData = try Data(contentsOf: bundleDirectory.appendingPathComponent(Manifest.fileName))
            sink &+= try decoder.decode(Manifest.self, from: manifestData).files.count
            let categories = try Gzip.decompress(
                try Data(contentsOf: bundleDirectory.appendingPathComponent(categoriesEntry.path)), limit: 16 << 20)
            sink &+= try decoder.decode(Snapshot<CategoryList>.self, from: categories).payload.items.count
            let page = try Gzip.decompress(
                try Data(contentsOf: bundleDirectory.appendingPathComponent(pageEntry.path)), limit: 16 << 20)
            sink &+= try decoder.decode(Snapshot<GamesPage>.self, from: page).payload.count
        } operation: {
            launch(nil)
        }
        results.append(
            Result(
                operation: "bundled first content, cold start",
                size: "manifest (\(manifest.files.count) files) + categories + 10-game page",
                medianNanoseconds: cold.median, p99Nanoseconds: cold.p99, floor: "read + gunzip + decode the 3 files",
                floorMedianNanoseconds: floor.median))

        // The same with a cache directory holding what an earlier launch saved, a territory and a
        // 1,000-game withdrawal list (read before the first answer, which must honour them), against
        // an empty cache directory: what the saved list costs a launch.
        let (empty, saved) = (work.appendingPathComponent("launch-empty"), work.appendingPathComponent("launch-saved"))
        do {
            let cache = CatalogCache(
                upstream: upstream, cacheDirectory: saved, bundleDirectory: bundleDirectory, logger: logger)
            cache.setTerritory(Territory("GB"))
            try cache.applyWithdrawals(
                WithdrawalList(
                    sequence: 1,
                    games: (0..<1000).map { Withdrawal(id: "withdrawn-\($0)", territories: $0 % 4 == 0 ? ["GB"] : []) }
                ))
            await cache.flush()
        }
        let (emptyLaunch, savedLaunch) = measurePair(samples: 200) {
            launch(empty)
        } operation: {
            launch(saved)
        }
        results.append(
            Result(
                operation: "bundled first content, cold start, saved territory + 1,000 withdrawals",
                size: "as above, cache directory", medianNanoseconds: savedLaunch.median,
                p99Nanoseconds: savedLaunch.p99, floor: "the same with an empty cache directory",
                floorMedianNanoseconds: emptyLaunch.median))
        if sink == 42 { print("") }
    }

    // 4. A miss that goes to an upstream answering at once: the cache's own overhead. The floor is
    //    what any cache that serves only schema-valid content pays for a miss: the call and the
    //    schema check of its answer (the provider's HTTP upstream checks each game as it maps it).
    do {
        let cache = CatalogCache(upstream: upstream, cacheDirectory: nil, bundleDirectory: nil, logger: logger)
        let key = CacheKey.gamesPage(edition, categoryId: categoryId, offset: 0)
        var sink = 0
        let floor = try await measureAsync(samples: 300) {
            if case .modified(let page, _) = try await upstream.gamesPage(
                edition: edition, categoryId: categoryId, offset: 0, limit: 10, etag: nil)
            {
                sink &+= page.count + page.violations().count
            }
        }
        let miss = try await measureAsync(samples: 300) {
            cache.invalidate(key)
            sink &+= try await cache.content(for: key).value?.ids.count ?? 0
        }
        results.append(
            Result(
                operation: "miss to an immediate upstream", size: "10-game page", medianNanoseconds: miss.median,
                p99Nanoseconds: miss.p99, floor: "the upstream call + the schema check of its answer",
                floorMedianNanoseconds: floor.median))
        if sink == 42 { print("") }
    }

    // 5. The write path: what the caller pays (a store into memory and the disk queue) and what the
    //    background write costs, against Data.write(.atomic).
    do {
        let directory = work.appendingPathComponent("writes")
        let disk = DiskTier(configuration: .init(directory: directory), logger: logger)
        let memory = MemoryTier()
        let entry = CacheEntry(
            key: .gamesPage(edition, categoryId: categoryId, offset: 0), content: .gamesPage(firstPage),
            storedAt: Date())
        let json = try CatalogCoding.encoder().encode(firstPage)
        let target = work.appendingPathComponent("atomic.json")
        let floor = try measure(samples: 200) { try json.write(to: target, options: .atomic) }
        // What any persistent cache pays per write: encode the entry, compress it, write it atomically.
        let envelope = DiskFileMirror(
            key: entry.key.description, schemaVersion: CatalogSchema.version, cacheVersion: 1, storedAt: entry.storedAt,
            etag: nil, content: entry.content)
        let fullFloor = try measure(samples: 200) {
            let packed = try Gzip.compress(try CatalogCoding.encoder().encode(envelope), level: Gzip.fastLevel)
            try packed.write(to: target, options: .atomic)
        }
        let insert = measure(samples: 200) { memory.store(entry) }
        let caller = measure(samples: 200) {
            memory.store(entry)
            disk.store(entry)
        }
        await disk.flush()
        let background = await measureAsync(samples: 100) {
            disk.store(entry)
            await disk.flush()
        }
        results.append(
            Result(
                operation: "store: caller's cost (memory + disk queue)", size: "10-game page",
                medianNanoseconds: caller.median,
                p99Nanoseconds: caller.p99, floor: "the memory insert alone", floorMedianNanoseconds: insert.median))
        results.append(
            Result(
                operation: "store: background write (encode + gzip + temp + rename)", size: "10-game page",
                medianNanoseconds: background.median, p99Nanoseconds: background.p99, floor: "Data.write(.atomic)",
                floorMedianNanoseconds: floor.median))
        results.append(
            Result(
                operation: "store: background write (encode + gzip + temp + rename)", size: "10-game page",
                medianNanoseconds: background.median, p99Nanoseconds: background.p99,
                floor: "encode + gzip + Data.write(.atomic)",
                floorMedianNanoseconds: fullFloor.median))
    }

    // 6. 1,000 concurrent requests for one stale key.
    do {
        let slow = SlowUpstream(catalog: catalog)
        let testClock = ManualClock()
        let cache = CatalogCache(
            upstream: slow, cacheDirectory: nil, bundleDirectory: bundleDirectory, clock: testClock, logger: logger)
        let start = clock.now
        let stale = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<1000 {
                group.addTask { (try? await cache.categories(edition: edition))?.value?.items.count ?? 0 }
            }
            var answered = 0
            for await count in group where count > 0 { answered += 1 }
            return answered
        }
        let answered = clock.now - start
        await cache.waitForRefreshes()
        print("")
        print(
            "1,000 concurrent requests for one bundled key: \(stale) answered at once in \(format(nanoseconds(answered))), "
                + "upstream calls: \(slow.calls.load(ordering: .relaxed))")
    }
    results += try firstFrameBenchmarks(work: work.appendingPathComponent("first-frame"))
    results += try await diskIndexBenchmarks(work: work.appendingPathComponent("disk-index"))
    results += try await synchronizeBenchmarks(
        work: work.appendingPathComponent("synchronize"), items: pages.flatMap(\.items))
    return results
}
