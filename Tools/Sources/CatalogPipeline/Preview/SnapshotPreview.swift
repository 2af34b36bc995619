@_spi(CatalogTools) public import CasinoCatalog
public import Foundation

/// What a player sees on the first launch of an app shipping a snapshot, offline: per edition, the
/// categories in lobby order, each with its first bundled page's tiles and their bundled thumbnails,
/// and which of those games the cache withholds. What `catalog preview` renders as static HTML
/// (``html(of:)``, ``indexHTML()``, ``write(to:)``).
///
/// Everything is read with ``SnapshotReader``, as the app's bundled tier reads it; a tile's
/// thumbnail is the manifest's image for the game's `thumbnail` URL, the runtime's lookup
/// (`BundledImageStore`), its file checked by ``SnapshotReader/image(_:verifyingChecksum:)``. A file
/// that is missing, or whose size, SHA-256 or type is not the manifest's, becomes a
/// ``Thumbnail/missing(_:reason:)`` or ``Thumbnail/tampered(_:reason:)`` tile, never an image.
///
/// ```swift
/// let preview = try SnapshotPreview(snapshot: URL(fileURLWithPath: "out"))
/// try preview.write(to: URL(fileURLWithPath: ".catalog/preview"))
/// ```
public struct SnapshotPreview: Sendable {
    /// The snapshot's manifest.
    @_spi(CatalogTools) public var manifest: Manifest
    /// Each edition, in the manifest's order.
    public var editions: [EditionPreview]
    /// When the preview was made: the snapshot's age is measured to it.
    public var madeAt: Date
    /// The player's territory (an upper-case code), or `nil` when the app does not know it yet.
    public var territory: String?
    /// The verified bytes of every thumbnail a tile shows, by its path (`images/<sha256>.<ext>`).
    public var imageFiles: [String: Data]

    /// One edition's first screen.
    public struct EditionPreview: Sendable, Hashable {
        public var edition: Edition
        /// Whether the app falls back to this edition when its own is not bundled.
        public var isDefault: Bool
        /// The categories in lobby order.
        public var categories: [CategoryPreview]
        /// The edition's content files (its category list and pages) and their sizes.
        public var files: Int
        public var compressedBytes: Int
        public var uncompressedBytes: Int

        /// Every tile of the first pages.
        public var tiles: [Tile] { categories.flatMap(\.tiles) }
    }

    /// A page's thumbnails counted by what they show.
    public struct ThumbnailCounts: Sendable, Hashable {
        public var bundled = 0
        public var missing = 0
        public var tampered = 0
        public var notBundled = 0

        public init(_ tiles: [Tile]) {
            for tile in tiles {
                switch tile.thumbnail {
                case .bundled: bundled += 1
                case .missing: missing += 1
                case .tampered: tampered += 1
                case .notBundled: notBundled += 1
                }
            }
        }

        public var text: String {
            "\(bundled) bundled, \(missing) missing, \(tampered) tampered, \(notBundled) not bundled"
        }
    }

    /// A category and its first page.
    public struct CategoryPreview: Sendable, Hashable {
        public var category: Category
        /// The first page's games as tiles; empty when the snapshot bundles no page for it.
        public var tiles: [Tile]
        /// Whether the snapshot bundles the category's first page (offset 0).
        public var isFirstPageBundled: Bool
    }

    /// One game's tile.
    public struct Tile: Sendable, Hashable {
        public var game: Game
        @_spi(CatalogTools) public var thumbnail: Thumbnail
        /// Whether the cache withholds the game from this player (``SnapshotPreview/isWithheld(_:in:)``).
        public var isWithheld: Bool
    }

    /// What a tile shows for its thumbnail.
    @_spi(CatalogTools) public enum Thumbnail: Sendable, Hashable {
        /// The bundled file, checked: shown as the image.
        case bundled(Manifest.Image)
        /// The snapshot bundles no image for the game's thumbnail URL (the app loads it over the network).
        case notBundled
        /// The manifest lists an image whose file is not there (or cannot be read).
        case missing(Manifest.Image, reason: String)
        /// The file is not what the manifest says: another size, SHA-256 or type, or not a file.
        case tampered(Manifest.Image, reason: String)
    }

