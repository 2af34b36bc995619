@_spi(Internals) import CasinoCatalog
import CatalogSupport

/// The player's territory and the games it withholds: the rule ``CacheAnswers`` applies to every
/// page an answer or an update carries. Entries decide once, when they are made, whether any of
/// their games is restricted anywhere (`CacheEntry.restrictsTerritories`); only those are
/// filtered on the way out, and the memory tier keeps what its entries show until the territory
/// changes (``ShownContent``).
final class TerritoryFilter: Sendable {
    /// What is withheld while no territory is known.
    let policy: UnknownTerritoryPolicy
    private let current: Locked<Territory?>

    init(territory: Territory?, policy: UnknownTerritoryPolicy) {
        self.policy = policy
        current = Locked(territory)
    }

    /// The territory answers are filtered for; `nil` until one is known.
    var territory: Territory? {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    /// Whether `game` is withheld in `territory` (`nil`: unknown, the policy decides).
    func withholds(_ game: Game, in territory: Territory?) -> Bool {
        guard !game.restrictedTerritories.isEmpty else { return false }
        guard let territory else { return policy == .hideRestrictedAnywhere }
        return territory.isRestricted(byAnyOf: game.restrictedTerritories)
    }

    /// `content` without the games withheld in the current territory, and how many were withheld;
    /// a page's `count` follows its items, its `total` stays the provider's.
    func withholding(_ content: CatalogContent) -> ShownContent {
        guard case .gamesPage(var page) = content else { return ShownContent(content: content, withheld: 0) }
        let territory = self.territory
        let before = page.items.count
        page.items.removeAll { withholds($0, in: territory) }
        page.count = page.items.count
        return ShownContent(content: .gamesPage(page), withheld: before - page.items.count)
    }
}

/// What an entry shows in the current territory, and how many games it withholds. The memory tier
/// keeps one with each entry that has a restricted game, from its first answer until the territory
/// changes (``MemoryTier/forgetShownContent()``): a hit on such a page copies no game.
struct ShownContent: Sendable {
    var content: CatalogContent
    var withheld: Int
}

extension CatalogContent {
    /// Whether any game of the content is restricted somewhere.
    var restrictsTerritories: Bool {
        guard case .gamesPage(let page) = self else { return false }
        return page.items.contains { !$0.restrictedTerritories.isEmpty }
    }
}
