@_spi(CatalogTools) public import CasinoCatalog
import CatalogSupport
public import Foundation
public import Logging

/// The bundled tier: the snapshot directory the pipeline wrote (`out/`) and the app ships.
///
/// At launch it reads only `index.json` (`SnapshotIndex`: the manifest's head). An edition's
/// entries are read on its first lookup (`index/<edition>.tsv`), so a launch costs what the edition
/// it opens holds, however large the other editions are; a directory without an index is read
/// through `manifest.json`, every entry at launch. A snapshot file is opened, verified, inflated and
/// decoded the first time its content is asked for; the decoded entry is then kept, so the second
/// read of a page costs a dictionary lookup under a lock. A file that fails verification is
/// remembered as unusable too, so it is not re-read on every lookup.
///
/// It never throws and never crashes on bad input: a missing, corrupt or foreign-schema manifest
/// leaves the tier empty, and a missing, tampered, truncated, oversized, symlinked or out-of-tree
/// file is a `nil` answer, counted in ``corruptFiles``; both are logged at `.error`, since the
/// app's own bundle is broken. Files are read with `SnapshotReader`, the reader the pipeline's
/// validator uses, under the same `SnapshotLimits`: what `catalog validate` accepts, the tier
/// serves: a file is checked against the manifest's size and SHA-256, its gzip CRC, its envelope
/// (schema version, key, content hash) and the schema rules. Read-only.
///
/// ```swift
/// let directory = Bundle.main.url(forResource: "out", withExtension: nil)!
/// let bundled = BundledTier(configuration: .init(directory: directory), logger: logger)
/// let edition = bundled.edition(language: "pt-BR", platform: .iPhone)!   // pt-BR-iPhone, else pt-iPhone, else the default
/// let lobby = bundled.entry(for: .categories(edition))                     // origin .bundled
/// ```
@_spi(CatalogTools) public final class BundledTier: Sendable {
    /// Where the snapshot directory is and how large its files may be.
    public struct Configuration: Sendable, Hashable {
        /// The snapshot directory: `Bundle.main.url(forResource: "out", withExtension: nil)` on
        /// Apple platforms, a path on Linux.
        public var directory: URL
        /// The snapshot contract's caps (manifest bytes, file count, file bytes, inflated bytes):
        /// `SnapshotLimits.default` by default, as in the pipeline. Raise them only together with
        /// the pipeline configuration's `snapshotLimits`.
        public var limits: SnapshotLimits = .default

        /// - Parameters:
        ///   - directory: The snapshot directory.
        ///   - limits: The snapshot contract's caps, `SnapshotLimits.default` by default.
        public init(directory: URL, limits: SnapshotLimits = .default) {
            self.directory = directory
            self.limits = limits
        }
    }

    /// What a snapshot file turned out to be, once read.
    private enum Outcome {
        /// The content, and the content hash its manifest entry gives (checked when it was read).
        case content(CatalogContent, contentHash: String)
        case unusable
    }

    /// An edition's entries, and the manifest their files are checked against.
    private struct EditionFiles: Sendable {
        var manifest: Manifest
        var files: [SnapshotKey: Manifest.Entry]

