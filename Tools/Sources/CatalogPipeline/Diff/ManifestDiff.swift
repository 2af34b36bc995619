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
    }

    /// Whether the two directories hold the same content.
    public var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty }

    /// One line per difference: `+ key (n items)`, `- key (n items)`, `~ key (n → m items, total a → b)`.
    public var lines: [String] {
        added.map { "+ \($0.key) (\($0.count) items)" } + removed.map { "- \($0.key) (\($0.count) items)" }
            + changed.map { change in
                var line = "~ \(change.new.key) (\(change.old.count) → \(change.new.count) items"
                if change.old.total != change.new.total { line += ", total \(change.old.total) → \(change.new.total)" }
                return line + ")"
            }
    }
}
