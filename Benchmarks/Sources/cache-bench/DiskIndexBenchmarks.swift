@_spi(Tiers) import CasinoCache
import CasinoCatalog
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A relaunched disk tier's index (its directory scanned: every entry's size and age) as the
/// directory grows, against listing the directory and `fstatat` on each name.
func diskIndexBenchmarks(work: URL) async throws -> [Result] {
    let edition = try Edition(id: "en-iPhone")
    let template = work.appendingPathComponent("disk-index-template")
    let writer = DiskTier(configuration: .init(directory: template), logger: benchLogger)
    let page = GamesPage(categoryId: "BENCH", offset: 0, limit: 10, total: 0, items: [])
    writer.store(
        CacheEntry(
            key: .gamesPage(edition, categoryId: "BENCH", offset: 0), content: .gamesPage(page), storedAt: Date()))
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
    }
    if sink == 42 { print("") }
    return results
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
