@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport

/// The games an app must not show: those restricted in the player's territory and those the
/// provider withdrew (``WithdrawalList``). The rule ``CacheAnswers`` applies to every page an answer
/// or an update carries. An entry is filtered only when it has a restricted game (decided once,
/// when it is made: `CacheEntry.restrictsTerritories`) or a withdrawn one; the memory tier decides
/// that when it stores the entry and again when the withdrawals change, and keeps what its entries
/// show until the territory or the withdrawals change (``ShownContent``).
final class GameFilter: Sendable {
    /// What is withheld while no territory is known.
    let policy: UnknownTerritoryPolicy
    private let rule: Locked<Rule>

    private struct Rule {
        var territory: Territory?
        /// Where each withdrawn game is withdrawn.
        var withdrawn: [String: WithdrawnIn] = [:]
        /// The saved withdrawals were lost (unreadable, no good copy): every restricted game is
        /// withheld, whatever the territory, until a complete list arrives.
        var isWithdrawalListLost = false
    }

    init(territory: Territory?, policy: UnknownTerritoryPolicy) {
        self.policy = policy
        rule = Locked(Rule(territory: territory))
    }

    /// The territory answers are filtered for; `nil` until one is known.
    var territory: Territory? {
        get { rule.withLock { $0.territory } }
        set { rule.withLock { $0.territory = newValue } }
    }

    /// Filters by `withdrawn` from now on; `isListLost` withholds every restricted game meanwhile.
    func setWithdrawn(_ withdrawn: [String: WithdrawnIn], isListLost: Bool) {
        rule.withLock {
            $0.withdrawn = withdrawn
            $0.isWithdrawalListLost = isListLost
        }
    }

    /// Whether the saved withdrawals were lost (every restricted game is withheld meanwhile).
    var isWithdrawalListLost: Bool { rule.withLock { $0.isWithdrawalListLost } }

    /// Whether `entry` may show a game the rule withholds: only those are filtered.
    @inline(__always)
    func filters(_ entry: borrowing CacheEntry) -> Bool {
        entry.restrictsTerritories || withdraws(from: entry.content)
    }

    /// Whether `content` (not in an entry, which knows whether it has a restricted game) may show a
    /// game the rule withholds.
    func filters(_ content: CatalogContent) -> Bool {
        content.restrictsTerritories || withdraws(from: content)
    }

    /// Whether `content` holds a withdrawn game.
    func withdraws(from content: CatalogContent) -> Bool {
        guard case .gamesPage(let page) = content else { return false }
        return rule.withLock { rule in
            !rule.withdrawn.isEmpty && page.items.contains { rule.withdrawn[$0.id] != nil }
        }
    }

    /// `content` without the games withheld now, and how many were withheld; a page's `count`
    /// follows its items, its `total` stays the provider's.
    func withholding(_ content: CatalogContent) -> ShownContent {
        guard case .gamesPage(var page) = content else { return ShownContent(content: content, withheld: 0) }
        let rule = self.rule.withLock { $0 }
        let before = page.items.count
        page.items.removeAll { withholds($0, by: rule) }
        page.count = page.items.count
        return ShownContent(content: .gamesPage(page), withheld: before - page.items.count)
    }

    /// Whether `rule` withholds `game`: withdrawn everywhere, or restricted (by the provider or a
    /// withdrawal) in the territory; with no territory known, the policy decides.
    private func withholds(_ game: Game, by rule: Rule) -> Bool {
        var codes = game.restrictedTerritories
        switch rule.withdrawn.isEmpty ? nil : rule.withdrawn[game.id] {
        case .everywhere?: return true
        case .territories(let more)?: codes += more
        case nil: break
        }
        guard !codes.isEmpty else { return false }
        guard let territory = rule.territory, !rule.isWithdrawalListLost else {
            return rule.isWithdrawalListLost || policy == .hideRestrictedAnywhere
        }
        return territory.isRestricted(byAnyOf: codes)
    }
}

/// Where a game is withdrawn.
enum WithdrawnIn: Sendable, Hashable {
    case everywhere
    /// In these territories (codes as a list names them; a malformed one withholds everywhere).
    case territories([String])
}

/// What an entry shows now, and how many games it withholds. The memory tier keeps one with each
/// entry it filters, from its first answer until the territory or the withdrawals change
/// (``MemoryTier/forgetShownContent()``): a hit on such a page copies no game.
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
