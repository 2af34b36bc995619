/// The fixed tables of the curated recording: categories, vendors, the 120 invented game names
/// and their roles, the documented example game, the edge records and the territory sets.
///
/// Every value here is data, not logic: changing one changes `data/`, and the test
/// `CuratedRecordingTests.regeneratesTheEmbeddedDataByteForByte` fails until `data/` is
/// regenerated with `catalog sample --curated --output data`.
enum CuratedCatalogue {
    static let seed: UInt64 = 20_261_120
    static let baseURL = "https://casino-api.example-staging.com"
    static let fetchedAt = "2026-11-20T10:00:00Z"
    static let editions = ["en-iPhone", "fr-iPhone"]
    static let pageLimit = 10
    static let cdn = "static.example-cdn.com"
    static let launch = "https://launch.example-staging.com/Loader/Start/4093"

    /// A category in lobby order: `total` is `games.total`, `pages` how many pages of 10 were recorded.
    struct Category {
        let id: String
        let englishName: String
        let frenchName: String
        let total: Int
        let pages: Int
    }

    /// Three have no games (never fetched). NEW, JACKPOTS and BLACKJACK are recorded completely;
    /// the others have more games than their recorded pages hold. In French, NEW is written
    /// decomposed ("e" + U+0301) and ROULETTE has surrounding spaces.
    static let categories = [
        Category(id: "POPULAR", englishName: "Popular", frenchName: "Populaires", total: 96, pages: 2),
        Category(id: "NEW", englishName: "New Games", frenchName: "Nouveaute\u{0301}s", total: 23, pages: 3),
        Category(id: "VIDEOSLOTS", englishName: "Video Slots", frenchName: "Machines à sous", total: 133, pages: 2),
        Category(id: "JACKPOTS", englishName: "Jackpots", frenchName: "Jackpots", total: 17, pages: 2),
        Category(id: "VIRTUALSPORTS", englishName: "Virtual Sports", frenchName: "Sports virtuels", total: 0, pages: 0),
        Category(id: "MEGAWAYS", englishName: "Megaways", frenchName: "Megaways", total: 48, pages: 1),
        Category(id: "TABLEGAMES", englishName: "Table Games", frenchName: "Jeux de table", total: 61, pages: 1),
        Category(id: "BLACKJACK", englishName: "Blackjack", frenchName: "Blackjack", total: 22, pages: 3),
        Category(id: "ROULETTE", englishName: "Roulette", frenchName: " Roulette  ", total: 34, pages: 1),
        Category(id: "SCRATCHCARDS", englishName: "Scratch Cards", frenchName: "Cartes à gratter", total: 0, pages: 0),
        Category(id: "LIVECASINO", englishName: "Live Casino", frenchName: "Casino en direct", total: 212, pages: 1),
        Category(id: "TOURNAMENTS", englishName: "Tournaments", frenchName: "Tournois", total: 0, pages: 0),
    ]

    struct Vendor {
        let name: String
        let displayName: String
        /// The slug suffix and image name.
        let short: String
        let isTopVendor: Bool
    }

    static let vendors: [Int: Vendor] = [
        266: Vendor(name: "RGS_Matrix", displayName: "RGS Matrix", short: "rgs", isTopVendor: false),
        22: Vendor(name: "NetEnt", displayName: "NetEnt", short: "netent", isTopVendor: true),
        71: Vendor(name: "Pragmatic Play", displayName: "Pragmatic Play", short: "pp", isTopVendor: true),
        45: Vendor(name: "Evolution", displayName: "Evolution", short: "evo", isTopVendor: true),
        38: Vendor(name: "Play'n GO", displayName: "Play'n GO", short: "png", isTopVendor: true),
        112: Vendor(name: "Red Tiger", displayName: "Red Tiger", short: "rt", isTopVendor: false),
        97: Vendor(name: "Big Time Gaming", displayName: "Big Time Gaming", short: "btg", isTopVendor: false),
        150: Vendor(name: "Nolimit City", displayName: "Nolimit City", short: "nlc", isTopVendor: false),
        188: Vendor(name: "Hacksaw Gaming", displayName: "Hacksaw Gaming", short: "hacksaw", isTopVendor: false),
        61: Vendor(name: "Yggdrasil", displayName: "Yggdrasil", short: "ygg", isTopVendor: false),
        203: Vendor(name: "Ezugi", displayName: "Ezugi", short: "ezugi", isTopVendor: false),
        301: Vendor(name: "Relax Gaming", displayName: "Relax Gaming", short: "relax", isTopVendor: false),
    ]

    static func vendor(_ id: Int) -> Vendor { vendors[id]! }

