public import Foundation

/// The table of contents of a snapshot directory (`out/manifest.json`): every file with its
/// size and SHA-256, plus what produced them.
///
/// An app reads only the manifest at launch and opens a snapshot file when its content is
/// first asked for.
@_spi(CatalogTools) public struct Manifest: Codable, Sendable, Hashable {
    /// The name of the manifest file inside a snapshot directory.
    public static let fileName = "manifest.json"

    /// The schema the manifest and its files follow.
    public var schemaVersion: Int
    /// The tool that wrote the directory.
    public var generator: Generator
    /// When the source data was fetched (or `SOURCE_DATE_EPOCH`), never the wall clock.
    public var generatedAt: Date
    /// Where the data came from, for people.
    public var source: String
    /// `sha256:` and the hex SHA-256 over every file's key and content hash: equal when the
    /// normalized content is equal.
    public var contentHash: String
    /// The page size the pages were cut with.
    public var pageSize: Int
    /// The edition an app falls back to when its own is not bundled.
    public var defaultEdition: Edition
    /// Every bundled edition, sorted.
    public var editions: [Edition]
    /// Every snapshot file, sorted by path.
    public var files: [Entry]
    /// The bundled images, one entry per image URL sorted by URL, or `nil` when the snapshot
    /// bundles none (manifests written before images existed have no `images` key).
    public var images: [Image]?

    public init(
        generator: Generator, generatedAt: Date, source: String, contentHash: String, pageSize: Int,
        defaultEdition: Edition, editions: [Edition], files: [Entry], images: [Image]? = nil
    ) {
        self.schemaVersion = CatalogSchema.version
        self.generator = generator
        self.generatedAt = generatedAt
        self.source = source
        self.contentHash = contentHash
        self.pageSize = pageSize
        self.defaultEdition = defaultEdition
        self.editions = editions
        self.files = files
        self.images = images
    }

    /// The manifest without its entries and images (`files` empty, `images` nil): what needs
    /// only when it was generated, its editions and page size.
    public var head: Manifest {
        var head = self
        head.files = []
        head.images = nil
        return head
    }

    /// The program and version that wrote a snapshot directory.
    public struct Generator: Codable, Sendable, Hashable {
        public var name: String
        public var version: String

        public init(name: String, version: String) {
            self.name = name
            self.version = version
        }
    }

    /// One snapshot file.
    public struct Entry: Codable, Sendable, Hashable {
        /// The path relative to the snapshot directory, `/`-separated
        /// (`en-iPhone/games/videoslots-d4a8b457ac/0.json.gz`).
        public var path: String
        /// The content's identity; its kind and edition tell what the file holds.
        public var key: SnapshotKey
        /// Items in the payload: categories, or games on the page.
        public var count: Int
        /// For a page, the category's game total; for categories, the number of categories.
        public var total: Int
        /// The file's size in bytes.
        public var compressedBytes: Int
        /// The size of the JSON inside the gzip.
        public var uncompressedBytes: Int
        /// The hex SHA-256 of the file's bytes.
        public var sha256: String
        /// `sha256:` and the hex SHA-256 of the payload's JSON (as in the envelope).
        public var contentHash: String

        public init(
            path: String, key: SnapshotKey, count: Int, total: Int, compressedBytes: Int,
            uncompressedBytes: Int, sha256: String, contentHash: String
        ) {
            self.path = path
            self.key = key
            self.count = count
            self.total = total
            self.compressedBytes = compressedBytes
            self.uncompressedBytes = uncompressedBytes
            self.sha256 = sha256
            self.contentHash = contentHash
        }

        /// The kind of content the file holds.
        public var kind: SnapshotKind { key.kind }
        /// The edition the file belongs to.
        public var edition: Edition { key.edition }
    }
}
