/// One invented game of the curated pool, with everything its records are rendered from.
struct CuratedGame {
    /// A provider quirk this game's records carry.
    enum Quirk: Hashable {
        case httpsImages, htmlDescription, rtpMissing, rtpPercent, rtpString, stringBools, platformString
        case vendorHref, extraFields, noBackground, noDescription, intID
    }

    let index: Int
    let name: String
    let kind: String
    let vendor: Int
    let gid: Int
    let popularity: Double
    /// Basis points: 9646 is written 0.9646, 96.46 or "96.46".
    let rtpBasisPoints: Int
    let slug: String
    /// Whether the records carry the full field set rather than the lean one.
    var isFull = false
    var isNew = false
    var isPopular = false
    /// The categories this game belongs to, in lobby order.
    var categories: [String] = []
    var tags: [String] = []
    var jackpotNames: [String] = []
    var quirks: Set<Quirk> = []

    init(index: Int, name: String, kind: String, vendor: Int, gid: Int, popularity: Double, rtpBasisPoints: Int) {
        self.index = index
        self.name = name
        self.kind = kind
        self.vendor = vendor
        self.gid = gid
        self.popularity = popularity
        self.rtpBasisPoints = rtpBasisPoints
        slug = PythonText.slugify(name) + "-" + CuratedCatalogue.vendor(vendor).short
    }

    var isLive: Bool { kind.hasPrefix("live") }
    var territories: [String] { CuratedCatalogue.territorySets[index % CuratedCatalogue.territorySets.count] }
    var hasFunMode: Bool { true }
    /// Live tables need an account.
    var hasAnonymousFunMode: Bool { !isLive }
    var width: Int { index % 4 == 0 ? 960 : 1280 }
    var height: Int { index % 4 == 0 ? 600 : 720 }
}

/// The curated pool of 120 games and what was recorded of it, drawn from one seeded generator in
/// the order the original script drew: game ids, vendors, popularity and RTP, then the NEW and
/// POPULAR picks, then tags.
struct CuratedPool {
    /// A recorded item of a category: a pool game (by index) or an edge record.
    enum Record {
        case game(Int)
        case invalid(CuratedCatalogue.InvalidRecord)
    }

    private(set) var games: [CuratedGame] = []
    /// Category id → recorded items in page order (only categories with games).
    private(set) var records: [String: [Record]] = [:]

    init() {
        var random = PythonRandom(seed: CuratedCatalogue.seed)
        buildGames(&random)
        pickNewAndPopular(&random)
        assignTags(&random)
        let members = membership()
        records = recordedRecords(members)
        assignFull()
        assignQuirks()
    }

    // MARK: - The games

    private mutating func buildGames(_ random: inout PythonRandom) {
        let spec = CuratedCatalogue.roles.flatMap { role in role.names.map { (name: $0, role: role) } }
        precondition(spec.count == 120 && Set(spec.map(\.name)).count == 120, "the pool holds 120 distinct games")
        let gids = random.sample(10_000..<59_999, count: spec.count)
        var takenPopularity = CuratedCatalogue.fixedPopularity.map(\.popularity)
        for (index, (name, role)) in spec.enumerated() {
            let vendor: Int
            let gid: Int
            if name == CuratedCatalogue.laraName {
                (vendor, gid) = (266, CuratedCatalogue.laraID)
            } else {
                let vendors = Self.vendors(forKind: role.kind)
                vendor = vendors[random.randrange(vendors.count)]
                gid = gids[index] != CuratedCatalogue.laraID ? gids[index] : 59_999
            }
            var popularity: Double
            if let fixed = CuratedCatalogue.fixedPopularity(of: name) {
                popularity = fixed
            } else {
                repeat {
                    popularity = Double(random.randint(role.low * 100, role.high * 100 - 1)) / 100
                } while takenPopularity.contains(popularity)
                takenPopularity.append(popularity)
            }
            let rtp: Int
            if name == CuratedCatalogue.laraName {
                rtp = 9646
            } else if role.kind.contains("roulette") {
                rtp = name.contains("American") ? 9474 : 9730
            } else if role.kind.contains("blackjack") {
                rtp = random.randint(9940, 9960)
            } else if role.kind.hasPrefix("live") || role.kind == "table" {
                rtp = random.randint(9780, 9890)
            } else {
                rtp = random.randint(9400, 9700)
            }
            games.append(
                CuratedGame(
                    index: index, name: name, kind: role.kind, vendor: vendor, gid: gid, popularity: popularity,
                    rtpBasisPoints: rtp))
        }
    }