    static let slotVendors = [22, 71, 266, 38, 112, 150, 188, 61, 301]
    static let megawaysVendors = [97, 112, 71, 301]
    static let jackpotVendors = [22, 112, 38, 61, 266]
    static let tableVendors = [22, 38, 71, 266]
    static let liveVendors = [45, 203, 71]

    /// Top slots (19, popularity 70-96), popular slots (8, 60-70), new slots (15, 1-30).
    static let slots = [
        "Lara Jones is Cleopatra", "Book of Pharaohs", "Golden Reels Deluxe", "Fruit Fiesta 5",
        "Sweet Cascade", "Wild West Gold Rush", "Moonlit Princess", "Neon Nights", "Lucky Sevens Classic",
        "Hot Chilli Fiesta", "Mystic Forest", "Legend of the Kraken", "Space Miners", "Candy Carnival",
        "Rise of Anubis", "Robin's Arrow", "Gods of Asgard", "Frozen Crystals", "Tiki Treasures",
        "Lucky Panda Bamboo", "Crimson Dragon", "Château Fortune", "Le Bandit Doré", "Big Bass Lagoon",
        "Blazing Joker", "Wild Buffalo Plains", "Pearl Diver's Fortune",
        "Samba Spins", "Mayan Moonstone", "Lucky Clover Farm", "Spartan Shields", "Ice Queen's Palace",
        "Circus of Wonders", "Dragon's Lair Riches", "Gold Rush Gordon", "Honey Hive Wilds",
        "Jade Emperor's Garden", "Midnight Vampire", "Safari Sunset", "Viking Voyage", "Zeus Thunder Reels",
        "Mermaid's Lagoon",
    ]
    static let popularSlots = Array(slots[19..<27])
    static let newSlots = Array(slots[27...])
    static let megaways = [
        "Gold Quarry Megaways", "Viking Tides Megaways", "Thunder Bison Megaways", "Gems of Atlantis Megaways",
        "Wolf Moon Rising Megaways", "Pirate's Plunder Megaways", "Dragon Forge Megaways",
        "Jungle Cascade Megaways", "Neon Tiger Megaways", "Sugar Storm Megaways",
    ]
    /// In JACKPOTS and MEGAWAYS.
    static let jackpotMegaways = ["Jackpot Raiders Megaways"]
    static let jackpots = [
        "Divine Riches Jackpot", "Pharaoh's Vault Mega Jackpot", "Treasure Nile Progressive",
        "Cash Volcano Jackpot", "Lucky Dragon Pearls Jackpot", "Major Millions Reels", "Diamond Empire Jackpot",
        "Golden Goose Grand", "Wild Safari Jackpot King", "Royal Crown Treasury", "Arctic Fortune Jackpot",
        "Big Bank Bonanza", "Midas Reels Jackpot", "Cosmic Gems Jackpot", "Piggy Heist Jackpot",
        "Castle Gold Jackpot",
    ]
    static let rngTable = [
        "Punto Banco Baccarat", "Casino Hold'em", "Three Card Poker", "Sic Bo Dragons", "Red Dog",
        "Caribbean Stud Poker", "Pai Gow Deluxe", "Texas Hold'em Bonus", "Craps Royale", "Baccarat Gold Edition",
    ]
    static let rngRoulette = [
        "European Roulette", "French Roulette", "American Roulette", "Crème de la Crème Roulette",
        "Double Ball Roulette",
    ]
    static let liveRoulette = [
        "Thunderbolt Roulette Live", "Auto Roulette Live", "Speed Roulette Live", "Live Roulette Française",
        "Golden Ball Roulette Live",
    ]
    static let rngBlackjack = [
        "Blackjack Classic", "European Blackjack", "Atlantic City Blackjack", "Multihand Blackjack Pro",
        "Blackjack Switch Deluxe", "Single Deck Blackjack", "Vegas Strip Blackjack", "Double Exposure Blackjack",
        "Blackjack Lucky Sevens", "Perfect Pairs Blackjack", "Blackjack Surrender",
    ]
    static let liveBlackjack = [
        "Live Blackjack A", "Live Blackjack VIP Gold", "Infinite Blackjack Live", "Speed Blackjack Live",
        "Blackjack Party Live", "Live Blackjack Français", "Power Blackjack Live", "Salon Privé Blackjack",
        "Free Bet Blackjack Live", "Blackjack Royale Live",
    ]
    static let liveOther = [
        "Live Baccarat Squeeze", "Speed Baccarat Live", "No Commission Baccarat Live", "Dragon Tiger Live",
        "Mega Wheel Live", "Fortune Wheel Live", "Crazy Coin Flip Live", "Money Drop Live", "Candy Drop Live",
        "Goal Rush Live",
    ]

    /// Which games play which role: the kind decides category membership, the band the popularity.
    struct Role {
        let names: [String]
        let kind: String
        let low: Int
        let high: Int
    }

