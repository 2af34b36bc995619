@_spi(CatalogTools) public import CasinoCatalog
public import Foundation
@_spi(CatalogTools) import ProviderAPI

/// How the pipeline cuts, filters and caps the catalogue. Every property has a documented
/// default; a JSON file (`data/catalog.json`) may override any of them.
///
/// ```json
/// { "editions": ["en-iPhone", "fr-iPhone"], "defaultEdition": "en-iPhone", "pageSize": 10 }
/// ```
public struct PipelineConfiguration: Codable, Sendable, Hashable {
    /// The editions to build; empty means every edition the source has. Empty by default.
    public var editions: [Edition] = []
    /// The edition apps fall back to; the first built edition when `nil`. `nil` by default.
    public var defaultEdition: Edition?
    /// Games per bundled page: 10 by default.
    public var pageSize: Int = 10
    /// Pages bundled per category, from offset 0: 5 by default.
    public var maxPagesPerCategory: Int = 5
    /// The share of a category's records that may be invalid before the build fails:
    /// 0.05 (5 %) by default. Invalid records below it are skipped with a warning.
    public var maxInvalidShare: Double = 0.05
    /// Size caps for hostile input.
    public var limits: Limits = .default
    /// The snapshot contract's caps: what the app's bundled tier reads, and so the most the
    /// writer writes and the validator accepts. ``SnapshotLimits/default`` by default; raise a cap
    /// here only together with the app's `CatalogCache.Configuration.bundleLimits`.
    public var snapshotLimits: SnapshotLimits = .default
    /// Which game images the snapshot bundles (``ImageBundling``): none when `nil`, the default.
    public var bundleImages: ImageBundling?

    /// The defaults.
    public static let `default` = PipelineConfiguration()

    public init() {}

    /// Size caps applied to every input.
    public struct Limits: Codable, Sendable, Hashable {
        /// The largest JSON file read from a recording: 16 MiB by default.
        public var maxJSONFileBytes: Int = 16 << 20
        /// The largest XML feed read: 64 MiB by default.
        public var maxFeedBytes: Int = 64 << 20
        /// The most records one file or feed may hold: 200,000 by default.
        public var maxRecordsPerFile: Int = 200_000

        /// The defaults.
        public static let `default` = Limits()

        public init() {}

        public init(from decoder: any Decoder) throws {
            try KnownKeys.check(decoder, known: ["maxJSONFileBytes", "maxFeedBytes", "maxRecordsPerFile"])
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let defaults = Limits()
            maxJSONFileBytes =
                try container.decodeIfPresent(Int.self, forKey: .maxJSONFileBytes) ?? defaults.maxJSONFileBytes
            maxFeedBytes = try container.decodeIfPresent(Int.self, forKey: .maxFeedBytes) ?? defaults.maxFeedBytes
            maxRecordsPerFile =
                try container.decodeIfPresent(Int.self, forKey: .maxRecordsPerFile) ?? defaults.maxRecordsPerFile
        }
    }

    public init(from decoder: any Decoder) throws {
        try KnownKeys.check(
            decoder,
            known: [
                "editions", "defaultEdition", "pageSize", "maxPagesPerCategory", "maxInvalidShare", "limits",
                "snapshotLimits", "bundleImages",
            ])
        let container = try decoder.container(keyedBy: CodingKeys.self)
        editions = try container.decodeIfPresent([Edition].self, forKey: .editions) ?? []
        defaultEdition = try container.decodeIfPresent(Edition.self, forKey: .defaultEdition)
        pageSize = try container.decodeIfPresent(Int.self, forKey: .pageSize) ?? 10
        maxPagesPerCategory = try container.decodeIfPresent(Int.self, forKey: .maxPagesPerCategory) ?? 5
        maxInvalidShare = try container.decodeIfPresent(Double.self, forKey: .maxInvalidShare) ?? 0.05
        limits = try container.decodeIfPresent(Limits.self, forKey: .limits) ?? .default
        snapshotLimits = try container.decodeIfPresent(SnapshotLimits.self, forKey: .snapshotLimits) ?? .default
        bundleImages = try container.decodeIfPresent(ImageBundling.self, forKey: .bundleImages)
    }

    /// Reads a configuration file; keys it leaves out keep their defaults, and a key it does not
    /// know is an error naming the nearest known one.
    ///
    /// - Throws: ``PipelineError`` naming the file and the bad key.
    public static func load(from url: URL) throws(PipelineError) -> PipelineConfiguration {
        let data = try FileInput.read(url, limit: 1 << 20, what: "configuration")
        let configuration: PipelineConfiguration
        do {
            configuration = try CatalogCoding.decoder().decode(PipelineConfiguration.self, from: data)
        } catch {
            throw PipelineError(
                .invalidConfiguration, DecodingFailure.describe(error), file: url.relativePath)
        }
        try configuration.check(file: url.relativePath)
        return configuration
    }

    /// Checks the values are usable.
    ///
    /// - Throws: ``PipelineError`` naming the bad value.
    public func check(file: String? = nil) throws(PipelineError) {
        func fail(_ message: String) -> PipelineError {
            PipelineError(.invalidConfiguration, message, file: file)
        }
        guard (1...1000).contains(pageSize) else { throw fail("pageSize must be 1...1000, got \(pageSize)") }
        guard (1...10_000).contains(maxPagesPerCategory) else {
            throw fail("maxPagesPerCategory must be 1...10000, got \(maxPagesPerCategory)")
        }
        guard (0...1).contains(maxInvalidShare) else {
            throw fail("maxInvalidShare must be a fraction in 0...1, got \(maxInvalidShare)")
        }
        if let defaultEdition, !editions.isEmpty, !editions.contains(defaultEdition) {
            throw fail("defaultEdition \(defaultEdition) is not one of editions \(editions.map(\.id))")
        }
        for (name, value) in [
            ("maxJSONFileBytes", limits.maxJSONFileBytes), ("maxFeedBytes", limits.maxFeedBytes),
            ("maxRecordsPerFile", limits.maxRecordsPerFile),
        ] where !(1...SnapshotLimits.ceiling).contains(value) {
            throw fail("limits.\(name) must be 1...\(SnapshotLimits.ceiling), got \(value)")
        }
        if let problem = snapshotLimits.problem { throw fail("snapshotLimits.\(problem)") }
        try bundleImages?.check(limits: snapshotLimits, file: file)
    }
}
