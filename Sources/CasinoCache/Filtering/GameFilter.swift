@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation
import Logging

/// The games an app must not show: those restricted in the player's territory and those the
/// provider withdrew (``WithdrawalList``). The one owner of that rule: it holds the territory and the
/// withdrawals, loads them at launch and saves their changes (``Store``), and tells the memory tier
/// what to forget when they change. ``CacheAnswers`` applies it to every page an answer or an update
/// carries. An entry is filtered only when it has a restricted game (decided once, when it is made:
/// `CacheEntry.restrictsTerritories`) or a withdrawn one; the memory tier decides that when it stores
/// the entry and again when the withdrawals change, and keeps what its entries show until the
/// territory or the withdrawals change (``ShownContent``).
///
/// The memory tier takes this filter's lock inside its own, so a change never calls the tier under
/// it: the rule changes first, then the tier forgets what it showed, and a read in between that
/// filtered by the old rule is forgotten before the change returns.
final class GameFilter: Sendable {
    /// What is withheld while no territory is known.
    let policy: UnknownTerritoryPolicy
    private let state: Locked<State>
    /// Where changes are saved; `nil` when they last this launch only.
    private let store: Store?
    /// The tier told what to forget. Weak: it holds this filter, through which it filters.
    private weak let memory: MemoryTier?

    private struct State {
        var rule: Rule
        /// The withdrawals in force, as saved; `rule.withdrawn` is their index.
        var withdrawals: Withdrawals
    }

    /// What filtering reads, copied out of the lock whole.
    private struct Rule {
        var territory: Territory?
        /// Where each withdrawn game is withdrawn.
        var withdrawn: [String: WithdrawnIn]
        /// The saved withdrawals were lost (unreadable, no good copy): every restricted game is
        /// withheld, whatever the territory, until a complete list arrives or the provider confirms.
        var isWithdrawalListLost: Bool
    }

    /// Filters what `memory` shows, by the territory and the withdrawals saved in `directory` (none
    /// without one); changes are saved there only when `savesChanges` (an app extension reads the
    /// app's and never writes).
    init(policy: UnknownTerritoryPolicy, directory: URL?, savesChanges: Bool, memory: MemoryTier, logger: Logger) {
        let store = directory.map { Store(directory: $0, logger: logger) }
        let (withdrawals, isLost) = store?.loadWithdrawals() ?? (Withdrawals(), false)
        let rule = Rule(territory: store?.loadTerritory(), withdrawn: withdrawals.index, isWithdrawalListLost: isLost)
        self.policy = policy
        state = Locked(State(rule: rule, withdrawals: withdrawals))
        self.store = savesChanges ? store : nil
        self.memory = memory
        memory.filter(by: { [self] in filters($0) }, showing: { [self] in withholding($0) })
    }

    /// The territory answers are filtered for; `nil` until one is known.
    var territory: Territory? { state.withLock { $0.rule.territory } }

    /// Filters for `territory` from now on, and saves it.
    func setTerritory(_ territory: Territory?) {
        state.withLock { state in
            state.rule.territory = territory
            store?.save(territory)  // under the lock: saves land in the order of the changes
        }
        memory?.forgetShownContent()  // after the change: what a hit filtered for the old territory
    }

    /// The complete withdrawal list's sequence (0: none).
    var withdrawalSequence: Int { state.withLock { $0.withdrawals.listSequence } }

    /// Changes the withdrawals by `change`, filters by them from now on (the memory tier decides
    /// again which entries it filters) and saves them, after the list before as the previous file.
    ///
    /// - Returns: An update for each entry in memory whose shown games changed, naming them.
    /// - Throws: What `change` throws; the withdrawals stay.
    func changeWithdrawals(
        _ change: (inout Withdrawals) throws(WithdrawalListError) -> Void
    ) throws(WithdrawalListError) -> [CacheUpdate] {
        let entries = memory?.allEntries() ?? []  // what a lobby may have on screen
        let outcome = state.withLock { state -> Result<(before: Rule, after: Rule), WithdrawalListError> in
            var next = state.withdrawals
            do throws(WithdrawalListError) { try change(&next) } catch { return .failure(error) }
            let before = state.rule
            store?.save(next, previous: state.withdrawals)
            state.withdrawals = next
            state.rule.withdrawn = next.index
            state.rule.isWithdrawalListLost = false
            return .success((before, state.rule))
        }
        let (before, after) = try outcome.get()
        memory?.refilter()
        return entries.compactMap { entry in
            let (shownBefore, shownAfter) = (shownIDs(entry.content, by: before), shownIDs(entry.content, by: after))
            guard shownAfter != shownBefore else { return nil }
            let ids = entry.content.ids
            let changes = ContentChanges(
                inserted: ids.filter { shownAfter.contains($0) && !shownBefore.contains($0) },
                removed: ids.filter { shownBefore.contains($0) && !shownAfter.contains($0) })
            return CacheUpdate(key: entry.key, event: .updated(entry.content, changes))
        }
    }