    static let roles = [
        Role(names: Array(slots[..<19]), kind: "slot", low: 70, high: 96),
        Role(names: popularSlots, kind: "slot", low: 60, high: 70),
        Role(names: newSlots, kind: "slot", low: 1, high: 30),
        Role(names: megaways, kind: "megaways", low: 30, high: 60),
        Role(names: jackpotMegaways, kind: "jackpot-megaways", low: 1, high: 10),
        Role(names: jackpots, kind: "jackpot", low: 1, high: 60),
        Role(names: rngTable, kind: "table", low: 50, high: 95),
        Role(names: rngRoulette, kind: "roulette", low: 20, high: 50),
        Role(names: liveRoulette, kind: "live-roulette", low: 50, high: 90),
        Role(names: rngBlackjack, kind: "blackjack", low: 1, high: 50),
        Role(names: liveBlackjack, kind: "live-blackjack", low: 1, high: 60),
        Role(names: liveOther, kind: "live-other", low: 90, high: 100),
    ]

    /// The documented example game (the first of the pool).
    static let laraName = "Lara Jones is Cleopatra"
    static let laraID = 34795
    static func laraDescription(_ language: String) -> String {
        language == "en"
            ? "<p>Did you grow up playing <b>Tomb Raider</b>? &amp; more</p>"
            : "<p>Vous avez grandi avec <b>Tomb Raider</b>&nbsp;? &amp; plus encore</p>"
    }

    /// Fixed popularity of the three top slots, in pool order.
    static let fixedPopularity: [(name: String, popularity: Double)] = [
        (laraName, 98.71), ("Book of Pharaohs", 97.93), ("Golden Reels Deluxe", 96.42),
    ]
    static func fixedPopularity(of name: String) -> Double? {
        fixedPopularity.first { $0.name == name }?.popularity
    }

    /// QUIRK: names with surrounding whitespace (both editions, wherever these games appear).
    static let whitespaceNames = [
        "Book of Pharaohs": "  Book of Pharaohs ", "Golden Reels Deluxe": "Golden Reels Deluxe  ",
    ]

    /// EDGE: an invalid record the normalizer must drop, in one category of both editions.
    struct InvalidRecord {
        let category: String
        let position: Int
        let id: String
        let name: String
        let slug: String
        let vendor: Int
        var launchUrl: String? = nil
    }

    static let invalidEmptyName = InvalidRecord(
        category: "NEW", position: 14, id: "48210", name: "", slug: "golden-lotus-pp", vendor: 71)
    static let invalidHTTP = InvalidRecord(
        category: "BLACKJACK", position: 17, id: "51377", name: "Blackjack Live Test Table",
        slug: "blackjack-live-test-table-evo", vendor: 45, launchUrl: "http://insecure.example.com/x")
    static let invalidRecords = [invalidEmptyName, invalidHTTP]

    /// How many recorded games carry the full field set (the rest are lean), to fit data/'s budget.
    static let fullGames = 22

    static let territorySets = [
        ["AF", "AD", "CA-ON", "US"],
        ["US", "FR", "CA-ON", "CA-QC"],
        ["GB", "US-NJ", "US-PA", "AU"],
        ["AF", "IR", "KP", "CA-ON", "ES"],
        ["US", "IT", "BE-VLG"],
    ]

    /// A game's kind in prose, English and French.
    static let kindText: [String: (english: String, french: String)] = [
        "slot": ("video slot", "une machine à sous"),
        "megaways": ("Megaways slot", "une machine à sous Megaways"),
        "jackpot": ("progressive jackpot slot", "une machine à sous à jackpot progressif"),
        "jackpot-megaways": ("Megaways jackpot slot", "une machine à sous Megaways à jackpot"),
        "blackjack": ("blackjack table", "une table de blackjack"),
        "roulette": ("roulette wheel", "une roulette"),
        "table": ("table game", "un jeu de table"),
        "live-blackjack": ("live blackjack table", "une table de blackjack en direct"),
        "live-roulette": ("live roulette studio", "une roulette en direct"),
        "live-other": ("live studio game", "un jeu en direct"),
    ]

    /// The feed's categories: id, English and French name. TOURNAMENTS has no game referencing it.
    static let feedCategories: [(id: String, english: String, french: String)] = [
        ("VIDEOSLOTS", "Video Slots", "Machines à sous"),
        ("JACKPOTS", "Jackpots", "Jackpots"),
        ("NEW", "New Games", "Nouveautés"),
        ("TABLEGAMES", "Table Games", "Jeux de table"),
        ("LIVECASINO", "Live Casino", "Casino en direct"),
        ("TOURNAMENTS", "Tournaments", "Tournois"),
    ]
}
