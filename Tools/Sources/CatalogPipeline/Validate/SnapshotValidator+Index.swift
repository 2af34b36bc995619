@_spi(CatalogTools) import CasinoCatalog
import Foundation

extension SnapshotValidator {
    /// Checks the directory's index (``SnapshotIndex``) when it has one: the app's reader accepts
    /// `index.json`, every edition's part and the image list, and each file holds exactly the bytes
    /// the manifest gives (``SnapshotIndex/files(for:)``), so an app reading the index sees the
    /// manifest's entries. A directory without `index.json` (an older pipeline) has nothing to check.
    ///
    /// - Returns: The paths of the index files the manifest gives, for the unlisted-file check
    ///   (empty without an index).
    func checkIndex(
        _ manifest: Manifest, in directory: URL, reader: SnapshotReader, into report: inout ValidationReport
    ) -> Set<String> {
        let index: SnapshotIndex
        do {
            guard let found = try reader.index() else { return [] }
            index = found
        } catch {
            report.add(error)
            return [SnapshotIndex.fileName]
        }
        do {
            for edition in index.head.editions { _ = try reader.manifest(of: edition, in: index) }
            _ = try reader.images(in: index)
        } catch {
            report.add(error)
        }
        let expected: [(path: String, data: Data)]
        do {
            expected = try SnapshotIndex.files(for: manifest)
        } catch {
            report.add(SnapshotIndex.fileName, nil, "the manifest cannot be indexed: \(error)")
            return [SnapshotIndex.fileName]
        }
        for file in expected {
            let url = directory.appendingPathComponent(file.path)
            let found = try? FileInput.read(url, limit: limits.maxManifestBytes, what: "an index file")
            if found != file.data {
                report.add(
                    file.path, nil,
                    (found == nil ? "is missing or unreadable" : "differs from what manifest.json gives")
                        + ": the index must be written with the manifest; build the snapshot again (make snapshot)")
            }
        }
        return Set(expected.map(\.path))
    }
}
