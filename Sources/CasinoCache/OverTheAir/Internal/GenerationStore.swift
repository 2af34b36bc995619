@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The updater's support directory: installed generations and the pointer to the current one.
///
/// ```
/// <directory>/current.json                      {"etag":…,"generation":"v7-1a2b3c4d5e6f","version":7,
///                                                "retired":[{"generation":"v6-…","since":…}]}
/// <directory>/generations/v7-1a2b3c4d5e6f/      a complete snapshot directory (manifest.json, files)
///                                               plus published.json, the signed manifest it came from
/// <directory>/generations/.incoming-<uuid>/     an install in progress (never served)
/// <directory>/generations/.removing-<uuid>/     a generation being removed (never served)
/// ```
///
/// A generation is written under `.incoming-…`, synced, renamed to its final name, and only then
/// made current by renaming a synced temporary file over `current.json`. A crash at any point
/// leaves `current.json` naming the previous generation, whole; leftovers are removed at the
/// next start, and only names this store makes (`.incoming-`, `.removing-`, `v<n>-<hex>`,
/// `.current-`) are ever removed.
///
/// Readers in other processes (an app's widget, ``SharedCatalogReader``) take no lock: a
/// generation is immutable, a replaced one stays `retired` for the retention, and one is removed
/// by renaming it to `.removing-…` first, so a reader finds a generation whole or not at all.
struct GenerationStore: Sendable {
    let directory: URL

    static let pointerName = "current.json"
    static let generationsName = "generations"
    static let publishedName = "published.json"
    static let incomingPrefix = ".incoming-"
    static let pointerTemporaryPrefix = ".current-"
    static let maxPointerBytes = 4096

    /// The pointer file: which generation is current.
    struct Pointer: Codable, Sendable, Hashable {
        var generation: String
        var version: Int
        /// The signed manifest's `ETag`, sent as `If-None-Match` next time.
        var etag: String?
        /// Generations replaced, newest last, kept for readers in other processes until the
        /// retention passes. Absent from pointers written before it existed.
        var retired: [Retired]? = nil

        /// The pointer making `generation` current, retiring this one's, and keeping of the
        /// retired only those within `retention` of `now` (at most ``maxRetired``).
        func succeeded(
            by generation: String, version: Int, etag: String?, now: Date, retention: TimeInterval
        ) -> Pointer {
            let replaced = self.generation == generation ? [] : [Retired(generation: self.generation, since: now)]
            let kept = ((retired ?? []) + replaced).filter {
                $0.generation != generation && $0.isKept(now: now, retention: retention)
            }
            return Pointer(
                generation: generation, version: version, etag: etag, retired: Array(kept.suffix(maxRetired)))
        }
    }

    /// A generation that stopped being current at `since`.
    struct Retired: Codable, Sendable, Hashable {
        var generation: String
        var since: Date

        /// Whether it is still within `retention` (a `since` in the future counts as now).
        func isKept(now: Date, retention: TimeInterval) -> Bool {
            GenerationStore.isGenerationName(generation) && now.timeIntervalSince(since) < retention
        }
    }

    /// The most retired generations a pointer keeps: a burst of installs cannot fill the disk (a
    /// generation hard-links the files it shares with the one before) or the pointer's 4 KiB.
    static let maxRetired = 16
    static let removingPrefix = ".removing-"

    var generations: URL { directory.appendingPathComponent(Self.generationsName) }

    func generationDirectory(_ name: String) -> URL { generations.appendingPathComponent(name) }

    /// The current pointer, or `nil` when there is none or it is unusable (then the bundle serves).
    func pointer() -> Pointer? {
        guard
            let data = try? Self.readRegularFile(
                directory.appendingPathComponent(Self.pointerName), maxBytes: Self.maxPointerBytes),
            let pointer = try? JSONDecoder().decode(Pointer.self, from: data),
            Self.isGenerationName(pointer.generation), pointer.version > 0
        else { return nil }
        return pointer
    }

    /// The bytes of generation `name`'s `published.json` (the signed manifest it was installed
    /// from), or `nil` when it cannot be read within `maxBytes`.
    func signedManifest(of name: String, maxBytes: Int) -> Data? {
        try? Self.readRegularFile(
            generationDirectory(name).appendingPathComponent(Self.publishedName), maxBytes: maxBytes)
    }

