import CatalogSupport
import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads one file of a snapshot directory without ever leaving that directory.
///
/// The manifest is hostile input, so a path is used only when
/// `CatalogRules.isSafeRelativePath` accepts it, and it is then walked one component at a time
/// with `openat(O_NOFOLLOW)`: a symbolic link anywhere on the path (the file or a directory) is
/// refused rather than followed, and the checks (regular file, size) are made with `fstat` on the
/// descriptor that is then read, so nothing can be swapped in between. `O_NONBLOCK` keeps a FIFO
/// planted in place of a file from blocking the open. POSIX only, so it builds for Apple platforms
/// and Linux alike.
enum ContainedFileReader {
    /// The bytes of `relativePath` inside `directory`.
    ///
    /// - Parameters:
    ///   - relativePath: A `/`-separated path relative to `directory`, from the manifest.
    ///   - directory: The snapshot directory.
    ///   - maxBytes: The largest file accepted.
    ///   - expectedBytes: The size the manifest announces, or `nil` when it has none.
    ///   - directories: The directories of `directory` kept open (``ContainedDirectories``), to
    ///     resolve the file from the deepest one kept; `nil`: every directory on the path is opened.
    /// - Throws: `SnapshotReadError` for an unsafe path, a missing file, a link or other
    ///   non-regular file, a file over `maxBytes` or not `expectedBytes` long, or a failed read.
    static func contents(
        of relativePath: String, in directory: URL, maxBytes: Int, expectedBytes: Int? = nil,
        directories: ContainedDirectories? = nil
    ) throws(SnapshotReadError) -> Data {
        guard CatalogRules.isSafeRelativePath(relativePath) else {
            throw SnapshotReadError(
                .unsafePath, file: relativePath, "not a safe relative path: it could leave the directory")
        }
        let components = relativePath.utf8.split(separator: UInt8(ascii: "/")).map(Substring.init)
        guard let name = components.last else {
            throw SnapshotReadError(.unsafePath, file: relativePath, "no file name")
        }
        // Without directories kept for `directory`, ones kept for this read alone: the same walk, its
        // descriptors closed when the file is open (they must live until then: `parent` may be one).
        let walk =
            directories.flatMap { $0.directory == directory ? $0 : nil } ?? ContainedDirectories(directory: directory)
        let (descriptor, error) = try withExtendedLifetime(walk) { () throws(SnapshotReadError) -> (Int32, Int32) in
            let (parent, isOwned) = try walk.descriptor(of: components.dropLast(), for: relativePath)
            let descriptor = openat(parent, String(name), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            let error = errno
            if isOwned { close(parent) }
            return (descriptor, error)
        }
        guard descriptor >= 0 else { throw failure(error, file: relativePath, opening: "the file") }
        defer { close(descriptor) }

        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure(errno, file: relativePath, opening: "the file") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw SnapshotReadError(.notRegularFile, file: relativePath, "not a regular file (links are not followed)")
        }
        let size = Int(info.st_size)
        guard size <= maxBytes else {
            throw SnapshotReadError(.tooLarge, file: relativePath, "is \(size) bytes, over the cap of \(maxBytes)")
        }
        if let expectedBytes, size != expectedBytes {
            throw SnapshotReadError(
                .sizeMismatch, file: relativePath,
                "is \(size) bytes, the manifest says \(expectedBytes) (truncated or replaced)")
        }

        let outcome = FileDescriptorIO.read(descriptor, count: size)
        guard outcome.error == 0 else {
            throw SnapshotReadError(.io, file: relativePath, "cannot read: \(String(cString: strerror(outcome.error)))")
        }
        guard outcome.data.count == size else {
            throw SnapshotReadError(
                .sizeMismatch, file: relativePath, "shrank from \(size) to \(outcome.data.count) bytes while read")
        }
        return outcome.data
    }

    /// A descriptor of the snapshot directory itself (links followed: the app chose it), which the
    /// caller closes.
    static func openDirectory(_ directory: URL, for file: String) throws(SnapshotReadError) -> Int32 {
        let descriptor = directory.withUnsafeFileSystemRepresentation { path -> Int32 in
            guard let path else { return -1 }
            return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        guard descriptor >= 0 else {
            throw failure(errno, file: file, opening: "the snapshot directory \(directory.path)")
        }
        return descriptor
    }

    static func failure(_ error: Int32, file: String, opening what: String) -> SnapshotReadError {
        switch error {
        case ENOENT:
            SnapshotReadError(.notFound, file: file, "missing: \(what) does not exist")
        case ELOOP, ENOTDIR:
            SnapshotReadError(.notRegularFile, file: file, "the path passes through a symbolic link or a non-directory")
        default:
            SnapshotReadError(.io, file: file, "cannot open \(what): \(String(cString: strerror(error)))")
        }
    }
}