    /// The vendors a game of `kind` is drawn from.
    private static func vendors(forKind kind: String) -> [Int] {
        if kind.hasPrefix("live") { return CuratedCatalogue.liveVendors }
        switch kind {
        case "slot": return CuratedCatalogue.slotVendors
        case "megaways", "jackpot-megaways": return CuratedCatalogue.megawaysVendors
        case "jackpot": return CuratedCatalogue.jackpotVendors
        default: return CuratedCatalogue.tableVendors
        }
    }

    /// NEW: its total minus the edge record (22): the 15 new slots plus a seeded sample of 7 others.
    /// POPULAR (editorial, 40): the 3 fixed top slots, the 8 popular slots, 9 of popularity >= 70
    /// and 20 below 60.
    private mutating func pickNewAndPopular(_ random: inout PythonRandom) {
        let newTotal = CuratedCatalogue.categories.first { $0.id == "NEW" }!.total - 1
        let isFixed = { (game: CuratedGame) in CuratedCatalogue.fixedPopularity(of: game.name) != nil }
        let others = games.filter { !CuratedCatalogue.newSlots.contains($0.name) && !isFixed($0) }.map(\.index)
        let newSlots = games.filter { CuratedCatalogue.newSlots.contains($0.name) }.map(\.index)
        for index in newSlots + random.sample(others, count: newTotal - newSlots.count) {
            games[index].isNew = true
        }
        let fixed = games.filter(isFixed).map(\.index)
        let high = games.filter { $0.popularity >= 70 && !isFixed($0) }.map(\.index)
        let low = games.filter { $0.popularity < 60 }.map(\.index)
        let popularSlots = games.filter { CuratedCatalogue.popularSlots.contains($0.name) }.map(\.index)
        let picked = fixed + popularSlots + random.sample(high, count: 9) + random.sample(low, count: 20)
        for index in picked {
            games[index].isPopular = true
        }
    }

    private mutating func assignTags(_ random: inout PythonRandom) {
        let main = ["Free Spins", "Free Spins", "Bonus Buy", "Hold & Win", "Cascading Reels", "Multiplier"]
        for index in games.indices {
            let game = games[index]
            var tags: [String] = []
            if ["slot", "megaways", "jackpot", "jackpot-megaways"].contains(game.kind) {
                tags.append(main[random.randrange(main.count)])
            }
            if game.kind.contains("megaways") { tags.append("Megaways") }
            if game.kind.contains("jackpot") {
                tags.append("Jackpot")
                games[index].jackpotNames = [game.index % 2 == 1 ? "Mega Drop" : "Grand Progressive"]
            }
            if ["blackjack", "roulette", "table"].contains(game.kind) {
                tags.append("Table Games")
                if game.index % 5 == 0 { tags.append("Classic") }
            }
            if game.isLive {
                tags.append("Live Dealer")
                let name = game.name
                if name.hasSuffix("Wheel Live") || name.contains("Drop Live") || name.contains("Flip")
                    || name.contains("Goal")
                {
                    tags.append("Game Show")
                }
            }
            if game.name.unicodeScalars.contains(where: { "éèçâà".unicodeScalars.contains($0) }) {
                tags.append("French")
            }
            games[index].tags = tags
        }
    }

    // MARK: - What was recorded