    /// The provider had no newer list: the list held stands, and a lost one no longer widens what is
    /// withheld.
    func confirmWithdrawals() {
        let wasLost = state.withLock { state in
            let wasLost = state.rule.isWithdrawalListLost
            state.rule.isWithdrawalListLost = false
            return wasLost
        }
        if wasLost { memory?.forgetShownContent() }  // the same entries filter, showing more
    }

    /// Waits until the changes saved so far have landed.
    func flush() async {
        await store?.files.flush()
    }

    /// ``flush()``, waiting at most `limit`; `false` when the limit came first.
    func flush(within limit: Duration) async -> Bool {
        await store?.files.flush(within: limit) ?? true
    }

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
        return state.withLock { state in
            !state.rule.withdrawn.isEmpty && page.items.contains { state.rule.withdrawn[$0.id] != nil }
        }
    }

    /// `content` without the games withheld now, and how many were withheld; a page's `count`
    /// follows its items, its `total` stays the provider's.
    func withholding(_ content: CatalogContent) -> ShownContent {
        guard case .gamesPage(var page) = content else { return ShownContent(content: content, withheld: 0) }
        let rule = state.withLock { $0.rule }
        // Most pages withhold nothing: return them as they are, without copying their games.
        guard page.items.indices.contains(where: { withholds(page.items[$0], by: rule) }) else {
            return ShownContent(content: content, withheld: 0)
        }
        let before = page.items.count
        page.items.removeAll { withholds($0, by: rule) }
        page.count = page.items.count
        return ShownContent(content: .gamesPage(page), withheld: before - page.items.count)
    }

    /// The ids of `content` that `rule` shows.
    private func shownIDs(_ content: CatalogContent, by rule: Rule) -> Set<String> {
        guard case .gamesPage(let page) = content else { return Set(content.ids) }
        return Set(page.items.lazy.filter { !self.withholds($0, by: rule) }.map(\.id))
    }

    /// The games `content` withholds now and why, for ``CacheInspection``: the same rule as
    /// ``withholds(_:by:)``, which stays lean for reads.
    func withheldGames(in content: CatalogContent) -> [CacheInspection.WithheldGame] {
        guard case .gamesPage(let page) = content else { return [] }
        let (rule, withdrawals) = state.withLock { ($0.rule, $0.withdrawals) }
        return page.items.compactMap { game -> CacheInspection.WithheldGame? in
            guard withholds(game, by: rule) else { return nil }
            let list = withdrawals.sequence(naming: game.id)
            var withheld = CacheInspection.WithheldGame(id: game.id, reason: .withdrawn, withdrawalList: list)
            if rule.withdrawn[game.id] == .everywhere { return withheld }
            guard let territory = rule.territory, !rule.isWithdrawalListLost else {
                withheld.reason = rule.isWithdrawalListLost ? .withdrawalListLost : .territoryUnknown
                return withheld
            }
            withheld.territory = territory.code
            if territory.isRestricted(byAnyOf: game.restrictedTerritories) {
                (withheld.reason, withheld.withdrawalList) = (.restricted, nil)
            }
            return withheld
        }
    }

    /// The withdrawal list in force, as ``CacheInspection`` reports it.
    var withdrawalsInspection: CacheInspection.Withdrawals {
        state.withLock { state in
            CacheInspection.Withdrawals(
                sequence: state.withdrawals.listSequence, pushes: state.withdrawals.pushes.map(\.sequence),
                games: state.rule.withdrawn.count, isLost: state.rule.isWithdrawalListLost)
        }
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
