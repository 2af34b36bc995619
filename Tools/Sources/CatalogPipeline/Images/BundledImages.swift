@_spi(CatalogTools) public import CasinoCatalog
public import Foundation

/// The images a snapshot bundles, ready for ``SnapshotWriter``: the manifest's `images` entries
/// and the bytes of each content-addressed file, plus what was refused or dropped and why.
public struct BundledImages: Sendable, Hashable {
    /// One entry per bundled URL, sorted by URL: the manifest's `images`.
    @_spi(CatalogTools) public var entries: [Manifest.Image] = []
    /// The bytes of each file, by its path (`images/<sha256>.<ext>`).
    public var files: [String: Data] = [:]
    /// URLs refused (not https, not recorded, failed, not an image, over the cap) or dropped over
    /// budget; their games keep their URLs.
    public var warnings: [PipelineWarning] = []
    /// URLs dropped because an edition's budget was spent, lowest positions first.
    public var dropped = 0

    public init() {}

    /// The bytes of all files, each counted once.
    public var totalBytes: Int { files.values.reduce(0) { $0 + $1.count } }
}
