@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation

/// A snapshot directory written by the pipeline (`make fixtures`, committed under `Fixtures/`),
/// copied into a test's own directory, and the catalogue it holds (what an app ships as its
/// bundled tier).
///
/// Each test gets its own copy, so it may damage its bundle without touching another's. The
/// catalogue is read back from the committed directory with `SnapshotReader`, once per process.
struct BundleFixture: BundledCatalogFixture {
    /// A committed snapshot directory; `Scripts/record-cache-fixtures.sh` has each one's recipe.
    enum Name: String, CaseIterable, Sendable {
        /// 60 synthetic games in 3 categories (seed 11), en-iPhone and fr-iPhone.
        case lobby
        /// The lobby with the first 4 thumbnails of each category bundled (tiny real PNGs).
        case lobbyWithImages = "lobby-images"
        /// 10 games in one category, in en, fr, pt, zh-Hant on iPhone and en on Android; en-iPhone
        /// the default.
        case fiveEditions = "five-editions"
        /// 30 games in 2 categories (seed 3), cut into pages of 7.
        case pageSize7 = "page-size-7"
    }

    /// When every fixture's recording was made: the `SOURCE_DATE_EPOCH` it is recorded with, and
    /// so its manifest's `generatedAt`.
    static let recordedAt = Date(timeIntervalSince1970: 1_795_168_800)

    let directory: URL
    let catalog: Catalog
    let manifest: Manifest

    /// Copies the committed directory `name` into `parent` as `childName`.
    init(_ name: Name = .lobby, in parent: TemporaryDirectory, at childName: String = "out") throws {
        let template = try Self.templates[name]!.get()
        catalog = template.catalog
        manifest = template.manifest
        directory = parent.child(childName)
        try FileManager.default.copyItem(at: template.directory, to: directory)
    }

    /// The catalogue the committed directory `name` holds, without copying it (for a test that
    /// needs its games, not a bundle).
    static func catalog(_ name: Name = .lobby) throws -> Catalog {
        try templates[name]!.get().catalog
    }

    // MARK: - The committed directories

    /// A committed directory and what it holds.
    private struct Template: Sendable {
        let directory: URL
        let catalog: Catalog
        let manifest: Manifest

        init(_ name: Name) throws {
            guard
                let directory = Bundle.module.url(
                    forResource: name.rawValue, withExtension: nil, subdirectory: "Fixtures")
            else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "Fixtures/\(name.rawValue)"])
            }
            let reader = SnapshotReader(directory: directory)
            let manifest = try reader.manifest()
            let entries = Dictionary(uniqueKeysWithValues: manifest.files.map { ($0.key, $0) })
            // As the pipeline's `Normalizer` orders them: editions by id, each one's pages by
            // category in lobby order, then by offset.
            let editions = try manifest.editions.sorted().map { edition in
                let categories = try reader.categories(of: entries[.categories(edition)]!, in: manifest)
                let pages = try categories.items.flatMap { category in
                    try manifest.files.compactMap { entry -> (offset: Int, entry: Manifest.Entry)? in
                        guard case .gamesPage(edition, category.id, let offset) = entry.key else { return nil }
                        return (offset, entry)
                    }
                    .sorted { $0.offset < $1.offset }
                    .map { try reader.gamesPage(of: $0.entry, in: manifest) }
                }
                return EditionCatalog(edition: edition, categories: categories, pages: pages)
            }
            self.directory = directory
            self.manifest = manifest
            catalog = Catalog(
                generatedAt: manifest.generatedAt, source: manifest.source, pageSize: manifest.pageSize,
                defaultEdition: manifest.defaultEdition, editions: editions)
        }
    }

    private static let templates = Dictionary(
        uniqueKeysWithValues: Name.allCases.map { name in (name, Result { try Template(name) }) })
}
