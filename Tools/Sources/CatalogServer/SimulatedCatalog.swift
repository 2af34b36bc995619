@_spi(CatalogTools) public import CasinoCatalog
@_spi(CatalogTools) public import CatalogPipeline
public import Foundation
@_spi(CatalogTools) import ProviderAPI

/// The catalogue the simulator serves: per edition, the provider's category objects and, per
/// category, its game objects in provider order, all as raw JSON.
public struct SimulatedCatalog: Sendable {
    /// One edition's content.
    public struct EditionContent: Sendable {
        /// The category objects as the provider sends them (with `games.total`).
        public var categories: [JSONValue]
        /// Category id → its game objects, in provider order.
        public var games: [String: [JSONValue]]
    }

    /// The editions served.
    public var editions: [Edition: EditionContent]
    /// The images served under `/images/<host>/<path>` (``CatalogSimulator/imagesPath``), by
    /// their https URL: a recording's `images/`, if it has one.
    public var images: [String: SimulatedImage] = [:]

    public init(editions: [Edition: EditionContent], images: [String: SimulatedImage] = [:]) {
        self.editions = editions
        self.images = images
    }

    /// Loads a recorded provider directory: each edition's `categories.json` and every recorded
    /// page of each category, joined in offset order.
    ///
    /// - Throws: When a file is missing or is not JSON.
    public static func load(recording directory: URL) throws -> SimulatedCatalog {
        let layout = RecordingLayout(root: directory)
        let decoder = JSONDecoder()
        var editions: [Edition: EditionContent] = [:]
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        for edition in names.compactMap({ try? Edition(id: $0) }) {
            let categoriesData = try Data(contentsOf: layout.categoriesFile(for: edition))
            let categories: [JSONValue]
            if case .array(let items)? = try decoder.decode(JSONValue.self, from: categoriesData)["items"] {
                categories = items
            } else {
                categories = []
            }
            var games: [String: [JSONValue]] = [:]
            for category in categories {
                guard let id = category["id"]?.text else { continue }
                let directory = layout.gamesDirectory(for: edition, categoryId: id)
                let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
                let offsets = files.compactMap { name -> Int? in
                    name.hasSuffix(".json") ? Int(name.dropLast(".json".count)) : nil
                }.sorted()
                var items: [JSONValue] = []
                for offset in offsets {
                    let page = try decoder.decode(
                        JSONValue.self, from: Data(contentsOf: directory.appendingPathComponent("\(offset).json")))
                    if case .array(let pageItems)? = page["items"] { items += pageItems }
                }
                games[id] = items
            }
            editions[edition] = EditionContent(categories: categories, games: games)
        }
        return SimulatedCatalog(editions: editions, images: try SimulatedImage.load(recording: directory))
    }

    /// A generated catalogue of `games` games (the pipeline's ``SampleRecording``), complete:
    /// every page of every category exists; with the thumbnails of the first `imagesPerCategory`
    /// games of each category (none by default).
    public static func generated(
        games: Int, categories: Int = 20, editions: [Edition] = SampleRecording.defaultEditions, seed: UInt64 = 2026,
        imagesPerCategory: Int = 0
    ) throws -> SimulatedCatalog {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("simulator-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var sample = SampleRecording(games: games, categories: categories)
        sample.editions = editions
        sample.seed = seed
        sample.imagesPerCategory = imagesPerCategory
        try sample.write(to: directory)
        return try load(recording: directory)
    }

    /// The catalogue as it looks after the provider changed its content `version` times: every
    /// game name gets a ` v<version>` suffix (version 0 and 1 are the original).
    public func changed(toVersion version: Int) -> SimulatedCatalog {
        guard version > 1 else { return self }
        var copy = self
        for (edition, content) in editions {
            copy.editions[edition]?.games = content.games.mapValues { games in
                games.map { game in
                    var game = game
                    if let name = game["name"]?.text { game["name"] = .string(name + " v\(version)") }
                    return game
                }
            }
        }
        return copy
    }

    /// `content` as an aggregator answers a request naming `territory` (a territory code): without
    /// the games restricted there (`restrictedTerritories`, read as the app's mapping reads it: a
    /// list, or one delimited string) or withdrawn there or everywhere by `withdrawals`; each
    /// category's `games.total` drops by the games left out.
    func content(
        _ content: EditionContent, in territory: String, withdrawals: WithdrawalList?
    ) -> EditionContent {
        var withdrawn: [String: [String]] = [:]
        for game in withdrawals?.games ?? [] { withdrawn[game.id] = game.territories }
        func isShown(_ game: JSONValue) -> Bool {
            var codes = Self.restrictedTerritories(of: game)
            if let id = game["id"]?.text, let territories = withdrawn[id] {
                if territories.isEmpty { return false }
                codes += territories
            }
            return !CatalogRules.isRestricted(byAnyOf: codes, in: territory)
        }
        var result = content
        var leftOut: [String: Int] = [:]
        for (categoryId, games) in content.games {
            let shown = games.filter(isShown)
            result.games[categoryId] = shown
            leftOut[categoryId] = games.count - shown.count
        }
        result.categories = content.categories.map { category in
            guard let id = category["id"]?.text, let removed = leftOut[id], removed > 0, var games = category["games"]
            else { return category }
            var category = category
            games["total"] = .integer(max(total(of: id, in: content) - removed, 0))
            category["games"] = games
            return category
        }
        return result
    }

    /// A game object's `restrictedTerritories`, split as ``ProviderAPI/FlexibleList`` splits them.
    static func restrictedTerritories(of game: JSONValue) -> [String] {
        switch game["restrictedTerritories"] {
        case .array(let codes)?: FlexibleList.array(codes.compactMap(\.text)).values
        case .string(let text)?: FlexibleList.string(text).values
        default: []
        }
    }

    /// The game count a category's object announces (`games.total`), or the games held.
    func total(of categoryId: String, in content: EditionContent) -> Int {
        let announced = content.categories.first { $0["id"]?.text == categoryId }?["games"]?["total"]?.int
        return announced ?? content.games[categoryId]?.count ?? 0
    }
}
