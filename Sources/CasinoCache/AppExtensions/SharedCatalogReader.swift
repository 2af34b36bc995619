@_spi(CatalogTools) public import CasinoCatalog
public import Foundation
public import Logging

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The app's catalogue as its widget, or another app extension, reads it: the over-the-air
/// generation the app installed into an App Group container, else the extension's own bundle.
///
/// A reader never touches the network, never writes a file and never refreshes: it answers the
/// synchronous reads of ``CatalogCache`` from one snapshot directory, chosen when it is made,
/// through the same answer path (the player's territory and the withdrawals apply). The app
/// places ``SnapshotUpdater/Configuration/directory`` in the group's container and the extension
/// names the same folder:
///
/// ```swift
/// let group = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.com.example.casino")!
/// // The app: updater.directory = group.appendingPathComponent("CasinoCatalog")
/// // The widget, in its timeline provider:
/// let reader = SharedCatalogReader(
///     configuration: .init(
///         sharedDirectory: group.appendingPathComponent("CasinoCatalog"),
///         bundleDirectory: Bundle.main.url(forResource: "CasinoCatalog", withExtension: nil)))
/// let lobby = reader.categories(edition: edition)
/// ```
///
/// **Why no lock is needed.** A generation is immutable. The current one is read whole or not at
/// all: made when it is, the reader checks that every file of it is there, and passes over one
/// that is missing, half-deleted, unreadable or older than its bundle for the bundle. The app
/// keeps a generation it replaces for ``SnapshotUpdater/Configuration/retiredGenerationRetention``
/// (an hour by default) and removes one by renaming it first, so a reader used within that time
/// never finds its files gone and never mixes two generations. Make one per timeline request;
/// never create a ``SnapshotUpdater`` in an extension (it removes what it does not serve).
public final class SharedCatalogReader: Sendable {
    /// Where the shared generation, the extension's bundle and the app's saved state are.
    public struct Configuration: Sendable {
        /// The app's ``SnapshotUpdater/Configuration/directory``, inside the App Group container.
        /// No default.
        public var sharedDirectory: URL
        /// The snapshot the extension bundles (`out/`), or `nil`: what serves when no shared
        /// generation is usable. No default.
        public var bundleDirectory: URL?
        /// The app's cache directory (`CatalogCache`'s `cacheDirectory`), when it is in the group
        /// too: the player's territory and the withdrawals the app saved there (pushed since the
        /// generation was published) then apply, read only. `nil` by default: no territory is
        /// known (``CatalogCache/Configuration/unknownTerritoryPolicy`` decides), and only what the
        /// generation's content already leaves out is withdrawn.
        public var territoryDirectory: URL?
        /// The app cache's settings that apply to reading: ``CatalogCache/Configuration/bundleLimits``,
        /// the page size, the territory policy and the memory limits. `.default` by default.
        public var cache: CatalogCache.Configuration = .default

        /// - Parameters:
        ///   - sharedDirectory: The app's updater directory in the App Group container.
        ///   - bundleDirectory: The extension's bundled snapshot, or `nil`.
        public init(sharedDirectory: URL, bundleDirectory: URL?) {
            self.sharedDirectory = sharedDirectory
            self.bundleDirectory = bundleDirectory
        }
    }

    /// Which snapshot a reader answers from.
    public enum Source: Sendable, Hashable {
        /// The app's over-the-air generation of this published version.
        case shared(version: Int)
        /// The extension's own bundle.
        case bundle
        /// Nothing: every read is a miss.
        case none
    }

    /// What the reader was made with.
    public let configuration: Configuration
    /// The snapshot every answer comes from, for the reader's lifetime.
    public let source: Source
    /// The directory of ``source``, or `nil`.
    public let directory: URL?
    private let cache: CatalogCache

