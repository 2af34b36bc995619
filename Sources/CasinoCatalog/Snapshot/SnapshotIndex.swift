public import Foundation

/// What an app reads of a snapshot directory at launch (`index.json`): the manifest's head, and
/// for each edition the file listing that edition's entries (`index/<edition>.tsv`, an
/// ``EditionTable``), so opening one edition costs what that edition holds, however many files the
/// other editions hold.
///
/// An index is derived from `manifest.json`, which stays the snapshot's one table of contents
/// (tools, published sets and apps built before the index read it): the pipeline writes the index
/// beside it and the over-the-air updater writes one into each generation it installs, with
/// ``files(for:)``. Its bytes are a function of the manifest (canonical JSON, tab-separated rows),
/// so the validator proves it by writing it again and comparing bytes. A directory without
/// `index.json` is read through `manifest.json`.
///
/// It is trusted as `manifest.json` is (the app's signed bundle, a generation the updater wrote
/// from a verified manifest): a part's size is checked and its entries must keep the manifest's
/// rules, but it carries no digest of its own; every snapshot file it names is still checked
/// against its SHA-256 when read.
///
/// ```
/// index.json               {"contentHash":…,"defaultEdition":"en-iPhone","editions":[{"bytes":31022,
///                           "count":201,"edition":"en-iPhone"}],…}
/// index/en-iPhone.tsv      path⇥key⇥count⇥…, then one row per entry of en-iPhone
/// index/images.json        {"images":[…the manifest's images…],"schemaVersion":1}
/// ```
public struct SnapshotIndex: Codable, Sendable, Hashable {
    /// The name of the index inside a snapshot directory.
    public static let fileName = "index.json"
    /// The directory of the index's parts.
    public static let partsDirectory = "index"

    /// The manifest's schema version.
    public var schemaVersion: Int
    /// The manifest's generator.
    public var generator: Manifest.Generator
    /// The manifest's `generatedAt`.
    public var generatedAt: Date
    /// The manifest's source.
    public var source: String
    /// The manifest's content hash.
    public var contentHash: String
    /// The manifest's page size.
    public var pageSize: Int
    /// The manifest's default edition.
    public var defaultEdition: Edition
    /// One part per edition of the manifest, sorted by edition.
    public var editions: [Part]
    /// The part listing the manifest's images, or `nil` when it has none.
    public var images: Part?

    /// One file of the index: its size, and how many entries it lists.
    public struct Part: Codable, Sendable, Hashable {
        /// The edition whose entries it lists; `nil` for the image list.
        public var edition: Edition?
        /// The file's size in bytes.
        public var bytes: Int
        /// The entries it lists.
        public var count: Int

        public init(edition: Edition?, bytes: Int, count: Int) {
            self.edition = edition
            self.bytes = bytes
            self.count = count
        }

        /// `index/<edition>.tsv`, or `index/images.json` for the image list: given by the edition,
        /// never by the file, so no path is read from it.
        public var path: String { edition.map(SnapshotIndex.path(of:)) ?? SnapshotIndex.imagesPath }
    }

    public init(
        schemaVersion: Int, generator: Manifest.Generator, generatedAt: Date, source: String, contentHash: String,
        pageSize: Int, defaultEdition: Edition, editions: [Part], images: Part?
    ) {
        self.schemaVersion = schemaVersion
        self.generator = generator
        self.generatedAt = generatedAt
        self.source = source
        self.contentHash = contentHash
        self.pageSize = pageSize
        self.defaultEdition = defaultEdition
        self.editions = editions
        self.images = images
    }

    /// The manifest without its entries and images: what ``SnapshotReader`` checks an edition's
    /// entries against, and reads its files with.
    public var head: Manifest {
        Manifest(
            generator: generator, generatedAt: generatedAt, source: source, contentHash: contentHash,
            pageSize: pageSize, defaultEdition: defaultEdition, editions: editions.compactMap(\.edition), files: [])
    }

    /// The path of `edition`'s part.
    public static func path(of edition: Edition) -> String { "\(partsDirectory)/\(edition.id).tsv" }
    /// The path of the image list.
    public static let imagesPath = "\(partsDirectory)/images.json"

    // MARK: - Writing

    /// The index files of `manifest`, each part before `index.json`, which names them: what the
    /// pipeline writes, the updater writes into a generation, and the validator compares.
    ///
    /// - Throws: `EncodingError` or ``CanonicalJSONError`` when the manifest cannot be encoded, or
    ///   ``EditionTable/Refusal`` for an entry whose fields a table cannot hold.
    public static func files(for manifest: Manifest) throws -> [(path: String, data: Data)] {
        var byEdition: [Edition: [Manifest.Entry]] = [:]
        for entry in manifest.files { byEdition[entry.edition, default: []].append(entry) }
        var files: [(path: String, data: Data)] = []
        var parts: [Part] = []
        for edition in manifest.editions {
            let entries = byEdition[edition] ?? []
            let data = try EditionTable.encode(entries)
            let path = path(of: edition)
            files.append((path, data))
            parts.append(Part(edition: edition, bytes: data.count, count: entries.count))
        }
        var imagesPart: Part?
        if let images = manifest.images {
            let data = try encode(ImageList(schemaVersion: manifest.schemaVersion, images: images))
            files.append((imagesPath, data))
            imagesPart = Part(edition: nil, bytes: data.count, count: images.count)
        }
        let index = SnapshotIndex(
            schemaVersion: manifest.schemaVersion, generator: manifest.generator, generatedAt: manifest.generatedAt,
            source: manifest.source, contentHash: manifest.contentHash, pageSize: manifest.pageSize,
            defaultEdition: manifest.defaultEdition, editions: parts, images: imagesPart)
        files.append((fileName, try encode(index)))
        return files
    }

    /// Canonical, but text kept as given: a `source` path from a Mac's file system may be NFD.
    private static func encode(_ value: some Encodable) throws -> Data {
        try CanonicalJSON.canonicalized(CatalogCoding.encoder().encode(value), requiringNFC: false)
    }

    // MARK: - Image list

    /// The content of the image list.
    struct ImageList: Codable {
        var schemaVersion: Int
        var images: [Manifest.Image]
    }
}
