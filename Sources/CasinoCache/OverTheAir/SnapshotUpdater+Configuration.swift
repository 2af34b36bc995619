@_spi(CatalogTools) public import CasinoCatalog
public import Foundation

extension SnapshotUpdater {
    /// Where the published set is, which keys sign it, where generations are installed, and how
    /// much an update may fetch and for how long.
    ///
    /// ```swift
    /// var configuration = SnapshotUpdater.Configuration(
    ///     manifestURL: URL(string: "https://cdn.example.com/catalog/manifest.json")!,
    ///     verifier: try Ed25519SignatureVerifier(base64PublicKey: pinnedKey),
    ///     directory: applicationSupport.appendingPathComponent("CasinoCatalog"),
    ///     bundleDirectory: Bundle.main.url(forResource: "out", withExtension: nil))
    /// configuration.updateTimeout = 120
    /// ```
    public struct Configuration: Sendable {
        /// The published set's signed manifest (`<set>/manifest.json`); files are fetched from
        /// `files/<sha256>` beside it. No default.
        public var manifestURL: URL
        /// The pinned keys: a manifest is accepted when any of them verifies its signature (pin
        /// the next key beside the current one before rotating). No default.
        public var verifiers: [any SnapshotSignatureVerifier]
        /// Where generations are installed: a folder of the app's support directory, not of its
        /// caches (a purged generation would be fetched again). No default.
        public var directory: URL
        /// The snapshot the app bundles (`out/`), or `nil`: its files are reused instead of
        /// downloaded, and a published snapshot older than it is never installed. `nil` by default.
        public var bundleDirectory: URL?
        /// The snapshot contract's caps a new generation is checked with: `SnapshotLimits.default`
        /// by default, as the bundled tier reads (keep equal to `CatalogCache.Configuration.bundleLimits`).
        public var snapshotLimits: SnapshotLimits = .default
        /// The largest signed manifest: 8 MiB by default.
        public var maxManifestBytes = SignedManifest.defaultMaxBytes
        /// The most files a published set may list: 10,000 by default.
        public var maxFileCount = SnapshotLimits.default.maxFileCount
        /// The largest file: 16 MiB by default.
        public var maxFileBytes = SnapshotLimits.default.maxFileBytes
        /// The most bytes a set's files may add up to, and so the most one update downloads:
        /// 128 MiB by default.
        public var maxTotalBytes = 128 << 20
        /// The longest one request may take, body included, in seconds: 15 by default.
        public var requestTimeout: TimeInterval = 15
        /// The longest a whole update may take, in seconds: 25 by default, so a check fits the
        /// 30 seconds iOS grants a background refresh; raise it for a large set checked in the
        /// foreground. An update cut short installs nothing; the next check starts again (reusing
        /// nothing it downloaded).
        public var updateTimeout: TimeInterval = 25
        /// How long a generation stays on disk after a newer one replaces it, in seconds, so an app
        /// extension that opened it (``SharedCatalogReader``) reads it whole: an hour by default.
        /// At most the 16 last replaced are kept; 0 keeps none. An extension never outlives it by
        /// reading one ``SharedCatalogReader`` for no longer than that.
        public var retiredGenerationRetention: TimeInterval = 3600
        /// Files downloaded at once: 4 by default.
        public var maxConcurrentDownloads = 4
        /// Headers added to every request (a user agent, a CDN token): none by default.
        public var additionalHeaders: [String: String] = [:]
        /// The Data Protection class of the installed generations on Apple platforms:
        /// ``CacheFileProtection/completeUntilFirstUserAuthentication`` by default, so a background
        /// check after a reboot can install. ``directory`` is also excluded from backups there (a
        /// generation can be downloaded again). Ignored off Apple platforms.
        public var fileProtection: CacheFileProtection = .default

        /// - Parameters:
        ///   - manifestURL: The published set's `manifest.json`.
        ///   - verifier: The pinned key.
        ///   - directory: Where generations are installed.
        ///   - bundleDirectory: The app's bundled snapshot, or `nil`.
        public init(
            manifestURL: URL, verifier: any SnapshotSignatureVerifier, directory: URL, bundleDirectory: URL? = nil
        ) {
            self.manifestURL = manifestURL
            verifiers = [verifier]
            self.directory = directory
            self.bundleDirectory = bundleDirectory
        }

        /// The caps a published manifest is checked against.
        var manifestLimits: PublishedManifest.Limits {
            PublishedManifest.Limits(
                maxFileCount: maxFileCount, maxFileBytes: maxFileBytes, maxTotalBytes: maxTotalBytes)
        }

        /// The first setting out of range, or `nil`.
        var problem: String? {
            if verifiers.isEmpty { return "no pinned key: give at least one verifier" }
            for (name, value) in [
                ("maxManifestBytes", maxManifestBytes), ("maxFileCount", maxFileCount), ("maxFileBytes", maxFileBytes),
                ("maxTotalBytes", maxTotalBytes),
            ] where !(1...SnapshotLimits.ceiling).contains(value) {
                return "\(name) must be 1...\(SnapshotLimits.ceiling), got \(value)"
            }
            if !(1...64).contains(maxConcurrentDownloads) { return "maxConcurrentDownloads must be 1...64" }
            for (name, value) in [("requestTimeout", requestTimeout), ("updateTimeout", updateTimeout)]
            where !(value.isFinite && value > 0 && value <= 86_400) {
                return "\(name) must be more than 0 and at most a day, got \(value)"
            }
            if !(retiredGenerationRetention.isFinite && (0...30 * 86_400).contains(retiredGenerationRetention)) {
                return "retiredGenerationRetention must be 0...30 days in seconds, got \(retiredGenerationRetention)"
            }
            return snapshotLimits.problem
        }
    }

    /// What a check for an update did.
    public enum Outcome: Sendable {
        /// The installed generation (or the bundle, `nil`) is the newest published; nothing was
        /// downloaded but the manifest, if that.
        case upToDate(version: Int?)
        /// A new generation was installed; it serves from the next launch (``SnapshotUpdater/activeSnapshotDirectory``).
        case installed(Installation)
        /// The published set is not acceptable; the installed generation keeps serving.
        case refused(SnapshotUpdateError)
    }

    /// A generation installed by an update.
    public struct Installation: Sendable, Hashable {
        /// The published version installed.
        public var version: Int
        /// The version it replaces, or `nil` when the bundle served before.
        public var previousVersion: Int?
        /// The generation's snapshot directory.
        public var directory: URL
        /// Files downloaded (the snapshot manifest included).
        public var filesDownloaded: Int
        /// Bytes downloaded for them (the signed manifest not included).
        public var bytesDownloaded: Int
        /// Files taken from the previous generation or the bundle instead.
        public var filesReused: Int
        /// The provider's withdrawal list signed with the set, or `nil`: apply it now
        /// (``CatalogCache/checkForSnapshotUpdate(with:)`` does), not from the next launch.
        public var withdrawals: WithdrawalList?
    }
}
