/// What the cache withholds before it knows the player's territory (none set, none persisted, or
/// an unreadable one).
public enum UnknownTerritoryPolicy: String, Codable, Sendable, Hashable, CaseIterable {
    /// Every game restricted anywhere is withheld: nothing a licence may forbid is shown. The default.
    case hideRestrictedAnywhere
    /// Nothing is withheld until a territory is set: for an app licensed for every territory its
    /// catalogue names.
    case showAll
}