    /// Category id → member indexes, highest popularity first; sets each game's categories.
    private mutating func membership() -> [String: [Int]] {
        func byPopularity(_ include: (CuratedGame) -> Bool) -> [Int] {
            games.filter(include).sorted { ($1.popularity, $0.gid) < ($0.popularity, $1.gid) }.map(\.index)
        }
        let slotKinds: Set = ["slot", "megaways", "jackpot", "jackpot-megaways"]
        let tableKinds: Set = ["blackjack", "roulette", "table"]
        let members: [String: [Int]] = [
            "POPULAR": byPopularity { $0.isPopular },
            "NEW": byPopularity { $0.isNew },
            "VIDEOSLOTS": byPopularity { slotKinds.contains($0.kind) },
            "JACKPOTS": byPopularity { $0.kind.contains("jackpot") },
            "MEGAWAYS": byPopularity { $0.kind.contains("megaways") },
            "TABLEGAMES": byPopularity { tableKinds.contains($0.kind) },
            "BLACKJACK": byPopularity { $0.kind.contains("blackjack") },
            "ROULETTE": byPopularity { $0.kind.contains("roulette") },
            "LIVECASINO": byPopularity { $0.isLive },
        ]
        for category in CuratedCatalogue.categories {
            for index in members[category.id] ?? [] {
                games[index].categories.append(category.id)
            }
        }
        return members
    }

    /// The first `pages` pages of each category, with the edge records put in: an invalid record
    /// at its position, and on VIDEOSLOTS the last game of page 0 again first on page 10 (the
    /// provider's order shifted between the two requests).
    private func recordedRecords(_ members: [String: [Int]]) -> [String: [Record]] {
        let limit = CuratedCatalogue.pageLimit
        var result: [String: [Record]] = [:]
        for category in CuratedCatalogue.categories where category.total > 0 {
            let count = min(category.total, category.pages * limit)
            var records = (members[category.id] ?? []).map(Record.game)
            for invalid in CuratedCatalogue.invalidRecords where invalid.category == category.id {
                records.insert(.invalid(invalid), at: min(invalid.position, records.count))
            }
            if category.id == "VIDEOSLOTS" {
                records.insert(records[limit - 1], at: limit)
            }
            if category.total <= category.pages * limit {
                precondition(records.count == category.total, "\(category.id) is recorded completely")
            }
            precondition(records.count >= count, "\(category.id) has enough members for its pages")
            result[category.id] = Array(records.prefix(count))
        }
        return result
    }

    /// The indexes of the recorded games, each once, in pool order.
    var recordedGames: [Int] {
        var recorded = Set<Int>()
        for case .game(let index) in records.values.joined() { recorded.insert(index) }
        return recorded.sorted()
    }

    /// The example game is always full; the other full ones are spread evenly over the games
    /// recorded only once, so a full record is rarely repeated across categories.
    private mutating func assignFull() {
        var appearances: [Int: Int] = [:]
        for case .game(let index) in records.values.joined() { appearances[index, default: 0] += 1 }
        precondition(appearances.count == games.count, "every pool game is recorded")
        games[0].isFull = true
        let singles = games.filter { appearances[$0.index] == 1 && $0.index != 0 }.map(\.index)
        let wanted = CuratedCatalogue.fullGames - 1
        for k in 0..<wanted {
            games[singles[k * singles.count / wanted]].isFull = true
        }
    }

    /// Picks the quirk games among the recorded ones by stride over pool order.
    private mutating func assignQuirks() {
        let others = recordedGames.filter { $0 != 0 && CuratedCatalogue.whitespaceNames[games[$0].name] == nil }
        let full = others.filter { games[$0].isFull }
        for (j, index) in others.enumerated() {
            var quirks: Set<CuratedGame.Quirk> = []
            if j % 6 == 4 { quirks.insert(.httpsImages) }
            if j % 7 == 1 { quirks.insert(.htmlDescription) }
            if j % 15 == 11 {
                quirks.insert(.rtpMissing)
            } else if j % 10 == 3 {
                quirks.insert(.rtpPercent)
            } else if j % 10 == 7 {
                quirks.insert(.rtpString)
            }
            if j % 17 == 5 { quirks.insert(.stringBools) }
            if j % 19 == 8 { quirks.insert(.platformString) }
            if j % 23 == 13 { quirks.insert(.vendorHref) }
            if j % 21 == 2 { quirks.insert(.extraFields) }
            if j % 16 == 9 { quirks.insert(.noBackground) }
            if j % 12 == 6 { quirks.insert(.noDescription) }
            games[index].quirks.formUnion(quirks)
        }
        for (k, index) in full.enumerated() where k % 8 == 2 {
            games[index].quirks.insert(.intID)  // full games: they carry gId too
        }
    }
}
