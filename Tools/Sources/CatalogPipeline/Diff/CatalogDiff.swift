@_spi(CatalogTools) public import CasinoCatalog
public import Foundation

/// What changed between two snapshot directories as a player would see it, per edition: the
/// categories and games added, removed or renamed, and the pages and bytes that changed. Read from
/// both directories' files (each checked by `SnapshotReader`); what `catalog diff --format markdown`
/// renders for a pull request (``markdown(old:new:)``).
///
/// ```swift
/// let diff = try CatalogDiff(old: URL(fileURLWithPath: "out-before"), new: URL(fileURLWithPath: "out"))
/// print(diff.markdown(old: "main", new: "this branch"))
/// ```
public struct CatalogDiff: Sendable {
    /// The file-level comparison.
    public var files: ManifestDiff
    /// The two manifests: when each was generated, and what it lists.
    @_spi(CatalogTools) public var oldManifest: Manifest
    @_spi(CatalogTools) public var newManifest: Manifest
    /// Each edition either directory holds, in id order.
    public var editions: [EditionChanges]

    /// One edition's changes.
    public struct EditionChanges: Sendable, Hashable {
        public var edition: Edition
        /// Whether only the new directory holds it (`true`), only the old one (`false`), or both (`nil`).
        public var isAdded: Bool?
        public var categoriesAdded: [Named] = []
        public var categoriesRemoved: [Named] = []
        /// Games by id across the edition's bundled pages.
        public var gamesAdded: [Named] = []
        public var gamesRemoved: [Named] = []
        public var gamesRenamed: [Renamed] = []
        /// Pages (and category lists) added, removed, or held by both with other content.
        public var pagesAdded = 0
        public var pagesRemoved = 0
        public var pagesChanged = 0
        /// The edition's compressed bytes in each directory.
        public var oldBytes = 0
        public var newBytes = 0

        /// Whether anything differs.
        public var isEmpty: Bool {
            isAdded == nil && categoriesAdded.isEmpty && categoriesRemoved.isEmpty && gamesAdded.isEmpty
                && gamesRemoved.isEmpty && gamesRenamed.isEmpty && pagesAdded == 0 && pagesRemoved == 0
                && pagesChanged == 0
        }
    }

    /// An id and its name.
    public struct Named: Sendable, Hashable {
        public var id: String
        public var name: String
    }

    /// An id named differently in the two directories.
    public struct Renamed: Sendable, Hashable {
        public var id: String
        public var old: String
        public var new: String
    }

    /// Reads and compares the snapshot directories `old` and `new`.
    ///
    /// - Throws: ``PipelineError`` naming the directory and file that does not read.
    public init(old: URL, new: URL, limits: SnapshotLimits = .default) throws(PipelineError) {
        let before = try Self.read(old, limits: limits)
        let after = try Self.read(new, limits: limits)
        oldManifest = before.manifest
        newManifest = after.manifest
        let files = ManifestDiff(from: before.manifest, to: after.manifest)
        self.files = files
        let ids = Set(before.editions.keys).union(after.editions.keys).sorted()
        editions = ids.map { edition in
            Self.compare(edition, before.editions[edition], after.editions[edition], files: files)
        }
    }

    /// Whether the two directories hold the same content and images.
    public var isEmpty: Bool { files.isEmpty }

    /// One directory's content by edition.
    private struct Content {
        var manifest: Manifest
        var editions: [Edition: EditionContent] = [:]
    }

    private struct EditionContent {
        var categories: [Named] = []
        /// Each game's names (one, unless its pages disagree), in the order the pages give them.
        var games: [String: [String]] = [:]
        var bytes = 0
    }

    private static func read(_ directory: URL, limits: SnapshotLimits) throws(PipelineError) -> Content {
        let reader = SnapshotReader(directory: directory, limits: limits)
        do {
            let manifest = try reader.manifest()
            var content = Content(manifest: manifest)
            for edition in manifest.editions { content.editions[edition] = EditionContent() }
            for entry in manifest.files {
                content.editions[entry.edition, default: EditionContent()].bytes += entry.compressedBytes
                switch entry.kind {
                case .categories:
                    let list = try reader.categories(of: entry, in: manifest)
                    content.editions[entry.edition]?.categories = list.items.map { Named(id: $0.id, name: $0.name) }
                case .gamesPage:
                    for game in try reader.gamesPage(of: entry, in: manifest).items
                    where content.editions[entry.edition]?.games[game.id]?.contains(game.name) != true {
                        content.editions[entry.edition]?.games[game.id, default: []].append(game.name)
                    }
                }
            }
            return content
        } catch {
            throw PipelineError(error, in: directory)
        }
    }

    private static func compare(
        _ edition: Edition, _ old: EditionContent?, _ new: EditionContent?, files: ManifestDiff
    ) -> EditionChanges {
        var changes = EditionChanges(edition: edition)
        changes.isAdded = old == nil ? true : new == nil ? false : nil
        let (old, new) = (old ?? EditionContent(), new ?? EditionContent())
        let oldCategories = Set(old.categories.map(\.id))
        let newCategories = Set(new.categories.map(\.id))
        changes.categoriesAdded = new.categories.filter { !oldCategories.contains($0.id) }
        changes.categoriesRemoved = old.categories.filter { !newCategories.contains($0.id) }
        func named(_ games: [String: [String]], without other: [String: [String]]) -> [Named] {
            games.filter { other[$0.key] == nil }.map { Named(id: $0.key, name: $0.value[0]) }.sorted { $0.id < $1.id }
        }
        changes.gamesAdded = named(new.games, without: old.games)
        changes.gamesRemoved = named(old.games, without: new.games)
        // Renamed: a name only one side shows (a page may still show the old one).
        changes.gamesRenamed = new.games.compactMap { id, names in
            guard let previous = old.games[id], Set(previous) != Set(names) else { return nil }
            let gone = previous.filter { !names.contains($0) }
            let came = names.filter { !previous.contains($0) }
            return Renamed(
                id: id, old: (gone.isEmpty ? previous : gone).joined(separator: " / "),
                new: (came.isEmpty ? names : came).joined(separator: " / "))
        }.sorted { $0.id < $1.id }
        changes.pagesAdded = files.added.count { $0.edition == edition }
        changes.pagesRemoved = files.removed.count { $0.edition == edition }
        changes.pagesChanged = files.changed.count { $0.new.edition == edition }
        (changes.oldBytes, changes.newBytes) = (old.bytes, new.bytes)
        return changes
    }
}
