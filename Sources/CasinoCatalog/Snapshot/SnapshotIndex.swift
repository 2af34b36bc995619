import CatalogSupport
public import Foundation

/// What an app reads of a snapshot directory at launch (`index.json`): the manifest's head, and
/// for each edition the file listing that edition's entries (`index/<edition>.json`), so opening
/// one edition costs what that edition holds, however many files the other editions hold.
///
/// An index is derived from `manifest.json`, which stays the snapshot's one table of contents
/// (tools, published sets and apps built before the index read it): the pipeline writes the index
/// beside it and the over-the-air updater writes one into each generation it installs, with
/// ``files(for:)``. It is canonical JSON, so the validator proves it by writing it again and
/// comparing bytes. A directory without `index.json` is read through `manifest.json`.
///
/// ```
/// index.json               {"contentHash":…,"defaultEdition":"en-iPhone","editions":[{"bytes":71022,
///                           "count":201,"edition":"en-iPhone","path":"index/en-iPhone.json",…}],…}
/// index/en-iPhone.json     {"edition":"en-iPhone","files":[…the manifest's entries of en-iPhone…],…}
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

    /// One file of the index: where it is, its size and SHA-256, and how many entries it lists.
    public struct Part: Codable, Sendable, Hashable {
        /// The edition whose entries it lists; `nil` for the image list.
        public var edition: Edition?
        /// `index/<edition>.json` or `index/images.json`: never taken from anything but an edition id.
        public var path: String
        /// The file's size in bytes.
        public var bytes: Int
        /// The hex SHA-256 of the file's bytes.
        public var sha256: String
        /// The entries it lists.
        public var count: Int
    }

    /// The manifest without its entries and images: what ``SnapshotReader`` checks an edition's
    /// entries against, and reads its files with.
    public var head: Manifest {
        Manifest(
            generator: generator, generatedAt: generatedAt, source: source, contentHash: contentHash,
            pageSize: pageSize, defaultEdition: defaultEdition, editions: editions.compactMap(\.edition), files: [])
    }

    /// The path of `edition`'s part.
    public static func path(of edition: Edition) -> String { "\(partsDirectory)/\(edition.id).json" }
    /// The path of the image list.
    public static let imagesPath = "\(partsDirectory)/images.json"

    // MARK: - Writing

    /// The index files of `manifest`, each part before `index.json`, which names them: what the
    /// pipeline writes, the updater writes into a generation, and the validator compares.
    ///
    /// - Throws: `EncodingError` or ``CanonicalJSONError`` when the manifest cannot be encoded.
    public static func files(for manifest: Manifest) throws -> [(path: String, data: Data)] {
        var byEdition: [Edition: [Manifest.Entry]] = [:]
        for entry in manifest.files { byEdition[entry.edition, default: []].append(entry) }
        var files: [(path: String, data: Data)] = []
        var parts: [Part] = []
        for edition in manifest.editions {
            let entries = byEdition[edition] ?? []
            let data = try encode(EditionList(schemaVersion: manifest.schemaVersion, edition: edition, files: entries))
            let path = path(of: edition)
            files.append((path, data))
            parts.append(
                Part(edition: edition, path: path, bytes: data.count, sha256: digest(data), count: entries.count))
        }
        var imagesPart: Part?
        if let images = manifest.images {
            let data = try encode(ImageList(schemaVersion: manifest.schemaVersion, images: images))
            files.append((imagesPath, data))
            imagesPart = Part(
                edition: nil, path: imagesPath, bytes: data.count, sha256: digest(data), count: images.count)
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

    private static func digest(_ data: Data) -> String {
        SHA256Digest.hex(data)
    }

    // MARK: - Parts

    /// The content of an edition's part.
    struct EditionList: Codable {
        var schemaVersion: Int
        var edition: Edition
        var files: [Manifest.Entry]
    }

    /// The content of the image list.
    struct ImageList: Codable {
        var schemaVersion: Int
        var images: [Manifest.Image]
    }
}
