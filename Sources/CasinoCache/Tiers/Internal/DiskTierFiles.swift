import CatalogSupport
import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The raw file operations on one directory: a capped read that follows no link, a write to a
/// temporary name renamed into place, a modification time set, a delete, and a listing. Stateless;
/// the disk tier (and the cache's other small files) decide when each runs.
struct DiskTierFiles: Sendable {
    /// The directory the files live in.
    let directory: URL
    /// `directory`'s file system path and a `/`: building a path through `URL` for each of thousands
    /// of files in a scan cost more than the system calls.
    private let pathPrefix: String

    init(directory: URL) {
        self.directory = directory
        pathPrefix =
            directory.withUnsafeFileSystemRepresentation { $0.map { String(cString: $0) } ?? directory.path } + "/"
    }

    /// Why a file operation failed.
    struct Failure: Error, Sendable, CustomStringConvertible {
        var description: String
        /// The file is over the read's cap: no write of the tier makes one.
        var isOversized = false
    }

    /// A file's bytes, and when it was last modified in whole seconds since 1970 (any value: anyone
    /// may set it).
    struct Contents {
        var data: Data
        var modifiedSeconds: Int64
    }

    /// A regular file found by ``list(maxEntryBytes:now:)``.
    struct Listed {
        var name: String
        var size: Int
        var modified: Date
    }

    // MARK: - Temporary names

    /// What every temporary file name starts with; the scan deletes those an interrupted write left.
    static let temporaryPrefix = ".casinocache-"
    static let temporarySuffix = ".tmp"

    /// A temporary file name built on `unique`.
    static func temporaryName(unique: String) -> String {
        "\(temporaryPrefix)\(unique)\(temporarySuffix)"
    }

    static func isTemporary(_ name: String) -> Bool {
        name.hasPrefix(temporaryPrefix) && name.hasSuffix(temporarySuffix)
    }

    // MARK: - Operations

