@_spi(CatalogTools) import CasinoCatalog
public import Foundation

/// The rule for replacing an output directory: only one the pipeline created.
///
/// `catalog snapshot --out`, `catalog sample --output`, `catalog fetch --output` and
/// `catalog preview --output` replace a
/// directory as a whole. A mistyped path must never swap away someone's work, so a directory is
/// replaced only when it is missing, empty, or recognisably ours: a snapshot (a `manifest.json`
/// of our format, or only the README the writer puts there), a recording (a `recording.json`),
/// a directory of recorded images (an `index.json`), or a preview (`catalog-preview.txt`).
/// Commands call ``checkReplaceable(_:holding:)`` before any work, and the publisher calls it
/// again before it swaps.
///
/// ```swift
/// try OutputDirectory.checkReplaceable(URL(fileURLWithPath: "out"), holding: .snapshot)
/// ```
public enum OutputDirectory {
    /// What a directory the pipeline publishes holds.
    public enum Content: Sendable {
        /// A snapshot directory (`SnapshotWriter`).
        case snapshot
        /// A recorded provider directory (`SampleRecording`, `HTTPFetcher`).
        case recording
        /// A directory of recorded images (``RecordedImages``, ``ImageFetcher``): an `index.json`.
        case images
        /// The HTML pages of `catalog preview` (``SnapshotPreview``): a `catalog-preview.txt`.
        case preview
    }

    /// Throws unless `directory` may be replaced by `content`.
    ///
    /// - Throws: ``PipelineError`` with code ``PipelineError/Code/outputNotReplaceable`` naming the
    ///   directory and one file that is not ours; or when the directory or its parent cannot be written.
    public static func checkReplaceable(_ directory: URL, holding content: Content) throws(PipelineError) {
        let path = directory.relativePath
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else {
            try checkWritable(directory.deletingLastPathComponent(), naming: path)
            return
        }
        guard isDirectory.boolValue else {
            throw PipelineError(
                .outputNotReplaceable, "exists and is not a directory; choose a new or empty directory", file: path)
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        } catch {
            throw PipelineError(
                .outputNotReplaceable, "cannot list the directory: \(error.localizedDescription)", file: path)
        }
        if !names.isEmpty, !isOurs(directory, names: names, content: content) {
            let foreign = names.first { !ourNames(content).contains($0) } ?? names[0]
            throw PipelineError(
                .outputNotReplaceable,
                "holds files this tool did not write (\(foreign)); refusing to replace it. Choose a new or empty directory",
                file: path)
        }
        try checkWritable(directory, naming: path)
        try checkWritable(directory.deletingLastPathComponent(), naming: path)
    }

    /// The files that mark a directory as ours.
    private static func ourNames(_ content: Content) -> Set<String> {
        switch content {
        case .snapshot: [Manifest.fileName, SnapshotLayout.readmeName]
        case .recording: [RecordingLayout.metadataFileName, PreviousRecording.etagsFileName]
        case .images: [RecordedImages.indexFileName]
        case .preview: [SnapshotPreview.markerName]
        }
    }

    private static func isOurs(_ directory: URL, names: [String], content: Content) -> Bool {
        switch content {
        case .snapshot:
            if names.contains(Manifest.fileName) {
                // Ours when it reads as a manifest, even of another schema version.
                do throws(SnapshotReadError) {
                    _ = try SnapshotReader(directory: directory).decodedManifest()
                    return true
                } catch {
                    return error.code == .foreignSchema
                }
            }
            // Only the README the writer puts in every snapshot (a fresh clone's `out/`).
            let readme = directory.appendingPathComponent(SnapshotLayout.readmeName)
            return names == [SnapshotLayout.readmeName]
                && (try? Data(contentsOf: readme)) == Data(SnapshotLayout.readme.utf8)
        case .recording:
            let metadata = RecordingLayout(root: directory).metadataFile
            guard let data = try? FileInput.read(metadata, limit: 1 << 20, what: "recording metadata") else {
                return false
            }
            return (try? CatalogCoding.decoder().decode(RecordingLayout.Metadata.self, from: data)) != nil
        case .images:
            return (try? RecordedImages(directory: directory)) != nil
        case .preview:
            let marker = directory.appendingPathComponent(SnapshotPreview.markerName)
            guard let data = try? FileInput.read(marker, limit: 1 << 16, what: "preview marker") else { return false }
            return String(decoding: data, as: UTF8.self).hasPrefix(SnapshotPreview.markerFirstLine + "\n")
        }
    }

    private static func checkWritable(_ directory: URL, naming path: String) throws(PipelineError) {
        let target = directory.path.isEmpty ? "." : directory.path
        guard FileManager.default.fileExists(atPath: target) else { return }  // created with the staging directory
        guard access(target, W_OK) == 0 else {
            throw PipelineError(
                .outputNotReplaceable,
                "\(target) is not writable (\(String(cString: strerror(errno)))); nothing was written", file: path)
        }
    }
}
