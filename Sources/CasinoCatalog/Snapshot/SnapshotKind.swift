/// What a snapshot file holds.
public enum SnapshotKind: String, Codable, Sendable, Hashable, CaseIterable {
    /// An edition's ``CategoryList``.
    case categories
    /// One ``GamesPage`` of a category.
    case gamesPage
}