    /// The bytes of the file `name`, or `nil` when it does not exist: one `open(O_NOFOLLOW)`, one
    /// `fstat`, and a read of the file's size. A file `fstat` shows over `limit` is not read.
    ///
    /// - Throws: ``Failure`` when the file exists but cannot be read (permissions, a directory, a
    ///   symbolic link planted in the directory), or is over `limit` (``Failure/isOversized``).
    func read(_ name: String, limit: Int) throws(Failure) -> Contents? {
        let descriptor = open(pathPrefix + name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else {
            let error = errno
            if error == ENOENT { return nil }
            throw Failure(description: "cannot open \(name): \(String(cString: strerror(error)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw Failure(description: "cannot stat \(name): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw Failure(description: "\(name) is not a regular file") }
        // `st_size` is an `off_t`: compared before it becomes an `Int`; never negative for a regular file.
        guard info.st_size >= 0, info.st_size <= Int64(limit) else {
            throw Failure(description: "file of \(info.st_size) bytes is over the cap \(limit)", isOversized: true)
        }
        let outcome = FileDescriptorIO.read(descriptor, count: Int(info.st_size))
        guard outcome.error == 0 else {
            throw Failure(description: "cannot read \(name): \(String(cString: strerror(outcome.error)))")
        }
        return Contents(data: outcome.data, modifiedSeconds: Int64(Self.modificationTime(of: info).tv_sec))
    }

    /// Writes `data` as the file `name`: a temporary file beside it, then `rename(2)`, so a reader
    /// sees the old file or the new one, never half of one; then marks it modified at `modified`
    /// (whole seconds). Creates the directory when it is missing. No `fsync`: a cache entry lost in
    /// a power cut is a miss, and `fsync` would cost more than the rest of the write.
    ///
    /// - Throws: ``Failure`` (or the directory's creation error) when the directory cannot be
    ///   created or written, or is full.
    func writeAtomically(_ data: Data, to name: String, modified: Date) throws {
        let temporary = pathPrefix + Self.temporaryName(unique: UUID().uuidString)
        var error = FileDescriptorIO.createFile(atPath: temporary, contents: data, permissions: 0o600)
        if error == ENOENT {
            // The directory is missing (first write, or deleted under us): create it, once.
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            error = FileDescriptorIO.createFile(atPath: temporary, contents: data, permissions: 0o600)
        }
        guard error == 0 else {
            throw Failure(description: "cannot write \(name): \(String(cString: strerror(error)))")
        }
        guard rename(temporary, pathPrefix + name) == 0 else {
            let failure = Failure(description: "cannot rename to \(name): \(String(cString: strerror(errno)))")
            unlink(temporary)
            throw failure
        }
        // (The temporary file kept the time of writing, by which the scan tells a leftover.)
        setModified(name, to: modified)
    }

    /// Sets when the file `name` was last accessed and modified to `date` (whole seconds), without
    /// following a link: one `utimensat`. Nothing happens when the file is gone or `date` is not a
    /// time a `time_t` holds.
    func setModified(_ name: String, to date: Date) {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, seconds > -1e15, seconds < 1e15 else { return }
        var times = (timespec(tv_sec: time_t(seconds), tv_nsec: 0), timespec(tv_sec: time_t(seconds), tv_nsec: 0))
        _ = withUnsafePointer(to: &times) {
            $0.withMemoryRebound(to: timespec.self, capacity: 2) {
                utimensat(AT_FDCWD, pathPrefix + name, $0, AT_SYMLINK_NOFOLLOW)
            }
        }
    }

    /// Deletes the file `name` with `unlink(2)`: a directory that carries the name is not the
    /// tier's to delete, let alone recursively.
    func delete(_ name: String) {
        unlink(pathPrefix + name)
    }

    /// The names in the directory that `isIncluded` selects (`readdir(3)`; none when the directory
    /// is missing or unreadable).
    func names(where isIncluded: (String) -> Bool) -> [String] {
        var names: [String] = []
        forEachName { name, _ in
            if isIncluded(name) { names.append(name) }
        }
        return names
    }

    /// The regular files among the directory's entry names (`isEntry`), with their sizes and
    /// modification times: `readdir(3)` and one `fstatat(2)` per name, no link followed (a link or
    /// a directory is left alone and not listed). Deletes the temporary files an interrupted write
    /// left more than a minute ago (a younger one may be another tier's write in progress), and
    /// entry files over `maxEntryBytes`, which no write makes: counted at their size, one planted
    /// sparse file would evict every other entry.
    func list(entries isEntry: (String) -> Bool, maxEntryBytes: Int, now: Date = Date()) -> [Listed] {
        var listed: [Listed] = []
        forEachName { name, descriptor in
            let isTemporary = Self.isTemporary(name)
            guard isTemporary || isEntry(name) else { return }
            var info = stat()
            guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG
            else { return }
            let time = Self.modificationTime(of: info)
            let modified = Date(timeIntervalSince1970: TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1e9)
            if isTemporary {
                if now.timeIntervalSince(modified) > 60 { delete(name) }
            } else if info.st_size < 0 || info.st_size > Int64(maxEntryBytes) {
                delete(name)
            } else {
                listed.append(Listed(name: name, size: Int(info.st_size), modified: modified))
            }
        }
        return listed
    }

    // MARK: - Helpers

    /// Calls `body` with each name in the directory and the directory's descriptor, for `fstatat`.
    private func forEachName(_ body: (String, Int32) -> Void) {
        guard let stream = opendir(pathPrefix) else { return }
        defer { closedir(stream) }
        let descriptor = dirfd(stream)
        while let record = readdir(stream) {
            let name = withUnsafePointer(to: &record.pointee.d_name) { field in
                field.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: field.pointee)) {
                    String(cString: $0)
                }
            }
            body(name, descriptor)
        }
    }

    private static func modificationTime(of info: stat) -> timespec {
        #if canImport(Darwin)
        info.st_mtimespec
        #else
        info.st_mtim
        #endif
    }
}
