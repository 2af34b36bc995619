import CFileSwap
import Foundation

/// Replaces a directory as a whole: contents are built in a staging directory beside it, then
/// swapped in with one atomic exchange (`renameat2(RENAME_EXCHANGE)` on Linux,
/// `renamex_np(RENAME_SWAP)` on macOS), so readers see the old or the new directory, never a mix.
/// Where the file system cannot exchange, it falls back to two renames and restores the old
/// directory if the second fails.
///
/// It replaces only what ``OutputDirectory`` accepts as ours, and removes the staging and
/// previous-content directories a killed run left beside the target (only names of its own
/// pattern: `.<name>.staging-<UUID>`, `.<name>.previous-<UUID>`).
struct DirectoryPublisher {
    /// The directory to replace (`out/`).
    let target: URL
    /// What the directory holds, which decides what may be replaced.
    let content: OutputDirectory.Content

    /// Checks the target may be replaced, removes leftovers of killed runs, and creates an empty
    /// staging directory on the target's file system.
    func makeStagingDirectory() throws(PipelineError) -> URL {
        try OutputDirectory.checkReplaceable(target, holding: content)
        removeLeftovers()
        let staging = sibling("staging")
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        } catch {
            throw PipelineError(
                .io, "cannot create a staging directory next to the output: \(error.localizedDescription)",
                file: staging.relativePath)
        }
        return staging
    }

    /// `.<name>.<role>-<UUID>` beside the target.
    private func sibling(_ role: String) -> URL {
        target.deletingLastPathComponent().appendingPathComponent(
            ".\(target.lastPathComponent).\(role)-\(UUID().uuidString)")
    }

    /// Removes `.<name>.staging-<UUID>` and `.<name>.previous-<UUID>` directories beside the
    /// target: what a killed run leaves. Nothing else is touched.
    private func removeLeftovers() {
        let parent = target.deletingLastPathComponent()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
        for name in names {
            for role in ["staging", "previous"] {
                let prefix = ".\(target.lastPathComponent).\(role)-"
                guard name.hasPrefix(prefix), UUID(uuidString: String(name.dropFirst(prefix.count))) != nil else {
                    continue
                }
                try? FileManager.default.removeItem(at: parent.appendingPathComponent(name))
            }
        }
    }

    /// Swaps `staging` into place and removes the previous contents.
    func publish(_ staging: URL) throws(PipelineError) {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        let exists = fileManager.fileExists(atPath: target.path, isDirectory: &isDirectory)
        if exists && !isDirectory.boolValue {
            throw PipelineError(
                .outputNotReplaceable, "exists and is not a directory; choose a new or empty directory",
                file: target.relativePath)
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
            try removePrevious(staging)  // now holds the previous contents
            return
        }
        // No atomic exchange here: rename the old directory away, move the new one in, and put
        // the old one back if that fails.
        let previous = sibling("previous")
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
        try removePrevious(previous)
    }

    /// Removes the previous contents once the new ones are in place; a failure is reported, not
    /// hidden: the new contents are published, but a copy of the old ones is left beside them.
    private func removePrevious(_ directory: URL) throws(PipelineError) {
        do {
            try FileManager.default.removeItem(at: directory)
        } catch {
            throw PipelineError(
                .io,
                "published, but the previous contents could not be removed from \(directory.relativePath): \(error.localizedDescription); remove it by hand",
                file: target.relativePath)
        }
    }

    /// Removes a staging directory after a failed build. A failure to remove it is left for the
    /// next run, which removes leftovers of its pattern.
    func discard(_ directory: URL) {
        try? FileManager.default.removeItem(at: directory)
    }
}
