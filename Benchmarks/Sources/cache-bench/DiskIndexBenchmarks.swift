@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCatalog
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A relaunched disk tier's index (its directory scanned: every entry's size and age) as the
/// directory grows, against listing the directory and `fstatat` on each name; and, at the largest
/// size, reads of an entry while the index builds, against the same reads once it is built.
func diskIndexBenchmarks(work: URL) async throws -> [Result] {
    let edition = try Edition(id: "en-iPhone")
    let template = work.appendingPathComponent("disk-index-template")
    let writer = DiskTier(configuration: .init(directory: template), logger: benchLogger)
    let games = (0..<10).map { index in
        Game(
            id: "g\(index)", name: "Game \(index)", slug: "game-\(index)", launchUrl: "https://l.example.com/\(index)",
            thumbnail: "https://t.example.com/\(index).jpg")
    }
    let page = GamesPage(categoryId: "BENCH", offset: 0, limit: 10, total: 10, items: games)
    let key = CacheKey(.gamesPage(edition, categoryId: "BENCH", offset: 0))
    writer.store(CacheEntry(key: key, content: .gamesPage(page), storedAt: Date()))
    await writer.flush()
    let name = try FileManager.default.contentsOfDirectory(atPath: template.path).first { $0.hasSuffix(".json.gz") }!
    let bytes = try Data(contentsOf: template.appendingPathComponent(name))

    var results: [Result] = []
    var sink = 0
    for count in [10, 1_000, 5_000] {
        let directory = work.appendingPathComponent("disk-index-\(count)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for number in 0..<count {
            let hex = String(number, radix: 16)
            let file = "g_bench_\(String(repeating: "0", count: 16 - hex.count) + hex).json.gz"
            try bytes.write(to: directory.appendingPathComponent(file))
        }
        let samples = count > 1_000 ? 20 : 50
        let floor = measure(samples: samples, warmup: 3) { sink &+= listAndStat(directory) }
        let ready = await measureAsync(samples: samples, warmup: 3) {
            let tier = DiskTier(configuration: .init(directory: directory), logger: benchLogger)
            await tier.flush()
            sink &+= tier.bytesOnDisk
        }
        results.append(
            Result(
                operation: "disk index ready (relaunched tier, directory scanned)", size: "\(count) entries",
                medianNanoseconds: ready.median, p99Nanoseconds: ready.p99, floor: "readdir + fstatat",
                floorMedianNanoseconds: floor.median))
        if count == 5_000 {
            try bytes.write(to: directory.appendingPathComponent(name))  // the entry the reads find
            results.append(try await readsDuringIndexBuild(directory: directory, key: key))
        }
    }
    if sink == 42 { print("") }
    return results
}

/// Reads of `key` from relaunched tiers while each builds its index (every read that starts before
/// the build ends), against the same reads from a tier whose index is built. Prints the worst read,
/// and how many reads over 1 ms blocked (a voluntary context switch: a lock, a wait) rather than
/// lost the CPU to another thread (an involuntary one, which two cores and a scan in parallel cause).
private func readsDuringIndexBuild(directory: URL, key: CacheKey) async throws -> Result {
    var during: [Double] = []
    var slow = 0
    var blocked = 0
    for _ in 0..<20 {
        let tier = DiskTier(configuration: .init(directory: directory), logger: benchLogger)
        let build = Task { await tier.flush() }
        var isBuilding = true
        while isBuilding {
            let before = threadSwitches()
            let start = clock.now
            guard tier.entry(for: key) != nil else { throw BenchIndexFailure() }
            let elapsed = nanoseconds(clock.now - start)
            let after = threadSwitches()
            during.append(elapsed)
            if elapsed > 1e6 {
                slow += 1
                if after.voluntary > before.voluntary { blocked += 1 }
            }
            isBuilding = tier.bytesOnDisk == 0
        }
        await build.value
    }
    let built = DiskTier(configuration: .init(directory: directory), logger: benchLogger)
    await built.flush()
    let floor = measure(samples: max(during.count, 200), warmup: 20) { _ = built.entry(for: key) }
    print(
        String(
            format: "disk hit while the index builds: %d reads, worst %.2f ms (index built: %.2f ms); "
                + "over 1 ms: %d, of which blocked: %d (goal: none)",
            during.count, (during.max() ?? 0) / 1e6, (floor.values.max() ?? 0) / 1e6, slow, blocked))
    return Result(
        operation: "disk hit while the index of the directory builds", size: "5000 entries, 10-game page",
        medianNanoseconds: Samples(values: during).median, p99Nanoseconds: Samples(values: during).p99,
        floor: "the same read, index built", floorMedianNanoseconds: floor.median)
}

/// This thread's context switches so far: voluntary (it waited) and involuntary (it was preempted);
/// `RUSAGE_THREAD` (1), which Glibc does not name for Swift.
private func threadSwitches() -> (voluntary: Int, involuntary: Int) {
    #if canImport(Glibc)
    var usage = rusage()
    guard getrusage(__rusage_who_t(1), &usage) == 0 else { return (0, 0) }
    return (usage.ru_nvcsw, usage.ru_nivcsw)
    #else
    return (0, 0)
    #endif
}

private struct BenchIndexFailure: Error, CustomStringConvertible {
    var description: String { "a read during the index build missed" }
}

/// Every name in `directory` and its `fstatat`: the system calls a scan cannot do without.
func listAndStat(_ directory: URL) -> Int {
    directory.withUnsafeFileSystemRepresentation { path -> Int in
        guard let path, let stream = opendir(path) else { return 0 }
        defer { closedir(stream) }
        let descriptor = dirfd(stream)
        var total = 0
        while let record = readdir(stream) {
            var info = stat()
            let status = withUnsafePointer(to: &record.pointee.d_name) { field in
                field.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: field.pointee)) {
                    fstatat(descriptor, $0, &info, AT_SYMLINK_NOFOLLOW)
                }
            }
            if status == 0 { total &+= Int(info.st_size) }
        }
        return total
    }
}
