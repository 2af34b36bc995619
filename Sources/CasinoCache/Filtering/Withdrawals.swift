@_spi(CatalogTools) import CasinoCatalog

/// The withdrawals in force: the last complete list, and the games pushed since (a push adds, it
/// never returns a game). What the cache saves and filters by.
@_spi(CatalogTools) public struct Withdrawals: Sendable, Hashable {
    /// The last complete list (from bulk validation, an over-the-air manifest or the app).
    private(set) var list: WithdrawalList?
    /// The pushes newer than `list`, oldest first: each adds its games.
    private(set) var pushes: [WithdrawalList] = []

    /// None.
    init() {}

    /// `list` and `pushes` as read back from a file; ``check()`` says whether they keep the rules.
    init(list: WithdrawalList?, pushes: [WithdrawalList]) {
        self.list = list
        self.pushes = pushes
    }

    /// The complete list's sequence (0: none): what bulk validation sends, so the provider answers
    /// with a newer list.
    var listSequence: Int { list?.sequence ?? 0 }

    /// The newest sequence seen, complete or pushed.
    var latestSequence: Int { max(listSequence, pushes.last?.sequence ?? 0) }

    /// Replaces the list with `newer`, and forgets the pushes it covers.
    ///
    /// - Throws: ``WithdrawalListError`` when `newer` is not a valid list, or not newer than the
    ///   complete list held (`.notNewer`: a replay).
    mutating func replace(with newer: WithdrawalList) throws(WithdrawalListError) {
        try newer.check()
        guard newer.sequence > listSequence else {
            throw WithdrawalListError(
                .notNewer, "sequence \(newer.sequence) is not newer than the list held (\(listSequence)); refused")
        }
        list = newer
        pushes.removeAll { $0.sequence <= newer.sequence }
    }

    /// Adds the games of a push.
    ///
    /// - Throws: ``WithdrawalListError`` when `push` is not a valid list, not newer than every
    ///   sequence seen (`.notNewer`), or would take the games pushed past ``WithdrawalList/maxGames``.
    mutating func add(_ push: WithdrawalList) throws(WithdrawalListError) {
        try push.check()
        guard push.sequence > latestSequence else {
            throw WithdrawalListError(
                .notNewer, "sequence \(push.sequence) is not newer than the last one seen (\(latestSequence)); refused")
        }
        let pushed = pushes.reduce(push.games.count) { $0 + $1.games.count }
        guard pushed <= WithdrawalList.maxGames else {
            throw WithdrawalListError(
                .tooManyGames, "the pushes since the last list name \(pushed) games, over \(WithdrawalList.maxGames)")
        }
        pushes.append(push)
    }

    /// Where each game named is withdrawn: everywhere wins over territories, territories add up.
    var index: [String: WithdrawnIn] {
        var index: [String: WithdrawnIn] = [:]
        for game in ([list].compactMap { $0 } + pushes).lazy.flatMap(\.games) {
            switch (index[game.id], game.isEverywhere) {
            case (.everywhere?, _): continue
            case (_, true): index[game.id] = .everywhere
            case (.territories(let codes)?, false): index[game.id] = .territories(codes + game.territories)
            case (nil, false): index[game.id] = .territories(game.territories)
            }
        }
        return index
    }

    /// The sequence of the newest list or push naming the game `id`, if any: the list that
    /// withdraws it.
    func sequence(naming id: String) -> Int? {
        ([list].compactMap { $0 } + pushes).last { $0.games.contains { $0.id == id } }?.sequence
    }

    /// Checks what was read back from a file: every list valid, sequences rising.
    func check() throws(WithdrawalListError) {
        try list?.check()
        var last = listSequence
        for push in pushes {
            try push.check()
            guard push.sequence > last else {
                throw WithdrawalListError(.notNewer, "the pushes are not in rising order after \(last)")
            }
            last = push.sequence
        }
    }
}
