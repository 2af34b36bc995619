public import Foundation

/// What an app reads of a snapshot directory at launch (`index.json`): the manifest's head with its
/// editions; each edition's entries are in a table of their own (`index/<edition>.tsv`, an
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
/// from a verified manifest): its entries must keep the manifest's rules and a table must end with
/// its row count, but it carries no digest of its own; every snapshot file it names is still checked
/// against its SHA-256 when read.
///
/// ```
/// index.json               {"contentHash":…,"defaultEdition":"en-iPhone","editions":["en-iPhone"],"files":[],…}
/// index/en-iPhone.tsv      path⇥key⇥count⇥…, one row per entry of en-iPhone, then rows⇥201
/// index/images.json        {"images":[…the manifest's images…],"schemaVersion":1}
/// ```
@_spi(CatalogTools) public struct SnapshotIndex: Codable, Sendable, Hashable {
    /// The name of the index inside a snapshot directory.
    public static let fileName = "index.json"
    /// The directory of the editions' tables and the image list.
    public static let partsDirectory = "index"

    /// The manifest without its entries and images (`Manifest/head`): what `SnapshotReader`
    /// checks an edition's entries against and reads its files with. Its editions, plain ids (an
    /// object per edition took three times as long to decode), each have a table at ``path(of:)``.
    public var head: Manifest
    /// How many images the image list (``imagesPath``) names, or `nil` when the manifest has none.
    public var imageCount: Int?

    public init(head: Manifest, imageCount: Int?) {
        self.head = head
        self.imageCount = imageCount
    }

    private enum CodingKeys: String, CodingKey {
        case imageCount
    }

    /// `index.json` is the head's own JSON (`files` empty, no `images`) with `imageCount` beside
    /// its fields.
    public init(from decoder: any Decoder) throws {
        head = try Manifest(from: decoder)
        imageCount = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Int.self, forKey: .imageCount)
    }

    public func encode(to encoder: any Encoder) throws {
        try head.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(imageCount, forKey: .imageCount)
    }

    /// The path of `edition`'s table: given by the edition, never read from a file.
    public static func path(of edition: Edition) -> String { "\(partsDirectory)/\(edition.id).tsv" }
    /// The path of the image list.
    public static let imagesPath = "\(partsDirectory)/images.json"

    // MARK: - Writing

    /// The index files of `manifest`, each table before `index.json`, which names them: what the
    /// pipeline writes, the updater writes into a generation, and the validator compares.
    ///
    /// - Throws: `EncodingError` or `CanonicalJSONError` when the manifest cannot be encoded, or
    ///   ``EditionTable/Refusal`` for an entry whose fields a table cannot hold.
    public static func files(for manifest: Manifest) throws -> [(path: String, data: Data)] {
        var byEdition: [Edition: [Manifest.Entry]] = [:]
        for entry in manifest.files { byEdition[entry.edition, default: []].append(entry) }
        var files: [(path: String, data: Data)] = []
        for edition in manifest.editions {
            files.append((path(of: edition), try EditionTable.encode(byEdition[edition] ?? [])))
        }
        if let images = manifest.images {
            files.append((imagesPath, try encode(ImageList(schemaVersion: manifest.schemaVersion, images: images))))
        }
        let index = SnapshotIndex(head: manifest.head, imageCount: manifest.images?.count)
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
