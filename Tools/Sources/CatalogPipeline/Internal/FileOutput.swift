@_spi(Internals) import CasinoCatalog
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Writes output files, turning failures into ``PipelineError``s that name the file.
enum FileOutput {
    /// Writes `data` to `url`, creating parent directories. Callers write into a staging
    /// directory that is published atomically, so a plain write is enough here.
    static func write(_ data: Data, to url: URL) throws(PipelineError) {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        } catch {
            throw PipelineError(.io, "cannot write: \(error.localizedDescription)", file: url.relativePath)
        }
    }

    /// Writes many new files under `root` (a fresh staging directory): each parent directory is
    /// created once, and the files are written with `open`/`write`/`close` on every core.
    /// Writing 2,000 snapshot files one `createDirectory` + `Data.write` at a time took longer
    /// than rendering them.
    ///
    /// - Parameter files: Paths relative to `root`, and their bytes.
    static func writeAll(_ files: [(path: String, data: Data)], under root: URL) throws(PipelineError) {
        let directories = Set(files.map { ($0.path as NSString).deletingLastPathComponent }).filter { !$0.isEmpty }
        for directory in directories.sorted() {
            let url = root.appendingPathComponent(directory, isDirectory: true)
            do {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            } catch {
                throw PipelineError(.io, "cannot create the directory: \(error.localizedDescription)", file: url.relativePath)
            }
        }
        _ = try ParallelMap.map(count: files.count) { index throws(PipelineError) in
            let url = root.appendingPathComponent(files[index].path)
            try writeNew(files[index].data, to: url)
        }
    }

    /// Creates `url`, which must not exist yet (a fresh staging directory holds nothing, and a link
    /// planted there is not followed), and writes `data` into it. No `fsync`: the staged copy is
    /// validated by reading it back before it is published.
    private static func writeNew(_ data: Data, to url: URL) throws(PipelineError) {
        let error = FileDescriptorIO.createFile(atPath: url.path, contents: data)
        guard error == 0 else {
            throw PipelineError(.io, "cannot write: \(String(cString: strerror(error)))", file: url.relativePath)
        }
    }

    /// Writes `data` to `url` through a temporary file and a rename, so readers never see a
    /// partial file and a failure leaves the previous file in place.
    static func writeAtomically(_ data: Data, to url: URL) throws(PipelineError) {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw PipelineError(.io, "cannot write: \(error.localizedDescription)", file: url.relativePath)
        }
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw PipelineError(.io, "cannot move the new file into place: \(reason)", file: url.relativePath)
        }
    }
}
