/// A ``WithdrawalList`` by game id, for building and checking snapshots: what a bundle built now
/// may ship of a page (``applied(to:)``), and where a bundle still shows a withdrawn game
/// (``problems(in:)``).
///
/// A bundle has no player territory, so a game withdrawn in territories stays in it, restricted
/// there as well (its ``Game/restrictedTerritories`` gain the codes); a game withdrawn everywhere,
/// or in a territory whose code is malformed, is left out, its place a hole as for a refused record
/// (later games keep their positions, so bundled pages line up with live ones).
@_spi(CatalogTools) public struct WithdrawalLookup: Sendable {
    /// The list's sequence.
    public let sequence: Int
    private let games: [String: Withdrawal]

    /// The lookup of `list`, a checked list (``WithdrawalList/check()``: each game named once).
    public init(_ list: WithdrawalList) {
        sequence = list.sequence
        games = Dictionary(list.games.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// What a game withdrawn by the list must become in a bundle.
    private enum Verdict {
        case shown
        case leftOut
        case restricted(missing: [String])
    }

    private func verdict(for game: Game) -> Verdict {
        guard let withdrawal = games[game.id] else { return .shown }
        let codes = withdrawal.territories.compactMap(CatalogRules.territoryCode)
        // A malformed code cannot be shown not to name a player's territory: left out.
        guard !withdrawal.isEverywhere, codes.count == withdrawal.territories.count else { return .leftOut }
        let restricted = Set(game.restrictedTerritories.compactMap(CatalogRules.territoryCode))
        // Covered when restricted in the code itself, or (for a subdivision) in its whole country.
        let missing = codes.filter { !restricted.contains($0) && !restricted.contains(String($0.prefix(2))) }
        return missing.isEmpty ? .shown : .restricted(missing: Array(Set(missing)).sorted())
    }

    /// `page` as a bundle built now ships it, and how many games were left out and restricted.
    public func applied(to page: GamesPage) -> (page: GamesPage, leftOut: Int, restricted: Int) {
        guard !games.isEmpty else { return (page, 0, 0) }
        var result = page
        var (leftOut, restricted) = (0, 0)
        result.items = page.items.compactMap { game in
            switch verdict(for: game) {
            case .shown: return game
            case .leftOut:
                leftOut += 1
                return nil
            case .restricted(let missing):
                restricted += 1
                var game = game
                game.restrictedTerritories += missing
                return game
            }
        }
        result.count = result.items.count
        return (result, leftOut, restricted)
    }

    /// Each game of `page` the list says a bundle must not show as it is: its index in `items` and
    /// why.
    public func problems(in page: GamesPage) -> [(index: Int, message: String)] {
        guard !games.isEmpty else { return [] }
        return page.items.enumerated().compactMap { index, game in
            switch verdict(for: game) {
            case .shown: nil
            case .leftOut: (index, "game \(game.id) is withdrawn everywhere (withdrawal list \(sequence))")
            case .restricted(let missing):
                (
                    index,
                    "game \(game.id) is withdrawn in \(missing.joined(separator: ", ")) (withdrawal list \(sequence)) but not restricted there"
                )
            }
        }
    }
}
