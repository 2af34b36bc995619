@_spi(CatalogTools) public import CasinoCatalog

/// Where each snapshot file lives inside a snapshot directory (`out/`).
///
/// ```
/// out/manifest.json
/// out/index.json
/// out/index/en-iPhone.json
/// out/README.md
/// out/en-iPhone/categories.json.gz
/// out/en-iPhone/games/videoslots-d4a8b457ac/0.json.gz
/// out/en-iPhone/games/videoslots-d4a8b457ac/10.json.gz
/// ```
/// Readers never derive these paths: they take them from the manifest. Writers call ``path(for:)``.
public enum SnapshotLayout {
    /// The file, next to the manifest, that tells people what the directory is.
    public static let readmeName = "README.md"

    /// The relative path of the file holding `key`.
    public static func path(for key: SnapshotKey) -> String {
        switch key {
        case .categories(let edition):
            "\(edition.id)/categories.json.gz"
        case .gamesPage(let edition, let categoryId, let offset):
            "\(edition.id)/games/\(FileNaming.component(for: categoryId))/\(offset).json.gz"
        }
    }

    /// The README written into every snapshot directory.
    public static let readme = """
        # Generated snapshots — do not edit

        This directory is written by `make snapshot` (`catalog snapshot`) and replaced as a whole
        on every successful run; a failed run leaves it untouched. `make validate` checks it.

        - `manifest.json` lists every file with its kind, edition, category, offset, item count,
          total, compressed and uncompressed size and SHA-256, plus the schema version, a hash of
          the normalized content, when the data was fetched and where it came from.
        - `index.json` and `index/<edition>.json` (and `index/images.json`) hold the same table
          split by edition, so an app reads at launch only what the edition it opens lists.
        - `<edition>/categories.json.gz` holds an edition's categories (`en-iPhone`).
        - `<edition>/games/<category>/<offset>.json.gz` holds one page of a category's games;
          `<category>` is derived from the category id (readable prefix + hash).

        Each `.json.gz` is a deterministic gzip of a JSON snapshot envelope
        (`schemaVersion`, `edition`, `kind`, `key`, `contentHash`, `generatedAt`, `payload`).
        Ship the directory inside the app as the cache's bundled tier.

        """
}
