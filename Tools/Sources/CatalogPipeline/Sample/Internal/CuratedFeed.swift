import Foundation

/// Renders `feed/acme-feed.xml`, the XML game feed of the curated data: 40 pool games (16 slots
/// with the French-named ones, 6 jackpot slots, 8 RNG table games, 10 live tables) in 1-3 of six
/// categories each.
struct CuratedFeed {
    let pool: CuratedPool
    private typealias Catalogue = CuratedCatalogue

    /// The feed's games (pool indexes, in pool order) and each one's categories.
    func selection() -> (games: [Int], categories: [Int: [String]]) {
        let games =
            (pick(["slot", "megaways"], 16, must: ["Château Fortune", "Le Bandit Doré"])
            + pick(["jackpot", "jackpot-megaways"], 6)
            + pick(["blackjack", "roulette", "table"], 8, must: ["Crème de la Crème Roulette"])
            + pick(["live-blackjack", "live-roulette", "live-other"], 10, must: ["Salon Privé Blackjack"])).sorted()
        precondition(games.count == 40 && Set(games.map { pool.games[$0].gid }).count == 40, "40 distinct feed games")
        var categories: [Int: [String]] = [:]
        for index in games {
            let game = pool.games[index]
            var ids: [String] = []
            if ["slot", "megaways", "jackpot", "jackpot-megaways"].contains(game.kind) { ids.append("VIDEOSLOTS") }
            if game.kind.contains("jackpot") { ids.append("JACKPOTS") }
            if ["blackjack", "roulette", "table"].contains(game.kind) { ids.append("TABLEGAMES") }
            if game.isLive { ids.append("LIVECASINO") }
            if game.isNew || game.index % 11 == 1 { ids.append("NEW") }
            categories[index] = Array(ids.prefix(3))
        }
        return (games, categories)
    }

    /// `count` games of `kinds`: the `must` ones, then even pool indexes, then odd ones.
    private func pick(_ kinds: Set<String>, _ count: Int, must: [String] = []) -> [Int] {
        var chosen = pool.games.filter { must.contains($0.name) }.map(\.index)
        for evenOnly in [true, false] {
            for game in pool.games where chosen.count < count {
                if kinds.contains(game.kind), !chosen.contains(game.index), !evenOnly || game.index % 2 == 0 {
                    chosen.append(game.index)
                }
            }
        }
        return chosen
    }

    /// The feed file's bytes.
    func render() -> Data {
        let (games, categories) = selection()
        var positions: [String: Int] = [:]  // "<gid>/<category>" → 1-based position
        for category in Catalogue.feedCategories {
            let members = games.filter { categories[$0]!.contains(category.id) }.map { pool.games[$0] }
                .sorted { ($1.popularity, $0.gid) < ($0.popularity, $1.gid) }
            for (offset, game) in members.enumerated() { positions["\(game.gid)/\(category.id)"] = offset + 1 }
        }
        let escape = { (text: String) in PythonText.xmlEscape(text) }
        let attribute = { (text: String) in PythonText.xmlEscape(text, quotes: true) }
        let flag = { (value: Bool) in value ? "true" : "false" }
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<feed provider="acme" generated="\#(Catalogue.fetchedAt)" version="1">"#, "  <categories>",
        ]
        for (offset, category) in Catalogue.feedCategories.enumerated() {
            lines.append(#"    <category id="\#(attribute(category.id))" position="\#(offset + 1)">"#)
            lines.append(
                #"      <name lang="en">\#(escape(category.english))</name><name lang="fr">\#(escape(category.french))</name>"#
            )
            lines.append("    </category>")
        }
        lines += ["  </categories>", "  <games>"]
        for index in games {
            let game = pool.games[index]
            let text = CuratedText(game: game)
            lines.append(
                #"    <game id="\#(game.gid)" slug="\#(attribute(game.slug))" isNew="\#(flag(game.isNew))" "#
                    + #"funMode="\#(flag(game.hasFunMode))" anonymousFunMode="\#(flag(game.hasAnonymousFunMode))">"#)
            lines.append("      <name>\(escape(game.name))</name>")
            lines.append(#"      <vendor id="\#(game.vendor)">\#(escape(Catalogue.vendor(game.vendor).name))</vendor>"#)
            let description = text.feedDescription
            precondition(!description.contains("]]>"), "a CDATA section cannot hold ]]>")
            lines.append("      <description><![CDATA[\(description)]]></description>")
            lines.append("      <thumbnail>\(escape(text.imageURL("thumb")))</thumbnail>")
            lines.append("      <background>\(escape(text.imageURL("bg")))</background>")
            lines.append("      <launchUrl>\(escape(Catalogue.launch + "/" + game.slug))</launchUrl>")
            let platforms = game.isLive ? ["iPhone", "Android", "iPad"] : ["iPhone", "Android", "iPad", "PC"]
            lines.append(
                "      <platforms>" + platforms.map { "<platform>\($0)</platform>" }.joined() + "</platforms>")
            let references = categories[index]!.map { category in
                let position = positions["\(game.gid)/\(category)"]!
                return #"<category ref="\#(category)" position="\#(position)"/>"#
            }
            lines.append("      <categories>" + references.joined() + "</categories>")
            lines.append(
                "      <popularity>\(PythonJSON.repr(game.popularity))</popularity>"
                    + "<rtp>\(PythonJSON.repr(Double(game.rtpBasisPoints) / 100))</rtp>")
            lines.append("      <tags>" + game.tags.map { "<tag>\(escape($0))</tag>" }.joined() + "</tags>")
            lines.append(
                "      <restrictedTerritories>\(game.territories.joined(separator: " "))</restrictedTerritories>")
            lines.append("    </game>")
        }
        lines += ["  </games>", "</feed>"]
        return Data((lines.joined(separator: "\n") + "\n").utf8)
    }
}
