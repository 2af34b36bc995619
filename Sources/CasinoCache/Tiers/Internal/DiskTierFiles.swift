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

/// The disk tier's file operations on one directory: bounded reads, atomic writes, deletes and
/// the scan. Stateless; the tier decides when each runs.
struct DiskTierFiles: Sendable {
    /// The directory entries live in.
    let directory: URL
    /// `directory`'s file system path and a `/`: the system calls take a path, and building one
    /// through `URL` for each of thousands of files in a scan cost more than the calls.
    private let pathPrefix: String

    init(directory: URL) {
        self.directory = directory
        pathPrefix =
            directory.withUnsafeFileSystemRepresentation { $0.map { String(cString: $0) } ?? directory.path } + "/"
    }

    /// Why a file operation failed.
    struct Failure: Error, Sendable, CustomStringConvertible {
        var description: String
        /// The file is over the per-entry cap: an entry no write of the tier makes.
        var isOversized = false
    }

    func url(for name: String) -> URL {
        directory.appendingPathComponent(name, isDirectory: false)
    }

    /// A file's bytes, and when it was last modified in whole seconds since 1970 (any value: the
    /// file system says so, and anyone may set it).
    struct Contents {
        var data: Data
        var modifiedSeconds: Int64
    }

    /// The directory, opened for a run of calls on its files (a batch of a scan's reads, of
    /// renewals): each call given it resolves one name instead of the whole path again. `body` gets
    /// `nil` when the directory cannot be opened, and the calls then take the path.
    func withOpenDirectory<Result>(_ body: (OpenDirectory?) -> Result) -> Result {
        let descriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return body(nil) }
        defer { close(descriptor) }
        return body(OpenDirectory(descriptor: descriptor))
    }

    /// An open descriptor of the directory, valid inside ``withOpenDirectory(_:)``.
    struct OpenDirectory {
        fileprivate let descriptor: Int32
    }

    /// The bytes of the file `name`, or `nil` when it does not exist.
    ///
    /// One `open(O_NOFOLLOW)` (`openat` in `directory`), one `fstat` and a read of the file's size
    /// into one buffer. A file that `fstat` shows over `limit` is not read at all.
    ///
    /// - Throws: ``Failure`` when the file exists but cannot be read (permissions, a directory, a
    ///   symbolic link planted in the cache directory), or is over `limit` (``Failure/isOversized``).
    func read(_ name: String, limit: Int, in directory: OpenDirectory? = nil) throws(Failure) -> Contents? {
        let flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
        let descriptor = directory.map { openat($0.descriptor, name, flags) } ?? open(pathPrefix + name, flags)
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
        guard info.st_size <= limit else {
            throw Failure(
                description: "file of \(info.st_size) bytes is over maxEntryBytes \(limit)", isOversized: true)
        }
        let outcome = FileDescriptorIO.read(descriptor, count: Int(info.st_size))
        guard outcome.error == 0 else {
            throw Failure(description: "cannot read \(name): \(String(cString: strerror(outcome.error)))")
        }
        #if canImport(Darwin)
        let modified = info.st_mtimespec.tv_sec
        #else
        let modified = info.st_mtim.tv_sec
        #endif
        return Contents(data: outcome.data, modifiedSeconds: Int64(modified))
    }

    /// Writes `data` to the file `name` atomically: a temporary file in the same directory,
    /// then `rename(2)`, so readers see the old file or the new one, never half of one.
    ///
    /// Creates the directory when it is missing. No `fsync`: a cache entry lost in a power cut
    /// is a miss, and `fsync` would cost more than the rest of the write.
    ///
    /// - Throws: ``Failure`` (or the underlying error) when the directory cannot be created or
    ///   written, or is full.
    /// The file is then marked modified at `modified` (whole seconds), not at the time of writing:
    /// the disk tier keeps an entry's age there (``setModified(_:to:)``). (The temporary file keeps
    /// the time of writing, by which ``scan(maxEntryBytes:now:)`` tells a leftover.)
    func writeAtomically(_ data: Data, to name: String, modified: Date) throws {
        do {
            try write(data, to: name, modified: modified)
        } catch {
            // The directory may be missing (first write, or deleted under us): create it, once.
            guard !FileManager.default.fileExists(atPath: directory.path) else { throw error }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try write(data, to: name, modified: modified)
        }
    }

    private func write(_ data: Data, to name: String, modified: Date) throws {
        let temporary = url(for: DiskTierFileName.temporaryName(unique: Self.uniqueSuffix()))
        let error = FileDescriptorIO.createFile(atPath: temporary.path, contents: data, permissions: 0o600)
        guard error == 0 else {
            throw Failure(description: "cannot write \(name): \(String(cString: strerror(error)))")
        }
        do {
            try rename(temporary, to: url(for: name))
        } catch {
            unlink(temporary.path)
            throw error
        }
        // A file left with the time of writing only looks younger to a relaunch: harmless.
        setModified(name, to: modified)
    }

    /// A name part no other write uses: this process's random token and a counter. (`UUID()` per
    /// write read `/dev/urandom` on Linux every time.) `O_EXCL` still refuses a clash.
    private static func uniqueSuffix() -> String {
        let number = writeCounter.withLock { counter -> UInt64 in
            counter &+= 1
            return counter
        }
        return "\(processToken)-\(number)"
    }

    private static let processToken = UUID().uuidString
    private static let writeCounter = Locked<UInt64>(0)

    private func rename(_ source: URL, to destination: URL) throws {
        let status = source.withUnsafeFileSystemRepresentation { source in
            destination.withUnsafeFileSystemRepresentation { destination -> Int32 in
                guard let source, let destination else { return -1 }
                #if canImport(Darwin)
                return Darwin.rename(source, destination)
                #elseif canImport(Glibc)
                return Glibc.rename(source, destination)
                #else
                return Musl.rename(source, destination)
                #endif
            }
        }
        guard status == 0 else {
            throw Failure(description: "rename failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Sets when the file `name` was last modified to `date` (whole seconds), without following a
    /// link (relative to `directory` when given); `false` when it cannot (the file is gone).
    @discardableResult
    func setModified(_ name: String, to date: Date, in directory: OpenDirectory? = nil) -> Bool {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        // Outside what a time_t holds, or not a number: the time of the write stays.
        guard seconds.isFinite, seconds > -1e15, seconds < 1e15 else { return true }
        // Access and modification time alike (UTIME_OMIT is a macro Swift does not import on Linux).
        let time = timespec(tv_sec: time_t(seconds), tv_nsec: 0)
        var times = (time, time)
        return withUnsafePointer(to: &times) {
            $0.withMemoryRebound(to: timespec.self, capacity: 2) {
                if let directory {
                    utimensat(directory.descriptor, name, $0, AT_SYMLINK_NOFOLLOW) == 0
                } else {
                    utimensat(AT_FDCWD, pathPrefix + name, $0, AT_SYMLINK_NOFOLLOW) == 0
                }
            }
        }
    }

    /// Deletes the file `name`; `true` when it existed and is now gone.
    ///
    /// `unlink(2)`, not `FileManager.removeItem`: a directory that happens to carry an entry's
    /// name is not the tier's to delete, let alone recursively.
    @discardableResult
    func delete(_ name: String) -> Bool {
        unlink(pathPrefix + name) == 0
    }

    /// The entry files in the directory (none when it is missing or unreadable); deletes the
    /// temporary files an interrupted write left behind (older than a minute, so that another
    /// tier's write in progress on the same directory is left alone), and entry files over
    /// `maxEntryBytes`, which no write of the tier makes: counted at their size, one planted
    /// sparse file would evict every other entry.
    ///
    /// `readdir(3)` and one `fstatat(2)` per name that is the tier's, without following links: a
    /// symbolic link or anything else not a regular file is left alone and not counted. (Foundation's
    /// per-URL resource values cost several times the system calls.)
    ///
    /// The first `count` entry files that `isRead` selects are read instead, as ``read(_:limit:in:)``
    /// reads them, and given to `body`: their `fstat` stands in for the `fstatat`, one system call
    /// fewer a file for a caller that reads them next anyway. One that does not read is stat'ed as
    /// any other.
    func scan(
        maxEntryBytes: Int, now: Date = Date(), reading count: Int = 0, where isRead: (String) -> Bool = { _ in false },
        _ body: (String, Contents) -> Void = { _, _ in }
    ) -> [DiskTierIndex.ScannedFile] {
        var files: [DiskTierIndex.ScannedFile] = []
        var readsLeft = count
        forEachName { name, descriptor in
            let isTemporary = DiskTierFileName.isTemporary(name)
            guard isTemporary || DiskTierFileName.isEntry(name) else { return }
            if !isTemporary, readsLeft > 0, isRead(name) {
                do throws(Failure) {
                    if let contents = try read(name, limit: maxEntryBytes, in: OpenDirectory(descriptor: descriptor)) {
                        readsLeft -= 1
                        let modified = Date(timeIntervalSince1970: TimeInterval(contents.modifiedSeconds))
                        files.append(.init(name: name, size: contents.data.count, modified: modified))
                        body(name, contents)
                    }
                    return  // read, or gone
                } catch  where error.isOversized {
                    delete(name)
                    return
                } catch {
                    // Not a regular file, or not readable: the `fstatat` below decides.
                }
            }
            var info = stat()
            guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG
            else { return }
            let modified = Self.modificationDate(of: info)
            if isTemporary {
                if now.timeIntervalSince(modified) > 60 { delete(name) }
                return
            }
            // `st_size` is an `off_t`: never negative for a regular file, and compared before it
            // becomes an `Int`.
            guard info.st_size >= 0, info.st_size <= Int64(maxEntryBytes) else {
                delete(name)
                return
            }
            files.append(DiskTierIndex.ScannedFile(name: name, size: Int(info.st_size), modified: modified))
        }
        return files
    }

    /// When a file was last modified, from its `stat`.
    private static func modificationDate(of info: stat) -> Date {
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        return Date(timeIntervalSince1970: TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1e9)
    }

    /// The names of the entry files in the directory that `isMatch` selects.
    func entryNames(where isMatch: (String) -> Bool) -> [String] {
        var names: [String] = []
        forEachName { name, _ in
            if DiskTierFileName.isEntry(name) && isMatch(name) { names.append(name) }
        }
        return names
    }

    /// Calls `body` with each name in the directory (`readdir(3)`) and the directory's descriptor,
    /// for `fstatat`; with nothing when the directory is missing or unreadable.
    private func forEachName(_ body: (String, Int32) -> Void) {
        directory.withUnsafeFileSystemRepresentation { path in
            guard let path, let stream = opendir(path) else { return }
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
    }
}