    /// Reads the snapshot in `directory`: its manifest, every edition's categories and first pages,
    /// and the thumbnails those pages name.
    ///
    /// - Parameters:
    ///   - directory: The snapshot directory (`out/`).
    ///   - territory: The player's territory (`GB`, `ca-on`), or `nil` for a player the app has not
    ///     placed yet: then every game restricted anywhere is withheld, the cache's default policy.
    ///   - now: What the snapshot's age is measured to; the wall clock by default.
    ///   - limits: The caps every read applies.
    /// - Throws: ``PipelineError``: `invalid-configuration` for a malformed territory; the reader's
    ///   error, naming the file, for a manifest, category list or page that does not read.
    public init(
        snapshot directory: URL, territory: String? = nil, now: Date = Date(), limits: SnapshotLimits = .default
    ) throws(PipelineError) {
        var code: String?
        if let territory {
            code = CatalogRules.territoryCode(territory)
            guard code != nil else {
                throw PipelineError(
                    .invalidConfiguration,
                    "'\(territory.prefix(40))' is not a territory code: an ISO 3166-1 alpha-2 code with an optional subdivision (GB, CA-ON)"
                )
            }
        }
        self.territory = code
        madeAt = now
        let reader = SnapshotReader(directory: directory, limits: limits, sha256Hex: FileNaming.hexSHA256)
        var thumbnails = ThumbnailLookup(reader: reader)
        do throws(SnapshotReadError) {
            manifest = try reader.manifest()
            thumbnails.index(manifest.images ?? [])
            let entries = Dictionary(manifest.files.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
            editions = []
            for edition in manifest.editions {
                guard let listEntry = entries[.categories(edition)] else {
                    throw SnapshotReadError(
                        .notFound, file: Manifest.fileName, "lists edition \(edition) but no category list for it")
                }
                var categories: [CategoryPreview] = []
                for category in try reader.categories(of: listEntry, in: manifest).items {
                    let key = SnapshotKey.gamesPage(edition, categoryId: category.id, offset: 0)
                    var tiles: [Tile] = []
                    if let entry = entries[key] {
                        for game in try reader.gamesPage(of: entry, in: manifest).items {
                            tiles.append(
                                Tile(
                                    game: game, thumbnail: thumbnails.thumbnail(for: game.thumbnail),
                                    isWithheld: Self.isWithheld(game, in: code)))
                        }
                    }
                    categories.append(
                        CategoryPreview(category: category, tiles: tiles, isFirstPageBundled: entries[key] != nil))
                }
                let files = manifest.files.filter { $0.edition == edition }
                editions.append(
                    EditionPreview(
                        edition: edition, isDefault: edition == manifest.defaultEdition, categories: categories,
                        files: files.count, compressedBytes: files.reduce(0) { $0 + $1.compressedBytes },
                        uncompressedBytes: files.reduce(0) { $0 + $1.uncompressedBytes }))
            }
        } catch {
            throw PipelineError(error, in: directory)
        }
        imageFiles = thumbnails.verifiedFiles
    }

    /// A preview of what was read elsewhere (tests render hostile content this way).
    init(
        manifest: Manifest, editions: [EditionPreview], madeAt: Date, territory: String?, imageFiles: [String: Data]
    ) {
        self.manifest = manifest
        self.editions = editions
        self.madeAt = madeAt
        self.territory = territory
        self.imageFiles = imageFiles
    }

    /// Whether the cache withholds `game` on a first launch, as its `GameFilter` decides with no
    /// withdrawal list yet: a game restricted nowhere is shown; one restricted somewhere is withheld
    /// while the territory is unknown (`UnknownTerritoryPolicy.hideRestrictedAnywhere`, the default),
    /// else when a code names the territory or its country, or is malformed
    /// (``CatalogRules/isRestricted(byAnyOf:in:)``).
    public static func isWithheld(_ game: Game, in territory: String?) -> Bool {
        guard !game.restrictedTerritories.isEmpty else { return false }
        guard let territory else { return true }
        return CatalogRules.isRestricted(byAnyOf: game.restrictedTerritories, in: territory)
    }

    /// The snapshot's age when the preview was made: `madeAt - generatedAt` (negative when the
    /// snapshot claims a later date).
    public var age: TimeInterval { madeAt.timeIntervalSince(manifest.generatedAt) }
}

/// The manifest's images by URL, as the runtime's `BundledImageStore` indexes them (the first entry
/// of a repeated URL wins), each file checked once with the reader.
private struct ThumbnailLookup {
    let reader: SnapshotReader
    var images: [String: Manifest.Image] = [:]
    var verdicts: [String: SnapshotPreview.Thumbnail] = [:]
    var verifiedFiles: [String: Data] = [:]

    init(reader: SnapshotReader) {
        self.reader = reader
    }

    mutating func index(_ list: [Manifest.Image]) {
        images = Dictionary(list.map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })
    }

    mutating func thumbnail(for url: String) -> SnapshotPreview.Thumbnail {
        guard let image = images[url] else { return .notBundled }
        if let verdict = verdicts[image.path] { return verdict.describing(image) }
        let verdict: SnapshotPreview.Thumbnail
        do {
            verifiedFiles[image.path] = try reader.image(image)
            verdict = .bundled(image)
        } catch {
            let reason = "\(error.message) (\(error.code))"
            verdict =
                error.code == .notFound || error.code == .io
                ? .missing(image, reason: reason) : .tampered(image, reason: reason)
        }
        verdicts[image.path] = verdict
        return verdict.describing(image)
    }
}

extension SnapshotPreview.Thumbnail {
    /// The same verdict about the file, for another URL naming it.
    fileprivate func describing(_ image: Manifest.Image) -> Self {
        switch self {
        case .bundled: .bundled(image)
        case .notBundled: .notBundled
        case .missing(_, let reason): .missing(image, reason: reason)
        case .tampered(_, let reason): .tampered(image, reason: reason)
        }
    }
}
