@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation

extension CacheReport {
    /// The lobby as the device would show it now, from the report's global keys: per edition, its
    /// categories in the cached list's order, each with the tiles of its cached pages, every withheld
    /// game kept in place and marked with its reason (`catalog preview`'s look).
    ///
    /// A category with no cached page says so; pages of categories the cached list does not name (or
    /// of an edition whose list is not cached) follow under their ids. A report from a version that
    /// did not record names (``CacheInspection/Entry/listing`` `nil`) says that instead of tiles.
    var lobbyHTML: [String] {
        let editions = lobbyEditions
        guard !editions.isEmpty else {
            return ["<h2>Lobby</h2>", #"<p class="empty">No lobby content cached.</p>"#]
        }
        var lines = [
            "<h2>Lobby</h2>",
            "<p>What the device shows now, from what it holds: withheld games stay in place, marked with the reason.</p>",
        ]
        for edition in editions {
            lines += lobbySection(edition)
        }
        return lines
    }

    /// One edition's cached category list (if any) and pages, by category id and offset.
    private struct LobbyEdition {
        var id: String
        var categories: CacheInspection.Entry?
        var pages: [String: [(offset: Int, entry: CacheInspection.Entry)]] = [:]
    }

    /// The editions the global keys name, in the snapshot's order, then the rest by id.
    private var lobbyEditions: [LobbyEdition] {
        var editions: [String: LobbyEdition] = [:]
        for entry in inspection.entries where entry.key.hasPrefix("global/") {
            guard let key = SnapshotKey(String(entry.key.dropFirst("global/".count))) else { continue }
            let id = key.edition.id
            var edition = editions[id] ?? LobbyEdition(id: id)
            switch key {
            case .categories: edition.categories = entry
            case .gamesPage(_, let category, let offset): edition.pages[category, default: []].append((offset, entry))
            }
            editions[id] = edition
        }
        let order = inspection.snapshot?.editions ?? []
        return editions.values.sorted { lhs, rhs in
            let (l, r) = (order.firstIndex(of: lhs.id) ?? order.count, order.firstIndex(of: rhs.id) ?? order.count)
            return (l, lhs.id) < (r, rhs.id)
        }
    }

    private func lobbySection(_ edition: LobbyEdition) -> [String] {
        let e = HTMLText.escape
        var lines = [#"<section class="edition" data-edition="\#(e(edition.id))">"#, "<h3>\(e(edition.id))</h3>"]
        var pages = edition.pages
        if let list = edition.categories {
            lines.append("<p><small>categories: \(e(Self.keyFacts(list)))</small></p>")
            if let categories = list.listing {
                for category in categories {
                    lines += categorySection(
                        id: category.id, name: category.name, pages: pages.removeValue(forKey: category.id) ?? [])
                }
            } else {
                lines.append(Self.unrecorded(list))
            }
        } else {
            lines.append(
                #"<p class="empty">The category list is not cached: the lobby's order is unknown; cached pages follow by category id.</p>"#
            )
        }
        for (id, rest) in pages.sorted(by: { $0.key < $1.key }) {
            lines += categorySection(id: id, name: nil, pages: rest)
        }
        return lines + ["</section>"]
    }

    private func categorySection(
        id: String, name: String?, pages: [(offset: Int, entry: CacheInspection.Entry)]
    ) -> [String] {
        let e = HTMLText.escape
        var lines = [
            #"<section class="category" data-category-id="\#(e(id))">"#,
            "<h4>\(e(name ?? id)) <small>\(e(id))\(name == nil ? " · not in the cached category list" : "")</small></h4>",
        ]
        guard !pages.isEmpty else {
            return lines + [
                #"<p class="empty">No page cached: the app answers from its snapshot or the network.</p>"#,
                "</section>",
            ]
        }
        for (offset, entry) in pages.sorted(by: { $0.offset < $1.offset }) {
            lines.append("<p><small>games from \(offset): \(e(Self.keyFacts(entry)))</small></p>")
            guard let games = entry.listing else {
                lines.append(Self.unrecorded(entry))
                continue
            }
            let withheld = Dictionary(entry.withheld.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            lines.append(#"<ol class="tiles">"#)
            lines += games.map { Self.tile($0, withheld: withheld[$0.id]) }
            lines.append("</ol>")
        }
        return lines + ["</section>"]
    }

    /// A game's tile: its thumbnail (an image only where the page's policy lets it load, else its
    /// URL as text), its name, and the reason when it is withheld.
    private static func tile(_ game: CacheInspection.Item, withheld: CacheInspection.WithheldGame?) -> String {
        let e = HTMLText.escape
        let picture: String
        if let url = game.thumbnail, isLoadableByThePage(url) {
            picture = #"<img class="thumb" src="\#(e(url))" alt="\#(e(game.name))">"#
        } else {
            let detail = game.thumbnail.map { "loaded over the network: \($0)" } ?? "no thumbnail"
            picture =
                #"<div class="thumb placeholder not-bundled" role="img" aria-label="thumbnail" title="\#(e(detail))">"#
                + #"<code>\#(e(game.thumbnail ?? "no thumbnail"))</code></div>"#
        }
        let badge = withheld.map { #"<span class="badge withheld">withheld: \#(e(reason($0)))</span>"# } ?? ""
        return #"<li class="tile" data-game-id="\#(e(game.id))" data-withheld="\#(withheld != nil)">\#(picture)"#
            + #"<p class="name">\#(e(game.name))</p><p class="badges">\#(badge)</p></li>"#
    }

    /// Whether the page's `img-src 'self'` lets `url` load: a relative path below the page, never
    /// another origin (a thumbnail on the provider's CDN is shown as its URL).
    static func isLoadableByThePage(_ url: String) -> Bool {
        guard !url.isEmpty, !url.hasPrefix("/"), !url.hasPrefix("\\"),
            url.firstIndex(of: ":").map({ colon in url[..<colon].contains("/") }) ?? true
        else { return false }
        return !url.split(whereSeparator: { $0 == "/" || $0 == "\\" }).contains("..")
    }

    private static func keyFacts(_ entry: CacheInspection.Entry) -> String {
        "\(entry.state.rawValue) from \(entry.tier.rawValue) (\(entry.source.rawValue)), age \(age(entry.age))"
    }

    private static func unrecorded(_ entry: CacheInspection.Entry) -> String {
        let withheld = entry.withheld.map { "\($0.id) (\(reason($0)))" }.joined(separator: ", ")
        return #"<p class="empty">"#
            + HTMLText.escape(
                "\(entry.items) items; their names are not in this report (written by an older version)"
                    + (withheld.isEmpty ? "" : "; withheld: \(withheld)")) + "</p>"
    }
}
