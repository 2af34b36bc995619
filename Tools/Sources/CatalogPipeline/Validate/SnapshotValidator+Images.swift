@_spi(CatalogTools) import CasinoCatalog
import Foundation

extension SnapshotValidator {
    /// The manifest's `images`: each distinct file read as the app reads it (``SnapshotReader``:
    /// contained, its size, SHA-256 and sniffed type the manifest's), and each URL named by a game
    /// of the snapshot, so nothing is bundled that no game shows. The manifest's own rules for the
    /// section (caps, order, paths) are reported with the rest of its rules.
    func checkImages(
        _ manifest: Manifest, reader: SnapshotReader, pages: [Edition: [String: [(path: String, page: PageSummary)]]],
        into report: inout ValidationReport
    ) {
        guard let images = manifest.images, images.count <= limits.maxImageCount else { return }
        let files = manifest.imageFiles
        progress.expect(files.count)
        let problems =
            (try? ParallelMap.map(count: files.count) { index throws(PipelineError) -> ValidationReport in
                defer { progress.advance() }
                var found = ValidationReport()
                do throws(SnapshotReadError) {
                    _ = try reader.image(files[index])
                } catch {
                    found.add(error)
                }
                return found
            }) ?? []
        for found in problems { report.problems += found.problems }
        report.filesChecked += files.count

        var named = Set<String>()
        for category in pages.values {
            for (_, page) in category.values.joined() { named.formUnion(page.namedImages) }
        }
        for (index, image) in images.enumerated() where !named.contains(image.url) {
            report.add(
                Manifest.fileName, "images[\(index)].url",
                "\(image.url.prefix(200)) is named by no game of the snapshot: remove it or regenerate the directory")
        }
    }
}
