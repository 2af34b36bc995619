@_spi(CatalogTools) public import CasinoCatalog

/// What changed between two snapshot directories, by content key: what a release engineer checks
/// before shipping a new bundle.
///
/// ```swift
/// let diff = ManifestDiff(from: oldManifest, to: newManifest)
/// diff.isEmpty   // true when the normalized content is the same, whatever the dates say
/// ```
public struct ManifestDiff: Sendable, Hashable {
    /// Content only the new directory has.
    @_spi(CatalogTools) public var added: [Manifest.Entry]
    /// Content only the old directory has.
    @_spi(CatalogTools) public var removed: [Manifest.Entry]
    /// Content both have, with a different content hash: (old, new).
    public var changed: [Change]

    /// Bundled images by URL: only the new directory has them.
    @_spi(CatalogTools) public var addedImages: [Manifest.Image]
    /// Bundled images by URL: only the old directory has them.
    @_spi(CatalogTools) public var removedImages: [Manifest.Image]
    /// Bundled images both have under one URL, with other bytes.
    public var changedImages: [ImageChange]

    /// One image URL that both directories bundle, with two contents.
    public struct ImageChange: Sendable, Hashable {
        @_spi(CatalogTools) public var old: Manifest.Image
        @_spi(CatalogTools) public var new: Manifest.Image
    }

    /// One piece of content that both directories hold, in two versions.
    public struct Change: Sendable, Hashable {
        @_spi(CatalogTools) public var old: Manifest.Entry
        @_spi(CatalogTools) public var new: Manifest.Entry
    }

    /// Compares two manifests by ``SnapshotKey``; equal content hashes count as unchanged.
    @_spi(CatalogTools) public init(from old: Manifest, to new: Manifest) {
        let files = Self.compare(old.files, new.files, by: \.key, version: \.contentHash)
        (added, removed) = (files.added, files.removed)
        changed = files.changed.map { Change(old: $0.old, new: $0.new) }
        let images = Self.compare(old.images ?? [], new.images ?? [], by: \.url, version: \.sha256)
        (addedImages, removedImages) = (images.added, images.removed)
        changedImages = images.changed.map { ImageChange(old: $0.old, new: $0.new) }
    }

    /// What only `new` holds, what only `old` holds, and what both hold under one key in another
    /// version (the first item of a key counts), each sorted by key.
    private static func compare<Item, Key: Hashable & Comparable>(
        _ old: [Item], _ new: [Item], by key: (Item) -> Key, version: (Item) -> String
    ) -> (added: [Item], removed: [Item], changed: [(old: Item, new: Item)]) {
        let oldByKey = Dictionary(old.map { (key($0), $0) }, uniquingKeysWith: { first, _ in first })
        let newByKey = Dictionary(new.map { (key($0), $0) }, uniquingKeysWith: { first, _ in first })
        let changed = new.compactMap { item -> (old: Item, new: Item)? in
            guard let previous = oldByKey[key(item)], version(previous) != version(item) else { return nil }
            return (previous, item)
        }
        return (
            new.filter { oldByKey[key($0)] == nil }.sorted { key($0) < key($1) },
            old.filter { newByKey[key($0)] == nil }.sorted { key($0) < key($1) },
            changed.sorted { key($0.new) < key($1.new) }
        )
    }

    /// Whether the two directories hold the same content and images.
    public var isEmpty: Bool {
        added.isEmpty && removed.isEmpty && changed.isEmpty && addedImages.isEmpty && removedImages.isEmpty
            && changedImages.isEmpty
    }

    /// One line per difference: `+ key (n items)`, `- key (n items)`, `~ key (n → m items, total a → b)`,
    /// then the images: `+ image URL (n bytes)`, `- image …`, `~ image URL (n → m bytes)`.
    public var lines: [String] {
        added.map { "+ \($0.key) (\($0.count) items)" } + removed.map { "- \($0.key) (\($0.count) items)" }
            + changed.map { change in
                var line = "~ \(change.new.key) (\(change.old.count) → \(change.new.count) items"
                if change.old.total != change.new.total { line += ", total \(change.old.total) → \(change.new.total)" }
                return line + ")"
            }
            + addedImages.map { "+ image \($0.url) (\($0.bytes) bytes)" }
            + removedImages.map { "- image \($0.url) (\($0.bytes) bytes)" }
            + changedImages.map { "~ image \($0.new.url) (\($0.old.bytes) → \($0.new.bytes) bytes)" }
    }
}
