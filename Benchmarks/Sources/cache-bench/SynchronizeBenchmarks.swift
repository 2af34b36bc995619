@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Crypto
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Bulk validation at launch: a relaunched cache (nothing in memory) validates the pages a
/// previous session left on disk, all of them current at the upstream, until its renewals are on
/// disk; per key, against the SHA-256 of each page's canonical JSON (swift-crypto): what sending a
/// content hash costs a cache that does not keep it; and against the system calls a cache of one
/// file per entry cannot do without: listing and `fstatat` (the relaunched disk index), reading
/// each file and moving its modification time (the renewal).
func synchronizeBenchmarks(work: URL, items: [Game]) async throws -> [Result] {
    var results: [Result] = []
    var sink = 0
    for count in [100, 1_000, 3_000] {
        let fixture = try await SynchronizeFixture(
            pages: count, items: items, directory: work.appendingPathComponent("synchronize-\(count)"))
        let directory = fixture.directory
        // Samples enough to span 0.1 s and more: on a shared VM the call runs up to 1.4x slower for
        // stretches of tens of milliseconds, which 15 samples of 100 pages fit inside.
        let samples = count > 1_000 ? 7 : count > 100 ? 15 : 101
        let floor = measure(samples: samples, warmup: 2) {
            for payload in fixture.payloads { sink &+= Int(SHA256.hash(data: payload).first { _ in true } ?? 0) }
        }
        let systemCalls = measure(samples: samples, warmup: 2) {
            sink &+= listAndStat(directory) &+ readAndTouch(directory)
        }
        let synchronize = try await measureAsync(samples: samples, warmup: 2) {
            let cache = CatalogCache(
                upstream: fixture.upstream, cacheDirectory: directory, bundleDirectory: nil, logger: benchLogger)
            let report = await cache.synchronize()  // returns with its renewals on disk (checked below)
            guard report.current == count else { throw BenchFailure("synchronize found \(report.current) of \(count)") }
        }
        try await fixture.checkRenewedWhenSynchronizeReturns()
        for (name, samples) in [("SHA-256 of the page's JSON", floor), ("list, stat, read, utimensat", systemCalls)] {
            results.append(
                Result(
                    operation: "synchronize() at launch, all current (per key)", size: "\(count) pages on disk",
                    medianNanoseconds: synchronize.median / Double(count),
                    p99Nanoseconds: synchronize.p99 / Double(count), floor: name,
                    floorMedianNanoseconds: samples.median / Double(count)))
        }
    }
    if sink == 42 { print("") }
    let growth = [1_000, 3_000].compactMap { count -> String? in
        let directory = work.appendingPathComponent("synchronize-\(count)")
        let warm = work.appendingPathComponent("synchronize-100")
        guard let index = residentGrowth(of: directory, warm: warm, synchronizing: false),
            let synchronize = residentGrowth(of: directory, warm: warm, synchronizing: true)
        else { return nil }
        return "\(count) pages +\(synchronize) KiB (the disk index alone: +\(index) KiB)"
    }
    if !growth.isEmpty {
        print(
            "synchronize() at launch, peak resident memory above before it, in a process of its own "
                + "(validationBatchSize \(CatalogCache.Configuration().validationBatchSize)): \(growth.joined(separator: ", "))"
        )
    }
    return results
}

/// A previous session's disk cache of `pages` pages, each its own content, and an upstream that
/// finds them all current: what a relaunched cache synchronizes. On the system clock, as in an app
/// (an injected clock's deadlines wait in a task of their own).
struct SynchronizeFixture {
    let payloads: [Data]
    let directory: URL
    let upstream: any CatalogUpstream

    init(pages count: Int, items: [Game], directory: URL) async throws {
        let edition = try Edition(id: "en-iPhone")
        let pages = (0..<count).map { number in
            // Each page its own content: the games of the catalogue in another order.
            let start = number % max(items.count - 10, 1)
            return GamesPage(
                categoryId: "C\(number)", offset: 0, limit: 10, total: 10, items: Array(items[start..<start + 10]))
        }
        payloads = try pages.map { try CanonicalJSON.encode($0) }
        var hashes: [SnapshotKey: String] = [:]
        for (page, payload) in zip(pages, payloads) {
            let digest = SHA256.hash(data: payload).map { String(format: "%02x", $0) }.joined()
            hashes[.gamesPage(edition, categoryId: page.categoryId, offset: 0)] =
                CatalogRules.contentHashPrefix + digest
        }
        self.directory = directory
        upstream = CurrentUpstream(
            hashes: hashes, pages: Dictionary(uniqueKeysWithValues: pages.map { ($0.categoryId, $0) }))
        let previous = CatalogCache(
            upstream: upstream, cacheDirectory: directory, bundleDirectory: nil, logger: benchLogger)
        for page in pages { _ = try await previous.gamesPage(edition: edition, categoryId: page.categoryId) }
        await previous.flush()
    }

