/// A snapshot key, or every page of one category (`en-iPhone/games/VIDEOSLOTS/*`): what a push
/// invalidation names.
///
/// ```swift
/// SnapshotKeyPattern("en-iPhone/games/VIDEOSLOTS/*")   // .categoryPages(en-iPhone, "VIDEOSLOTS")
/// SnapshotKeyPattern("en-iPhone/categories")           // .key(.categories(en-iPhone))
/// ```
public enum SnapshotKeyPattern: Sendable, Hashable, CustomStringConvertible {
    /// One key.
    case key(SnapshotKey)
    /// Every page of a category in an edition.
    case categoryPages(Edition, categoryId: String)

    /// The longest pattern text accepted: 512 bytes (a key is an edition, an escaped category id
    /// and an offset; category ids are far shorter).
    public static let maxTextBytes = 512

    /// Parses a key or a category's `*`; `nil` when it is neither or is longer than
    /// ``maxTextBytes``.
    public init?(_ text: String) {
        guard text.utf8.count <= Self.maxTextBytes else { return nil }
        if text.hasSuffix("/*") {
            // The same key with offset 0 parses exactly when the wildcard is well formed.
            guard case .gamesPage(let edition, let categoryId, _)? = SnapshotKey(String(text.dropLast()) + "0") else {
                return nil
            }
            self = .categoryPages(edition, categoryId: categoryId)
        } else {
            guard let key = SnapshotKey(text) else { return nil }
            self = .key(key)
        }
    }

    public var description: String {
        switch self {
        case .key(let key): key.description
        case .categoryPages(let edition, let categoryId): "\(edition.id)/games/\(SnapshotKey.escape(categoryId))/*"
        }
    }

    /// Whether `key` is the key, or a page of the category, named.
    public func matches(_ key: SnapshotKey) -> Bool {
        switch (self, key) {
        case (.key(let named), _): named == key
        case (.categoryPages(let edition, let categoryId), .gamesPage(let keyEdition, let keyCategory, _)):
            edition == keyEdition && categoryId == keyCategory
        case (.categoryPages, .categories): false
        }
    }
}