    /// Picks the snapshot: the shared directory's current generation when it is whole, reads and
    /// is not older than the bundle, else the bundle. Reads the pointer, the generation's index
    /// and each of its files' metadata, and the saved state: make it off the main thread.
    ///
    /// - Parameters:
    ///   - configuration: The shared directory, the bundle and the settings.
    ///   - logger: Where the choice and a passed-over generation are logged; nowhere by default.
    public init(configuration: Configuration, logger: Logger = .casinoCacheDisabled) {
        self.configuration = configuration
        let limits = configuration.cache.bundleLimits
        let bundleGeneratedAt = configuration.bundleDirectory.flatMap {
            try? SnapshotReader(directory: $0, limits: limits).head().generatedAt
        }
        let store = GenerationStore(directory: configuration.sharedDirectory)
        var shared: GenerationStore.Pointer?
        if let pointer = store.pointer(),
            store.isServable(pointer, limits: limits, bundleGeneratedAt: bundleGeneratedAt)
        {
            if let problem = Self.problem(with: store.generationDirectory(pointer.generation), limits: limits) {
                logger.warning(
                    "The shared snapshot generation is not whole; reading the bundle",
                    metadata: ["ota.generation": "\(pointer.generation)", "ota.problem": "\(problem)"])
            } else {
                shared = pointer
            }
        }
        if let shared {
            source = .shared(version: shared.version)
            directory = store.generationDirectory(shared.generation)
        } else {
            source = bundleGeneratedAt == nil ? .none : .bundle
            directory = bundleGeneratedAt == nil ? nil : configuration.bundleDirectory
        }
        let bundled = directory.map {
            BundledTier(configuration: .init(directory: $0, limits: limits), logger: logger)
        }
        cache = CatalogCache(
            configuration: configuration.cache, upstream: NoUpstream(), memory: nil, disk: nil, bundled: bundled,
            mutationQueue: nil, territoryDirectory: configuration.territoryDirectory, savesTerritory: false,
            clock: SystemClock(), logger: logger)
        logger.debug("Shared catalogue reader made", metadata: ["shared.source": "\(source)"])
    }

    /// The editions of ``source``, sorted.
    public var editions: [Edition] { cache.bundledEditions }

    /// The edition for a device, as ``CatalogCache/bundledEdition(language:platform:)`` picks it.
    public func edition(language: String, platform: Platform) -> Edition? {
        cache.bundledEdition(language: language, platform: platform)
    }

    /// The territory answers are filtered for, as the app saved it; `nil` when none is known.
    public var territory: Territory? { cache.territory }

    /// An edition's categories, as ``CatalogCache/cachedCategories(edition:)`` answers from the
    /// bundled tier: `.bundled`, or `.miss`.
    public func categories(edition: Edition) -> CacheResult<CategoryList> {
        cache.cachedCategories(edition: edition)
    }

    /// A page of games, as ``CatalogCache/cachedGamesPage(edition:categoryId:offset:)`` answers
    /// from the bundled tier: `.bundled`, or `.miss`.
    public func gamesPage(edition: Edition, categoryId: String, offset: Int = 0) -> CacheResult<GamesPage> {
        cache.cachedGamesPage(edition: edition, categoryId: categoryId, offset: offset)
    }

    /// The image ``source`` bundles for `url`, checked as ``CatalogCache/bundledImage(for:)-(String)``
    /// checks it, or `nil`.
    public func bundledImage(for url: String) -> BundledImage? {
        cache.bundledImage(for: url)
    }

    /// What the extension shows and why, as ``CatalogCache/inspection(updater:)`` reports it: the
    /// keys read so far, each withheld game with its reason, the territory and withdrawals the app
    /// saved, and the snapshot read (the app's generation, or the extension's bundle).
    public func inspection() async -> CacheInspection {
        await cache.inspection()
    }

    /// Why the generation in `directory` cannot be read whole, or `nil`: its index (or without
    /// one, its manifest) breaks the contract, or a file it lists is missing, not a regular file,
    /// or of another size. Reads the index's tables, not the manifest's JSON: a tenth of the time.
    static func problem(with directory: URL, limits: SnapshotLimits) -> String? {
        let reader = SnapshotReader(directory: directory, limits: limits)
        var files: [(path: String, bytes: Int)] = []
        do {
            var manifest: Manifest
            if let index = try reader.index() {
                manifest = index.head
                for edition in index.head.editions {
                    files += try reader.manifest(of: edition, in: index).files.map { ($0.path, $0.compressedBytes) }
                }
                manifest.images = try reader.images(in: index)
            } else {
                manifest = try reader.manifest()
                files = manifest.files.map { ($0.path, $0.compressedBytes) }
            }
            files += manifest.imageFiles.map { ($0.path, $0.bytes) }
        } catch {
            return "\(error)"
        }
        for (path, bytes) in files {
            var info = stat()
            guard lstat(directory.appendingPathComponent(path).path, &info) == 0 else {
                return "\(path): \(String(cString: strerror(errno)))"
            }
            guard info.st_mode & S_IFMT == S_IFREG, info.st_size == Int64(bytes) else {
                return "\(path): not a regular file of \(bytes) bytes"
            }
        }
        return nil
    }
}

/// The upstream of a reader's cache: it never asks (only synchronous reads are made), and would
/// be refused if it did.
struct NoUpstream: CatalogUpstream {
    func categories(edition: Edition, etag: String?) async throws -> UpstreamResponse<CategoryList> {
        throw Self.refusal
    }

    func gamesPage(
        edition: Edition, categoryId: String, offset: Int, limit: Int, etag: String?
    ) async throws -> UpstreamResponse<GamesPage> {
        throw Self.refusal
    }

    private static var refusal: UpstreamError {
        UpstreamError(.offline, "a shared catalogue reader never uses the network")
    }
}
