import Foundation

/// The disk tier's view of its directory: each entry file's size and when it was last used.
///
/// Built lazily from a directory scan on the writer queue; afterwards kept current by the
/// writer (writes, removals, evictions) and by readers (last access). "When" is a counter, not
/// a clock: files found by the scan rank by modification date, older than anything used since.
struct DiskTierIndex {
    /// Whether the directory has been scanned.
    private(set) var isBuilt = false
    /// The bytes of every entry file known.
    private(set) var totalBytes = 0

    private var sizes: [String: Int] = [:]
    private var lastAccess: [String: Int64] = [:]
    private var tick: Int64 = 0

    /// A file found by the scan.
    struct ScannedFile {
        var name: String
        var size: Int
        var modified: Date
    }

    init() {}

    /// An index of what a scan found, built off the tier's lock (sorting thousands of files must not
    /// hold up reads); ``adopt(_:)`` takes it in. Scanned files rank by modification date, below
    /// every access of this session (ticks are positive).
    init(scanned files: [ScannedFile]) {
        for (rank, file) in files.sorted(by: { ($0.modified, $0.name) < ($1.modified, $1.name) }).enumerated() {
            sizes[file.name] = file.size
            totalBytes += file.size
            lastAccess[file.name] = Int64(rank - files.count)
        }
        isBuilt = true
    }

    /// Takes in an index built from a scan; the files accessed before it keep their rank. `scanned`
    /// is left holding this index as it was. Called under the tier's lock: the scan's tables are
    /// changed in place and swapped in, never copied (a copy of thousands of entries held up reads).
    mutating func adopt(_ scanned: inout DiskTierIndex) {
        for (name, access) in lastAccess where scanned.sizes[name] != nil { scanned.lastAccess[name] = access }
        scanned.tick = tick
        swap(&self, &scanned)
    }

    /// Marks `name` as just used.
    mutating func recordAccess(_ name: String) {
        tick += 1
        if !isBuilt || sizes[name] != nil { lastAccess[name] = tick }
    }

    /// Records that `name` now holds `size` bytes and was just used.
    mutating func recordWrite(_ name: String, size: Int) {
        totalBytes += size - (sizes[name] ?? 0)
        sizes[name] = size
        tick += 1
        lastAccess[name] = tick
    }

    /// Forgets `name` (deleted).
    mutating func remove(_ name: String) {
        if let size = sizes.removeValue(forKey: name) { totalBytes -= size }
        lastAccess[name] = nil
    }

    /// Forgets every file `isMatch` selects and returns their names.
    mutating func removeAll(where isMatch: (String) -> Bool) -> [String] {
        let names = sizes.keys.filter(isMatch)
        for name in names { remove(name) }
        return names
    }

    /// Forgets and returns the least recently used files until the total is at most `limit`,
    /// never `keeping`.
    mutating func evict(toFit limit: Int, keeping: String) -> [String] {
        guard totalBytes > limit else { return [] }
        let candidates = sizes.keys.filter { $0 != keeping }
            .sorted { (lastAccess[$0] ?? .min, $0) < (lastAccess[$1] ?? .min, $1) }
        var victims: [String] = []
        for name in candidates {
            guard totalBytes > limit else { break }
            remove(name)
            victims.append(name)
        }
        return victims
    }
}
