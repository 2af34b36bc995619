@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCatalog
import Foundation

/// What `catalog inspect-cache` reads from a device's cache directory: the input is cut at each
/// `0xFF 0x00` into an entry file (named for a page's key), `Territory`, `Withdrawals` and a player's
/// queue file. Hostile bytes are a finding, never a trap; nothing reported breaks the rules; and
/// the directory is left byte for byte as it was.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCacheDirectory(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("fuzz-cache-dir-\(getpid())-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let queue = directory.appendingPathComponent("PlayerMutations", isDirectory: true)
    try? FileManager.default.createDirectory(at: queue, withIntermediateDirectories: true)
    var parts: [Data] = []
    var rest = data[...]
    while let cut = rest.firstRange(of: [0xFF, 0x00]), parts.count < 3 {
        parts.append(Data(rest[..<cut.lowerBound]))
        rest = rest[cut.upperBound...]
    }
    parts.append(Data(rest))
    let files = [
        directory.appendingPathComponent(entryName), directory.appendingPathComponent("Territory"),
        directory.appendingPathComponent("Withdrawals"),
        queue.appendingPathComponent(PlayerMutationQueueFile.fileName(for: "player-1")),
    ]
    for (part, file) in zip(parts, files) { try? part.write(to: file) }
    let before = contents(of: directory)

    guard let (report, _) = try? CacheDirectoryReader.inspect(directory, bundle: nil, now: Date()) else { return 0 }
    precondition(report.entries.count <= 1 && report.entries.allSatisfy { $0.key == key.description })
    precondition(report.entries.allSatisfy { $0.withheld.count <= $0.items }, "withheld more games than held")
    precondition(report.players.allSatisfy { $0.queued > 0 && !$0.player.contains("player-1") })
    precondition(contents(of: directory) == before, "the reader changed the directory")
    return 0
}

private let key = CacheKey.gamesPage(try! Edition(id: "en-iPhone"), categoryId: "VIDEOSLOTS", offset: 0)

/// The entry file name for `key`, as a cache names it (`g_<readable>_<hash>.json.gz`).
private let entryName: String = {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("fuzz-cache-dir-name-\(getpid())", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let tier = DiskTier(configuration: .init(directory: directory))
    let page = GamesPage(categoryId: "VIDEOSLOTS", offset: 0, limit: 10, total: 1, items: [])
    tier.store(CacheEntry(key: key, content: .gamesPage(page), storedAt: Date()))
    let done = DispatchSemaphore(value: 0)
    Task {
        await tier.flush()
        done.signal()
    }
    done.wait()
    return (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.first { $0.hasSuffix(".json.gz") }
        ?? "g_missing_0000000000000000.json.gz"
}()

/// Every file under `directory` with its bytes.
private func contents(of directory: URL) -> [String: Data] {
    var files: [String: Data] = [:]
    for path in FileManager.default.subpaths(atPath: directory.path) ?? [] {
        if let data = try? Data(contentsOf: directory.appendingPathComponent(path)) { files[path] = data }
    }
    return files
}