        init(_ manifest: Manifest) {
            self.manifest = manifest
            files = Dictionary(manifest.files.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// Where the entries are.
    private enum Table: Sendable {
        /// `index.json`: an edition's entries are read on its first lookup.
        case index(SnapshotIndex)
        /// `manifest.json`, for a directory without a usable index: every entry, read at launch.
        case manifest(EditionFiles)
    }

    private struct State {
        /// Keyed by the manifest's key (after the default-edition fallback), so every edition
        /// that falls back shares one decoded copy.
        var outcomes: [SnapshotKey: Outcome] = [:]
        /// The editions whose entries were read from the index (`nil`: unusable).
        var editions: [Edition: EditionFiles?] = [:]
        var corruptFiles = 0
    }

    private let reader: SnapshotReader
    private let table: Table?
    /// The manifest without its entries and images (`files` empty, `images` nil), or `nil` when
    /// the directory has no usable index or manifest (the tier is then empty).
    public let head: Manifest?
    private let bundledEditions: Set<Edition>
    private let logger: Logger
    private let state: Locked<State>
    /// The snapshot's images (the manifest's `images`), verified on first lookup.
    public let images: BundledImageStore

    /// Reads the directory's `index.json` (`SnapshotIndex`), and nothing else; without one, its
    /// `manifest.json`.
    ///
    /// A missing directory, a missing, oversized or corrupt manifest, one with another schema
    /// version or one that breaks the contract leaves the tier empty (every lookup answers `nil`)
    /// and is logged at `.error`. An unusable index is logged and counted in ``corruptFiles``,
    /// and the manifest is read instead.
    ///
    /// - Parameters:
    ///   - configuration: Where the snapshot directory is, and the size caps.
    ///   - logger: Where unusable files are reported (`.error`), with `cache.key` and `cache.file`.
    public init(configuration: Configuration, logger: Logger = .casinoCacheDisabled) {
        let reader = SnapshotReader(
            directory: configuration.directory, limits: configuration.limits, keepsDirectoriesOpen: true)
        self.reader = reader
        self.logger = logger
        var table: Table?
        var corruptFiles = 0
        do {
            table = try reader.index().map(Table.index)
        } catch {
            corruptFiles = 1
            Self.logUnusable(error, file: SnapshotIndex.fileName, in: reader, "reading manifest.json instead", logger)
        }
        if table == nil {
            do {
                table = .manifest(EditionFiles(try reader.manifest()))
            } catch {
                Self.logUnusable(error, file: Manifest.fileName, in: reader, "the bundled tier is empty", logger)
            }
        }
        self.table = table
        state = Locked(State(corruptFiles: corruptFiles))
        switch table {
        case .index(let index):
            head = index.head
            images = BundledImageStore(
                images: {
                    do {
                        return try reader.images(in: index) ?? []
                    } catch {
                        Self.logUnusable(
                            error, file: SnapshotIndex.imagesPath, in: reader, "no image is served", logger)
                        return []
                    }
                }, reader: reader, logger: logger)
        case .manifest(let all):
            head = all.manifest.head
            images = BundledImageStore(manifest: all.manifest, reader: reader, logger: logger)
        case nil:
            head = nil
            images = BundledImageStore(manifest: nil, reader: reader, logger: logger)
        }
        generatedAt = head?.generatedAt
        // An installed generation keeps the signed manifest it came with (``SnapshotUpdater``).
        source =
            FileManager.default.fileExists(
                atPath: configuration.directory.appendingPathComponent(GenerationStore.publishedName).path)
            ? .overTheAir : .bundle
        bundledEditions = Set(head?.editions ?? [])
        if let head {
            logger.debug(
                "Bundled snapshot read",
                metadata: [
                    "cache.directory": "\(reader.directory.path)",
                    "cache.editions": "\(head.editions.map(\.id).joined(separator: ","))",
                ])
        }
    }

    private static func logUnusable(
        _ error: any Error, file: String, in reader: SnapshotReader, _ consequence: String, _ logger: Logger
    ) {
        logger.error(
            "Bundled snapshot file unusable; \(consequence)",
            metadata: [
                "cache.file": "\(reader.directory.appendingPathComponent(file).path)",
                "cache.reason": "\(error)",
            ])
    }

    /// When the bundled data was fetched (the manifest's `generatedAt`), or `nil` without a
    /// manifest.
    public let generatedAt: Date?
    /// Whether the snapshot is the app's bundle or an over-the-air generation.
    let source: CacheMetadata.Source

    /// Every bundled edition, sorted; empty without a manifest.
    public var editions: [Edition] { head?.editions ?? [] }

    /// The edition the manifest falls back to, or `nil` without a manifest.
    public var defaultEdition: Edition? { head?.defaultEdition }

    /// The bundled edition for a device's language and platform.
    ///
    /// Tries the language tag on the same platform, then the tag with its last subtag removed,
    /// and so on down to the primary language (`pt-BR` → `pt`, `zh-Hant-TW` → `zh-Hant` → `zh`);
    /// then the default edition. Another platform in the same language is never chosen: its
    /// lobby differs. Tags compare case-insensitively and `_` counts as `-` (`pt_BR`).
    ///
    /// ```swift
    /// bundled.edition(language: "pt-BR", platform: .iPhone)   // pt-BR-iPhone, else pt-iPhone, else the default
    /// ```
    ///
    /// - Returns: A bundled edition, or `nil` when the tier is empty.
    public func edition(language: String, platform: Platform) -> Edition? {
        guard let head else { return nil }
        var subtags = language.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" })
        while !subtags.isEmpty {
            let tag = subtags.joined(separator: "-")
            let match = head.editions.first { $0.platform == platform && $0.language.lowercased() == tag }
            if let match { return match }
            subtags.removeLast()
        }
        return head.defaultEdition
    }

    /// The bundled entry for `key`, or `nil`.
    ///
    /// Only ``CacheScope/global`` content is bundled. When the key's edition is not bundled, the
    /// same content of the closest bundled edition answers (`pt-BR` → `pt` on the same platform,
    /// else the ``defaultEdition``), so a user whose language is not bundled still sees a lobby
    /// instead of a spinner. The entry's `key` is `key`, its origin
    /// `CacheOrigin/bundled`, its `storedAt` the manifest's ``generatedAt``, and it has no ETag.
    ///
    /// The first lookup of a file reads, verifies and decodes it (about 0.5 ms for a 50-game
    /// page); later lookups are served from the decoded copy. A file that fails verification
    /// answers `nil` from then on, and is counted once in ``corruptFiles``.
    public func entry(for key: CacheKey) -> CacheEntry? {
        guard key.scope == .global, let head else { return nil }
        let bundledKey = bundledKey(for: key.content, defaultEdition: head.defaultEdition)
        let outcome = state.withLock { $0.outcomes[bundledKey] } ?? load(bundledKey)
        guard case .content(let content, let contentHash)? = outcome else { return nil }
        var entry = CacheEntry(key: key, content: content, storedAt: head.generatedAt, etag: nil, origin: .bundled)
        entry.knownContentHash = contentHash
        return entry
    }

    /// How many snapshot files failed verification so far (each counted once).
    public var corruptFiles: Int { state.withLock { $0.corruptFiles } }

    // MARK: - Loading

    /// `content` itself when its edition is bundled, else the same content in the closest bundled
    /// edition (``edition(language:platform:)``: `pt-BR` → `pt`), else in `defaultEdition`.
    private func bundledKey(for content: SnapshotKey, defaultEdition: Edition) -> SnapshotKey {
        guard !bundledEditions.contains(content.edition) else { return content }
        let fallback =
            edition(language: content.edition.language, platform: content.edition.platform) ?? defaultEdition
        switch content {
        case .categories:
            return .categories(fallback)
        case .gamesPage(_, let categoryId, let offset):
            return .gamesPage(fallback, categoryId: categoryId, offset: offset)
        }
    }

    /// The entries of `edition`: read from its index part on first use (outside the lock; two
    /// threads may both read it, the first recorded wins). A part that fails verification is
    /// counted and logged once, and `manifest.json` serves that edition instead.
    private func editionFiles(_ edition: Edition) -> EditionFiles? {
        switch table {
        case nil: return nil
        case .manifest(let all): return all
        case .index(let index):
            if let known = state.withLock({ $0.editions[edition] }) { return known }
            var loaded: EditionFiles?
            var failure: SnapshotReadError?
            do {
                loaded = EditionFiles(try reader.manifest(of: edition, in: index))
            } catch {
                failure = error
                loaded = (try? reader.manifest()).map(EditionFiles.init)
            }
            let (recorded, isNewFailure) = state.withLock { state -> (EditionFiles?, Bool) in
                if let earlier = state.editions[edition] { return (earlier, false) }
                state.editions[edition] = .some(loaded)
                if failure != nil { state.corruptFiles += 1 }
                return (loaded, failure != nil)
            }
            if isNewFailure, let failure {
                Self.logUnusable(
                    failure, file: SnapshotIndex.path(of: edition), in: reader,
                    loaded == nil ? "the edition is not served" : "reading manifest.json instead", logger)
            }
            return recorded
        }
    }

    /// Reads and verifies the file for `key` outside the lock, then records the outcome.
    ///
    /// Two threads asking for the same new key may both decode it; the first outcome recorded
    /// wins and a failure is counted and logged once.
    private func load(_ key: SnapshotKey) -> Outcome? {
        guard let edition = editionFiles(key.edition), let file = edition.files[key] else { return nil }
        let outcome: Outcome
        var failure: SnapshotReadError?
        do {
            switch file.kind {
            case .categories:
                outcome = .content(
                    .categories(try reader.categories(of: file, in: edition.manifest)), contentHash: file.contentHash)
            case .gamesPage:
                outcome = .content(
                    .gamesPage(try reader.gamesPage(of: file, in: edition.manifest)), contentHash: file.contentHash)
            }
        } catch {
            outcome = .unusable
            failure = error
        }
        let (recorded, isNewFailure) = state.withLock { state -> (Outcome, Bool) in
            if let earlier = state.outcomes[key] { return (earlier, false) }
            state.outcomes[key] = outcome
            guard case .unusable = outcome else { return (outcome, false) }
            state.corruptFiles += 1
            return (outcome, true)
        }
        if isNewFailure, let failure {
            logger.error(
                "Bundled snapshot file failed verification; not serving it",
                metadata: [
                    "cache.key": "\(key)",
                    "cache.file": "\(file.path.prefix(256))",
                    "cache.reason": "\(failure)",
                ])
        }
        return recorded
    }
}
