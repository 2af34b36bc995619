@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCatalog
import Dispatch
import Foundation

/// What the disk tier reads back from the app's cache directory: an entry file (a header and gzip'd
/// content, or anything else), read for its key, scanned for bulk validation and for the keys it holds. Hostile bytes are a miss, never a trap; an entry that
/// reads keeps the rules, and written again it reads back the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDisk(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("fuzz-disk-\(getpid())-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let configuration = DiskTier.Configuration(directory: directory, maxEntryBytes: 1 << 20)
    let writer = DiskTier(configuration: configuration)
    let placeholder = GamesPage(categoryId: "VIDEOSLOTS", offset: 0, limit: 10, total: 0, items: [])
    writer.store(CacheEntry(key: fuzzKey, content: .gamesPage(placeholder), storedAt: Date()))
    wait { await writer.flush() }
    guard let name = try? FileManager.default.contentsOfDirectory(atPath: directory.path).first,
        (try? data.write(to: directory.appendingPathComponent(name))) != nil
    else { return 0 }

    let tier = DiskTier(configuration: configuration)
    _ = tier.storedGlobalKeys()
    let stored = wait { await tier.storedGlobalEntries() }
    precondition(stored.count <= 1 && stored.allSatisfy { $0.key == fuzzKey }, "a scan answered another key")
    if let entry = tier.entry(for: fuzzKey) {
        precondition(entry.content.violations().isEmpty, "served content that breaks the rules")
        let again = DiskTier(configuration: configuration)
        again.store(entry)
        wait { await again.flush() }
        // (A header whose ETag grows past the header cap when encoded again is not written: a miss.)
        precondition(
            again.writeFailures > 0 || DiskTier(configuration: configuration).entry(for: fuzzKey) == entry,
            "an entry does not round-trip")
    }
    wait { await tier.flush() }
    return 0
}

private let fuzzKey = CacheKey.gamesPage(try! Edition(id: "en-iPhone"), categoryId: "VIDEOSLOTS", offset: 0)

/// Runs `body` to the end from this synchronous entry point.
private func wait<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.value = await body()
        done.signal()
    }
    done.wait()
    return box.value!
}

private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
