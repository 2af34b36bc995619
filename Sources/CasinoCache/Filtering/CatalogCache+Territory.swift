/// The player's territory: every answer and update leaves out the games restricted in it.
extension CatalogCache {
    /// The territory answers are filtered for: the last one set, in this launch or a previous one;
    /// `nil` while none is known (``Configuration/unknownTerritoryPolicy`` then decides).
    public var territory: Territory? {
        filter.territory
    }

    /// Sets the player's territory (at start, after login, when the app learns the location): the
    /// very next read leaves out the games restricted in it, from every tier. It is saved beside the
    /// disk tier's entries, so the next launch's first frame already uses it. `nil` forgets it.
    public func setTerritory(_ territory: Territory?) {
        filter.setTerritory(territory)
    }
}
