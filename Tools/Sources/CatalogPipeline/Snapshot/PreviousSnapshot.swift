@_spi(CatalogTools) import CasinoCatalog
import Foundation

/// The snapshot a directory already holds: a new snapshot written there keeps each file whose
/// content did not change byte for byte (its `generatedAt` included), so the files of two
/// snapshots differ exactly where their content does, and an over-the-air update (`catalog
/// publish`) downloads only what changed.
///
/// The directory is only read; a file is reused only when it reads back with the size and
/// SHA-256 its manifest gives, so a damaged or foreign directory is rendered anew, never copied.
struct PreviousSnapshot: Sendable {
    private let reader: SnapshotReader
    private let generatedAt: Date
    private let entries: [SnapshotKey: Manifest.Entry]

    /// The snapshot in `directory`, or `nil` when there is none whose manifest reads.
    init?(directory: URL, limits: SnapshotLimits) {
        let reader = SnapshotReader(directory: directory, limits: limits)
        guard let manifest = try? reader.manifest(), manifest.schemaVersion == CatalogSchema.version else { return nil }
        self.reader = reader
        generatedAt = manifest.generatedAt
        entries = Dictionary(manifest.files.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The previous file and entry for `key` when its content hash is `contentHash` and it was
    /// generated no later than `generatedAt` (a file may not claim a date after its manifest's).
    func file(
        for key: SnapshotKey, contentHash: String, generatedNoLaterThan date: Date
    ) -> (data: Data, entry: Manifest.Entry)? {
        guard generatedAt <= date, let entry = entries[key], entry.contentHash == contentHash,
            entry.path == SnapshotLayout.path(for: key), let data = try? reader.verifiedBytes(of: entry)
        else { return nil }
        return (data, entry)
    }
}
