@_spi(CatalogTools) import CasinoCatalog

extension GamesPage {
    /// What makes this page unusable as `list`, or `nil`: the catalogue's page rules, except that
    /// a player list may be empty. Its category id is the list's, its offset 0, its `limit` within
    /// 1...1000 (and equal to `limit` when given), `count` is its item count and at most `limit`,
    /// `total` at least that, every game keeps the schema's rules, and no id repeats.
    func playerListProblem(_ list: PlayerList, limit expected: Int?) -> String? {
        guard categoryId == list.categoryId, offset == 0 else {
            return "page \(categoryId.prefix(40))@\(offset) is not \(list.categoryId)@0"
        }
        guard (1...CatalogRules.maxPageSize).contains(limit), expected.map({ $0 == limit }) ?? true else {
            return "limit \(limit), expected \(expected.map(String.init) ?? "1...\(CatalogRules.maxPageSize)")"
        }
        guard count == items.count, items.count <= limit else {
            return "count \(count) for \(items.count) items, limit \(limit)"
        }
        guard (items.count...CatalogRules.maxGamesTotal).contains(total) else {
            return "total \(total) for \(items.count) items"
        }
        for (index, game) in items.enumerated() {
            if let violation = game.violations().first { return "items[\(index)]: \(violation)" }
        }
        guard Set(items.map(\.id)).count == items.count else { return "a game id is repeated" }
        return nil
    }

    /// An empty list: what a change builds on when nothing of the list is cached yet.
    static func emptyPlayerList(_ list: PlayerList, limit: Int) -> GamesPage {
        GamesPage(categoryId: list.categoryId, offset: 0, limit: limit, total: 0, items: [])
    }
}