    /// Sets every entry file's modification time a day back, relaunches and synchronizes once more,
    /// and checks, without a flush, that each has moved: the row's time includes its renewals.
    func checkRenewedWhenSynchronizeReturns() async throws {
        let files = FileManager.default
        let names = try files.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json.gz") }
        guard names.count == payloads.count else {
            throw BenchFailure("\(names.count) files for \(payloads.count) pages")
        }
        let dayBack = Date() - 86_400
        for name in names {
            try files.setAttributes(
                [.modificationDate: dayBack], ofItemAtPath: directory.appendingPathComponent(name).path)
        }
        let cache = CatalogCache(
            upstream: upstream, cacheDirectory: directory, bundleDirectory: nil, logger: benchLogger)
        await cache.synchronize()
        for name in names {
            let attributes = try files.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
            guard let modified = attributes[.modificationDate] as? Date, modified > dayBack + 3_600 else {
                throw BenchFailure("\(name) was not renewed when synchronize() returned")
            }
        }
    }
}

/// The argument that makes `cache-bench` the child of ``residentGrowth(of:warm:)``.
let synchronizeMemoryChild = "--synchronize-memory"

/// How much a relaunched cache's `synchronize()` of `directory` (or its disk index alone) raises the
/// peak resident memory of a process of its own (this executable, running
/// ``synchronizeMemory(of:warm:synchronizing:)``), in KiB; `nil` when the child fails or `/proc` is
/// missing.
private func residentGrowth(of directory: URL, warm: URL, synchronizing: Bool) -> Int? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = [synchronizeMemoryChild, directory.path, warm.path, synchronizing ? "synchronize" : "index"]
    let output = Pipe()
    process.standardOutput = output
    guard (try? process.run()) != nil else { return nil }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    return Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
}

/// The child's work: synchronizes a relaunched cache on `warm` (so that the code and the runtime's
/// own tables are in), then on `directory` (or, `synchronizing` false, only builds its disk index),
/// against an upstream that finds everything current, and returns the peak resident memory
/// (`VmHWM`) above the resident memory before the second (`VmRSS`), in KiB.
func synchronizeMemory(of directory: URL, warm: URL, synchronizing: Bool) async -> Int? {
    let clock = ManualClock(now: Date(timeIntervalSince1970: 1_900_000_000))
    for (index, target) in [warm, directory].enumerated() {
        let before = index == 1 ? statusKilobytes("VmRSS") : nil
        let cache = CatalogCache(
            upstream: CurrentUpstream(), cacheDirectory: target, bundleDirectory: nil, clock: clock,
            logger: benchLogger)
        if synchronizing || index == 0 { await cache.synchronize() }
        await cache.flush()
        if let before, let peak = statusKilobytes("VmHWM") { return peak - before }
    }
    return nil
}

/// A field of `/proc/self/status` in kB (`VmRSS`, `VmHWM`).
private func statusKilobytes(_ field: String) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Int(line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
    }
    return nil
}

/// Reads every entry file of `directory` (`openat` in the opened directory, `fstat`, `read`,
/// `close`) and sets its modification time (to what it was; `utimensat` on the directory's
/// descriptor): what a scan for bulk validation and a renewal cost one file each, each resolving
/// one name, not the whole path.
private func readAndTouch(_ directory: URL) -> Int {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return 0 }
    let folder = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard folder >= 0 else { return 0 }
    defer { close(folder) }
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    var total = 0
    for name in names where name.hasSuffix(".json.gz") {
        let descriptor = openat(folder, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { continue }
        var info = stat()
        fstat(descriptor, &info)
        total &+= buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        var times = (info.st_mtim, info.st_mtim)
        withUnsafePointer(to: &times) {
            $0.withMemoryRebound(to: timespec.self, capacity: 2) { _ = utimensat(folder, name, $0, 0) }
        }
    }
    return total
}

/// An upstream that serves the benchmark's pages and finds every page whose hash it knows current
/// (every page, when it knows none: `hashes` `nil`).
struct CurrentUpstream: CatalogUpstream {
    var hashes: [SnapshotKey: String]? = nil
    var pages: [String: GamesPage] = [:]

    func categories(edition: Edition, etag: String?) async throws -> UpstreamResponse<CategoryList> {
        throw BenchFailure("no categories here")
    }

    func gamesPage(
        edition: Edition, categoryId: String, offset: Int, limit: Int, etag: String?
    ) async throws
        -> UpstreamResponse<GamesPage>
    {
        guard let page = pages[categoryId] else { throw BenchFailure("no page \(categoryId)") }
        return .modified(page, etag: nil)
    }

    func validate(
        contentHashes: [SnapshotKey: String], pageSize: Int, inlineBytes: Int
    ) async throws -> [SnapshotKey: UpstreamVerdict]? {
        let current = contentHashes.mapValues { _ in UpstreamVerdict.current(etag: nil) }
        guard let hashes else { return current }
        return current.merging(
            contentHashes.filter { hashes[$0.key] != $0.value }.mapValues { _ in .changed(nil, etag: nil) }
        ) { $1 }
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