    /// `v<version>-<12 hex digits>`: the only generation names made, and read.
    static func isGenerationName(_ name: String) -> Bool {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].first == "v", parts[0].count >= 2, parts[0].count <= 20,
            parts[0].dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }), parts[1].count == 12
        else { return false }
        return parts[1].allSatisfy { $0.isASCII && $0.isHexDigit && !$0.isUppercase }
    }

    static func newGenerationName(version: Int) -> String {
        "v\(version)-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12)
    }

    /// Whether the generation `pointer` names serves rather than the bundle: its manifest's head
    /// reads under `limits`, and it was generated no earlier than `bundleGeneratedAt`.
    func isServable(_ pointer: Pointer, limits: SnapshotLimits, bundleGeneratedAt: Date?) -> Bool {
        guard let head = try? SnapshotReader(directory: generationDirectory(pointer.generation), limits: limits).head()
        else { return false }
        return head.generatedAt >= bundleGeneratedAt ?? .distantPast
    }

    /// Removes what an interrupted install or removal left (`.incoming-…`, `.removing-…`, pointer
    /// temporaries) and every generation but `launch`, the one `pointer` (the current pointer)
    /// names and those it retired within `retention` of `now`. Names this store does not make are
    /// left alone. A generation is renamed before it is deleted, so no reader ever opens one
    /// half-deleted.
    func removeLeftovers(launch: String?, pointer: Pointer?, now: Date, retention: TimeInterval) {
        var keeping = Set([launch, pointer?.generation].compactMap { $0 })
        for retired in pointer?.retired ?? [] where retired.isKept(now: now, retention: retention) {
            keeping.insert(retired.generation)
        }
        let manager = FileManager.default
        for name in (try? manager.contentsOfDirectory(atPath: generations.path)) ?? [] {
            let url = generations.appendingPathComponent(name)
            if name.hasPrefix(Self.incomingPrefix) || name.hasPrefix(Self.removingPrefix) {
                try? manager.removeItem(at: url)
            } else if Self.isGenerationName(name), !keeping.contains(name) {
                let doomed = generations.appendingPathComponent(Self.removingPrefix + UUID().uuidString)
                if rename(url.path, doomed.path) == 0 { try? manager.removeItem(at: doomed) }
            }
        }
        for name in (try? manager.contentsOfDirectory(atPath: directory.path)) ?? []
        where name.hasPrefix(Self.pointerTemporaryPrefix) {
            try? manager.removeItem(at: directory.appendingPathComponent(name))
        }
    }

    /// A new, empty `generations/.incoming-<uuid>` directory.
    func makeIncoming() throws(SnapshotUpdateError) -> URL {
        let url = generations.appendingPathComponent(Self.incomingPrefix + UUID().uuidString)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw SnapshotUpdateError(
                .io, "cannot create a directory: \(error.localizedDescription)", location: url.path, cause: error)
        }
        return url
    }

    /// Makes `incoming` the generation `name` and points `current.json` at it: rename, sync the
    /// directory, write the pointer to a synced temporary file, rename it over the old one, sync.
    func commit(_ incoming: URL, as name: String, pointer: Pointer) throws(SnapshotUpdateError) {
        let target = generationDirectory(name)
        guard rename(incoming.path, target.path) == 0 else {
            throw Self.ioError("cannot move the new generation into place", target)
        }
        Self.syncDirectory(generations)
        let data: Data
        do {
            data = try JSONEncoder().encode(pointer)
        } catch {
            throw SnapshotUpdateError(.io, "cannot encode the pointer: \(error)")
        }
        let temporary = directory.appendingPathComponent(Self.pointerTemporaryPrefix + UUID().uuidString)
        try Self.writeSynced(data, to: temporary)
        guard rename(temporary.path, directory.appendingPathComponent(Self.pointerName).path) == 0 else {
            let error = Self.ioError("cannot switch the pointer", temporary)
            unlink(temporary.path)
            throw error
        }
        Self.syncDirectory(directory)
    }

    // MARK: - Files

    /// Creates `url` (which must not exist; links are not followed), writes `data` and syncs it.
    static func writeSynced(_ data: Data, to url: URL) throws(SnapshotUpdateError) {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw ioError("cannot create", url) }
        var failure: Int32 = 0
        data.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count, let base = buffer.baseAddress {
                let count = write(descriptor, base + written, buffer.count - written)
                if count > 0 {
                    written += count
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    failure = count < 0 ? errno : EIO
                    return
                }
            }
        }
        if failure == 0, fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0, failure == 0 { failure = errno }
        guard failure == 0 else {
            unlink(url.path)
            throw SnapshotUpdateError(.io, "cannot write: \(String(cString: strerror(failure)))", location: url.path)
        }
    }

    /// The bytes of the regular file at `url` (a link is not followed), refusing one over `maxBytes`.
    static func readRegularFile(_ url: URL, maxBytes: Int) throws(SnapshotUpdateError) -> Data {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { throw ioError("cannot open", url) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw SnapshotUpdateError(.io, "not a regular file", location: url.path)
        }
        guard info.st_size >= 0, info.st_size <= Int64(maxBytes) else {
            throw SnapshotUpdateError(.overLimit, "is \(info.st_size) bytes, over \(maxBytes)", location: url.path)
        }
        let outcome = FileDescriptorIO.read(descriptor, count: Int(info.st_size))
        guard outcome.error == 0 else {
            throw SnapshotUpdateError(
                .io, "cannot read: \(String(cString: strerror(outcome.error)))", location: url.path)
        }
        return outcome.data
    }

    /// Syncs a directory's entries (a rename inside it survives a power cut).
    static func syncDirectory(_ url: URL) {
        let descriptor = open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    static func ioError(_ what: String, _ url: URL) -> SnapshotUpdateError {
        SnapshotUpdateError(.io, "\(what): \(String(cString: strerror(errno)))", location: url.path)
    }
}
