import Foundation
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Writes output files, turning failures into ``PipelineError``s that name the file.
enum FileOutput {
    /// Writes `data` to `url`, creating parent directories and replacing a file written there
    /// before. Callers write into a staging directory that is published atomically, so a plain
    /// write without `fsync` is enough here (Foundation's `Data.write` syncs every file on Linux).
    static func write(_ data: Data, to url: URL) throws(PipelineError) {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw PipelineError(
                .io, "cannot create the directory: \(error.localizedDescription)", file: url.relativePath)
        }
        if unlink(url.path) != 0, errno != ENOENT {
            throw PipelineError(.io, "cannot replace: \(String(cString: strerror(errno)))", file: url.relativePath)
        }
        try writeNew(data, to: url)
    }

    /// Writes many new files under `root` (a fresh staging directory): each parent directory is
    /// created once, and the files are written with `open`/`write`/`close` on every core.
    /// One `createDirectory` + `Data.write` per file would cost more than rendering the files.
    ///
    /// - Parameter files: Paths relative to `root`, and their bytes.
    static func writeAll(_ files: [(path: String, data: Data)], under root: URL) throws(PipelineError) {
        try writeAll(files.map { (root.appendingPathComponent($0.path), $0.data) })
    }

    /// Writes many new files (in a fresh staging directory) as ``writeAll(_:under:)`` does.
    static func writeAll(_ files: [(url: URL, data: Data)]) throws(PipelineError) {
        let directories = Set(files.map { $0.url.deletingLastPathComponent().path })
        for directory in directories.sorted() {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw PipelineError(.io, "cannot create the directory: \(error.localizedDescription)", file: directory)
            }
        }
        _ = try ParallelMap.map(count: files.count) { index throws(PipelineError) in
            try writeNew(files[index].data, to: files[index].url)
        }
    }

    /// Creates `url`, which must not exist yet (a fresh staging directory holds nothing, and a link
    /// planted there is not followed), and writes `data` into it. No `fsync`: the staged copy is
    /// validated by reading it back before it is published.
    private static func writeNew(_ data: Data, to url: URL) throws(PipelineError) {
        let error = createFile(atPath: url.path, contents: data)
        guard error == 0 else {
            throw PipelineError(.io, "cannot write: \(String(cString: strerror(error)))", file: url.relativePath)
        }
    }

    /// Creates the file at `path`, which must not exist (`O_EXCL`; a link there is not followed),
    /// and writes `data` into it, without `fsync`. On failure a partial file is removed.
    ///
    /// - Returns: 0, or the `errno` of the failed `open`, `write` or `close` (`EEXIST` when the
    ///   file is there already).
    static func createFile(atPath path: String, contents data: Data, permissions: mode_t = 0o644) -> Int32 {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(
                FilePath(path), .writeOnly, options: [.create, .exclusiveCreate, .noFollow, .closeOnExec],
                permissions: FilePermissions(rawValue: permissions))
        } catch {
            return (error as? Errno)?.rawValue ?? EIO
        }
        do {
            try descriptor.closeAfter { _ = try descriptor.writeAll(data) }
            return 0
        } catch {
            unlink(path)
            return (error as? Errno)?.rawValue ?? EIO
        }
    }

    /// Writes `data` to `url` through a temporary file and a rename, so readers never see a
    /// partial file and a failure leaves the previous file in place.
    static func writeAtomically(_ data: Data, to url: URL) throws(PipelineError) {
        let temporary = temporarySibling(of: url)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw PipelineError(.io, "cannot write: \(error.localizedDescription)", file: url.relativePath)
        }
        try move(temporary, intoPlaceOf: url)
    }

    /// Where a new version of `url` is written before it replaces it: `.<name>.<UUID>.tmp` beside it.
    static func temporarySibling(of url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
    }

    /// Renames `temporary` over `url` in one step; on failure `temporary` is removed and `url` kept.
    static func move(_ temporary: URL, intoPlaceOf url: URL) throws(PipelineError) {
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw PipelineError(.io, "cannot move the new file into place: \(reason)", file: url.relativePath)
        }
    }
}
