public import CasinoCatalog

/// What changed between two snapshot directories, by content key: what a release engineer checks
/// before shipping a new bundle.
///
/// ```swift
/// let diff = ManifestDiff(from: oldManifest, to: newManifest)
/// diff.isEmpty   // true when the normalized content is the same, whatever the dates say
/// ```
public struct ManifestDiff: Sendable, Hashable {
    /// Content only the new directory has.
    public var added: [Manifest.Entry]
    /// Content only the old directory has.
    public var removed: [Manifest.Entry]
    /// Content both have, with a different content hash: (old, new).
    public var changed: [Change]

    /// Bundled images by URL: only the new directory has them.
    public var addedImages: [Manifest.Image]
    /// Bundled images by URL: only the old directory has them.
    public var removedImages: [Manifest.Image]
    /// Bundled images both have under one URL, with other bytes.
    public var changedImages: [ImageChange]

    /// One image URL that both directories bundle, with two contents.
    public struct ImageChange: Sendable, Hashable {
        public var old: Manifest.Image
        public var new: Manifest.Image
    }

    /// One piece of content that both directories hold, in two versions.
    public struct Change: Sendable, Hashable {
        public var old: Manifest.Entry
        public var new: Manifest.Entry
    }

    /// Compares two manifests by ``SnapshotKey``; equal content hashes count as unchanged.
    public init(from old: Manifest, to new: Manifest) {
        let oldByKey = Dictionary(old.files.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let newByKey = Dictionary(new.files.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        added = new.files.filter { oldByKey[$0.key] == nil }.sorted { $0.key < $1.key }
        removed = old.files.filter { newByKey[$0.key] == nil }.sorted { $0.key < $1.key }
        changed = new.files.compactMap { entry in
            guard let previous = oldByKey[entry.key], previous.contentHash != entry.contentHash else { return nil }
            return Change(old: previous, new: entry)
        }.sorted { $0.new.key < $1.new.key }
        let oldImages = Dictionary((old.images ?? []).map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })
        let newImages = Dictionary((new.images ?? []).map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })
        addedImages = newImages.values.filter { oldImages[$0.url] == nil }.sorted { $0.url < $1.url }
        removedImages = oldImages.values.filter { newImages[$0.url] == nil }.sorted { $0.url < $1.url }
        changedImages = newImages.values.compactMap { image in
            guard let previous = oldImages[image.url], previous.sha256 != image.sha256 else { return nil }
            return ImageChange(old: previous, new: image)
        }.sorted { $0.new.url < $1.new.url }
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
