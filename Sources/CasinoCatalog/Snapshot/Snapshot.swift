public import Foundation

/// The envelope every snapshot file holds: what the payload is, which schema it follows, when
/// it was generated and a hash of its content.
///
/// A snapshot file is the gzip of the JSON of a `Snapshot<CategoryList>` or a
/// `Snapshot<GamesPage>`; `Manifest` lists them.
@_spi(CatalogTools) public struct Snapshot<Payload: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    /// The schema the file follows; readers reject any other than ``CatalogSchema/version``.
    public var schemaVersion: Int
    /// The edition the payload belongs to.
    public var edition: Edition
    /// What the payload is.
    public var kind: SnapshotKind
    /// The content's identity.
    public var key: SnapshotKey
    /// `sha256:` and the hex SHA-256 of the payload's JSON: equal hashes mean equal content,
    /// whatever `generatedAt` says.
    public var contentHash: String
    /// When the source data was fetched (or `SOURCE_DATE_EPOCH`).
    public var generatedAt: Date
    /// The content.
    public var payload: Payload

    public init(key: SnapshotKey, contentHash: String, generatedAt: Date, payload: Payload) {
        self.schemaVersion = CatalogSchema.version
        self.edition = key.edition
        self.kind = key.kind
        self.key = key
        self.contentHash = contentHash
        self.generatedAt = generatedAt
        self.payload = payload
    }
}
