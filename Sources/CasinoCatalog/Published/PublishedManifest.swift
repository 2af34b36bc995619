public import Foundation

/// What a published snapshot set holds, as signed by `catalog publish`: a version that only goes
/// up, an expiry, and every file of the snapshot by its SHA-256.
///
/// The files live beside it, content-addressed and immutable: `files/<sha256>`, the snapshot's own
/// `manifest.json` among them (``manifest``). An updater downloads a file only when it holds no
/// file with that hash, checks size and hash, and lays it out at ``File/path`` in a new generation.
/// It may carry the provider's ``WithdrawalList`` (``withdrawals``), which an app applies at once.
///
/// ```json
/// {"contentHash":"sha256:…","expiresAt":"2025-07-01T00:00:00Z","files":[{"bytes":312,
///  "path":"en-iPhone/categories.json.gz","sha256":"9f…"}],"formatVersion":1,
///  "generatedAt":"2025-05-30T12:00:00Z","manifest":{"bytes":4120,"path":"manifest.json","sha256":"41…"},
///  "publishedAt":"2025-06-01T00:00:00Z","schemaVersion":1,"version":8}
/// ```
@_spi(CatalogTools) public struct PublishedManifest: Codable, Sendable, Hashable {
    /// The ``formatVersion`` this build writes and reads.
    public static let currentFormatVersion = 1
    /// The folder of a published set that holds the content-addressed files.
    public static let filesDirectory = "files"

    /// ``currentFormatVersion``; a reader refuses any other.
    public var formatVersion: Int
    /// The set's version: 1 for the first, one more (at least) for each later one. An app refuses
    /// a version that is not above the one it installed.
    public var version: Int
    /// When the set was published (the publisher's wall clock).
    public var publishedAt: Date
    /// After this an app refuses the set: a stolen old set cannot be replayed for ever.
    public var expiresAt: Date
    /// The snapshot's ``CatalogSchema/version``: an app of another schema refuses the set before
    /// downloading any file.
    public var schemaVersion: Int
    /// The snapshot manifest's `generatedAt`: an app never installs a set older than its bundle.
    public var generatedAt: Date
    /// The snapshot manifest's `contentHash`.
    public var contentHash: String
    /// The snapshot's `manifest.json`.
    public var manifest: File
    /// Every snapshot file, sorted by path, as the snapshot manifest lists them.
    public var files: [File]
    /// The provider's complete withdrawal list when the set was published (`catalog publish
    /// --withdrawals`), or `nil`: an app applies it to every tier at once, not from the next launch.
    /// `nil` means no news, not that nothing is withdrawn.
    public var withdrawals: WithdrawalList?

    public init(
        version: Int, publishedAt: Date, expiresAt: Date, generatedAt: Date, contentHash: String, manifest: File,
        files: [File], withdrawals: WithdrawalList? = nil
    ) {
        formatVersion = Self.currentFormatVersion
        schemaVersion = CatalogSchema.version
        self.version = version
        self.publishedAt = publishedAt
        self.expiresAt = expiresAt
        self.generatedAt = generatedAt
        self.contentHash = contentHash
        self.manifest = manifest
        self.files = files
        self.withdrawals = withdrawals
    }

    /// One file of the snapshot.
    public struct File: Codable, Sendable, Hashable {
        /// Where it goes in the snapshot directory (`en-iPhone/categories.json.gz`).
        public var path: String
        /// Its size in bytes.
        public var bytes: Int
        /// The lowercase hex SHA-256 of its bytes, which is also its name in ``filesDirectory``.
        public var sha256: String

        public init(path: String, bytes: Int, sha256: String) {
            self.path = path
            self.bytes = bytes
            self.sha256 = sha256
        }

        /// Its path in a published set: `files/<sha256>`.
        public var publishedPath: String { PublishedManifest.filesDirectory + "/" + sha256 }

        /// Every file a snapshot's manifest lists: its content files, then its distinct image
        /// files. What a set publishes and an update installs.
        public static func listed(in manifest: Manifest) -> [File] {
            manifest.files.map { File(path: $0.path, bytes: $0.compressedBytes, sha256: $0.sha256) }
                + manifest.imageFiles.map { File(path: $0.path, bytes: $0.bytes, sha256: $0.sha256) }
        }
    }

    private enum CodingKeys: String, CodingKey {
        case formatVersion, version, publishedAt, expiresAt, schemaVersion, generatedAt, contentHash, manifest, files,
            withdrawals
    }

    /// The user-info key of the most files ``init(from:)`` decodes; more fail before any is decoded.
    public static let maxFileCountKey = CodingUserInfoKey(rawValue: "PublishedManifest.maxFileCount")!

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        formatVersion = try container.decode(Int.self, forKey: .formatVersion)
        version = try container.decode(Int.self, forKey: .version)
        publishedAt = try container.decode(Date.self, forKey: .publishedAt)
        expiresAt = try container.decode(Date.self, forKey: .expiresAt)
        schemaVersion = try container.decode(Int.self, forKey: .schemaVersion)
        generatedAt = try container.decode(Date.self, forKey: .generatedAt)
        contentHash = try container.decode(String.self, forKey: .contentHash)
        manifest = try container.decode(File.self, forKey: .manifest)
        var list = try container.nestedUnkeyedContainer(forKey: .files)
        let maxCount = decoder.userInfo[Self.maxFileCountKey] as? Int ?? Int.max
        if let count = list.count, count > maxCount {
            throw TooManyFiles(count: count, maxCount: maxCount)
        }
        var files: [File] = []
        files.reserveCapacity(min(list.count ?? 0, 10_000))
        while !list.isAtEnd {
            guard files.count < maxCount else { throw TooManyFiles(count: files.count + 1, maxCount: maxCount) }
            files.append(try list.decode(File.self))
        }
        self.files = files
        withdrawals = try container.decodeIfPresent(WithdrawalList.self, forKey: .withdrawals)
    }

    /// Thrown by ``init(from:)`` for a list longer than the decoder's ``maxFileCountKey``.
    public struct TooManyFiles: Error, Sendable, Hashable {
        /// How many files the list holds (at least).
        public var count: Int
        /// The cap.
        public var maxCount: Int
    }

    /// Decodes `data` with the catalogue's date format, refusing more than `maxFileCount` files.
    public static func decode(_ data: Data, maxFileCount: Int) throws -> PublishedManifest {
        let decoder = CatalogCoding.decoder()
        decoder.userInfo[maxFileCountKey] = maxFileCount
        return try decoder.decode(PublishedManifest.self, from: data)
    }
}
