import CFileSwap
import Foundation

/// Replaces a directory as a whole: contents are built in a staging directory beside it, then
/// swapped in with one atomic exchange (`renameat2(RENAME_EXCHANGE)` on Linux,
/// `renamex_np(RENAME_SWAP)` on macOS), so readers see the old or the new directory, never a mix.
/// Where the file system cannot exchange, it falls back to two renames and restores the old
/// directory if the second fails.
struct DirectoryPublisher {
    /// The directory to replace (`out/`).
    let target: URL

    /// Creates an empty staging directory on the target's file system.
    func makeStagingDirectory() throws(PipelineError) -> URL {
        let parent = target.deletingLastPathComponent()
        let staging = parent.appendingPathComponent(".\(target.lastPathComponent).staging-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        } catch {
            throw PipelineError(
                .io, "cannot create a staging directory next to the output: \(error.localizedDescription)",
                file: staging.relativePath)
        }
        return staging
    }

    /// Swaps `staging` into place and removes the previous contents.
    func publish(_ staging: URL) throws(PipelineError) {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        let exists = fileManager.fileExists(atPath: target.path, isDirectory: &isDirectory)
        if exists && !isDirectory.boolValue {
            throw PipelineError(
                .io, "the output path exists and is not a directory; move it away", file: target.relativePath)
        }
        if !exists {
            guard rename(staging.path, target.path) == 0 else {
                throw PipelineError(
                    .io, "cannot move the staged snapshot into place: \(String(cString: strerror(errno)))",
                    file: target.relativePath)
            }
            return
        }
        if cfileswap_exchange(staging.path, target.path) == 0 {
            discard(staging)  // now holds the previous contents
            return
        }
        // No atomic exchange here: rename the old directory away, move the new one in, and put
        // the old one back if that fails.
        let previous = target.deletingLastPathComponent()
            .appendingPathComponent(".\(target.lastPathComponent).previous-\(UUID().uuidString)")
        guard rename(target.path, previous.path) == 0 else {
            throw PipelineError(
                .io, "cannot move the previous snapshot aside: \(String(cString: strerror(errno)))",
                file: target.relativePath)
        }
        guard rename(staging.path, target.path) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = rename(previous.path, target.path)
            throw PipelineError(.io, "cannot move the staged snapshot into place: \(reason)", file: target.relativePath)
        }
        discard(previous)
    }

    /// Removes a staging (or previous) directory, ignoring errors.
    func discard(_ directory: URL) {
        try? FileManager.default.removeItem(at: directory)
    }
}
