import Foundation

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
