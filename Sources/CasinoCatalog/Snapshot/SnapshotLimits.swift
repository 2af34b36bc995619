/// The size caps of the snapshot contract: what an app's bundled tier reads and, therefore, the
/// most the pipeline may write and its validator may accept.
///
/// One value serves both sides. The pipeline's writer refuses, before staging anything, a
/// snapshot that breaks these caps, naming the setting to change; the validator and the app's
/// bundled tier read with the same `SnapshotReader` and the same caps. An operator who raises a
/// cap in the pipeline configuration must raise it in the app's `CatalogCache.Configuration.bundleLimits` too.
///
/// ```swift
/// var limits = SnapshotLimits.default
/// limits.maxManifestBytes = 8 << 20   // a catalogue with many pages per category
/// ```
public struct SnapshotLimits: Codable, Sendable, Hashable {
    /// The largest `manifest.json`: 4 MiB by default (about 10,000 files).
    public var maxManifestBytes: Int = 4 << 20
    /// The most files a manifest may list: 10,000 by default.
    public var maxFileCount: Int = 10_000
    /// The largest snapshot file on disk (its gzip bytes): 16 MiB by default.
    public var maxFileBytes: Int = 16 << 20
    /// The largest JSON inside one snapshot file, once inflated: 16 MiB by default.
    public var maxInflatedBytes: Int = 16 << 20
    /// The most image URLs the manifest's `images` section may list: 2,000 by default.
    public var maxImageCount: Int = 2_000
    /// The largest bundled image file: 1 MiB by default (a lobby thumbnail is tens of KiB).
    public var maxImageBytes: Int = 1 << 20
    /// The most bytes all bundled image files may take together, each file counted once:
    /// 16 MiB by default.
    public var maxImageTotalBytes: Int = 16 << 20

    /// The defaults.
    public static let `default` = SnapshotLimits()

    /// The largest value any cap may take: 1 GiB. Larger caps would let one hostile file
    /// exhaust a phone's memory, and keep every size computation far from `Int` overflow.
    public static let ceiling = 1 << 30

    public init() {}

    /// Keys left out keep their defaults; an unknown key is an error naming the nearest known one.
    public init(from decoder: any Decoder) throws {
        try KnownKeys.check(
            decoder,
            known: [
                "maxManifestBytes", "maxFileCount", "maxFileBytes", "maxInflatedBytes", "maxImageCount",
                "maxImageBytes",
                "maxImageTotalBytes",
            ])
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = SnapshotLimits()
        maxManifestBytes =
            try container.decodeIfPresent(Int.self, forKey: .maxManifestBytes) ?? defaults.maxManifestBytes
        maxFileCount = try container.decodeIfPresent(Int.self, forKey: .maxFileCount) ?? defaults.maxFileCount
        maxFileBytes = try container.decodeIfPresent(Int.self, forKey: .maxFileBytes) ?? defaults.maxFileBytes
        maxInflatedBytes =
            try container.decodeIfPresent(Int.self, forKey: .maxInflatedBytes) ?? defaults.maxInflatedBytes
        maxImageCount = try container.decodeIfPresent(Int.self, forKey: .maxImageCount) ?? defaults.maxImageCount
        maxImageBytes = try container.decodeIfPresent(Int.self, forKey: .maxImageBytes) ?? defaults.maxImageBytes
        maxImageTotalBytes =
            try container.decodeIfPresent(Int.self, forKey: .maxImageTotalBytes) ?? defaults.maxImageTotalBytes
    }

    /// Every cap by its name, for checks and messages.
    public var caps: [(name: String, value: Int)] {
        [
            ("maxManifestBytes", maxManifestBytes), ("maxFileCount", maxFileCount), ("maxFileBytes", maxFileBytes),
            ("maxInflatedBytes", maxInflatedBytes), ("maxImageCount", maxImageCount), ("maxImageBytes", maxImageBytes),
            ("maxImageTotalBytes", maxImageTotalBytes),
        ]
    }

    /// The first cap that is not in `1...ceiling`, with a message saying so; `nil` when all are usable.
    public var problem: String? {
        for (name, value) in caps where !(1...Self.ceiling).contains(value) {
            return "\(name) must be 1...\(Self.ceiling), got \(value)"
        }
        return nil
    }
}
