import Foundation

/// Renders `README.md` of the curated data from what was generated, so the quirk locations it
/// lists are always the real ones.
struct CuratedReadme {
    let pool: CuratedPool
    let pages: [CuratedProviderFiles.Page]
    let feed: (games: [Int], categories: [Int: [String]])
    private typealias Catalogue = CuratedCatalogue

    /// Labels and tests over a rendered item, in the README's order.
    static let quirkDetectors: [(label: String, matches: @Sendable (PythonJSON) -> Bool)] = [
        ("protocol-relative image URLs (`//static.example-cdn.com/...`)", { text($0["thumbnail"]).hasPrefix("//") }),
        ("absolute https image URLs", { text($0["thumbnail"]).hasPrefix("https://") }),
        ("description with HTML tags and entities", { text($0["description"]).contains("<") }),
        ("theoreticalPayOut as a fraction (`0.9646`)", { double($0["theoreticalPayOut"]).map { $0 <= 1 } ?? false }),
        (
            "theoreticalPayOut as a percent number (`96.21`)",
            { double($0["theoreticalPayOut"]).map { $0 > 1 } ?? false }
        ),
        ("theoreticalPayOut as a string (`\"96.5\"`)", { isString($0["theoreticalPayOut"]) }),
        ("theoreticalPayOut missing", { $0["theoreticalPayOut"] == nil }),
        ("booleans as `\"0\"`/`\"1\"` strings", { isString($0["hasFunMode"]) }),
        ("`id` as an int", { if case .int = $0["id"] { true } else { false } }),
        ("`platform` as one comma-separated string", { isString($0["platform"]) }),
        ("vendor unexpanded (`{\"href\"}` only)", { ($0["vendor"]?.keys ?? []) == ["href"] }),
        ("unknown extra fields (`experimentalFlags`, `_trace`)", { $0["experimentalFlags"] != nil }),
        ("no `backgroundImageUrl`", { $0["backgroundImageUrl"] == nil }),
        ("no `description`", { $0["description"] == nil }),
        (
            "`restrictedTerritories` with subdivisions (`CA-ON`, `US-NJ`, ...)",
            {
                guard case .array(let territories) = $0["restrictedTerritories"] else { return false }
                return territories.contains { text($0).contains("-") }
            }
        ),
        (
            "name with surrounding whitespace",
            {
                let name = text($0["name"])
                return !name.isEmpty && name != name.trimmingCharacters(in: .whitespacesAndNewlines)
            }
        ),
        (
            "full field set (href, gId, icons, realMode, categories, jackpots, maxBetRestriction, ...)",
            { $0["gId"] != nil }
        ),
        ("lean field set", { $0["gId"] == nil }),
    ]

    private static func text(_ value: PythonJSON?) -> String {
        if case .string(let text) = value { text } else { "" }
    }

    private static func double(_ value: PythonJSON?) -> Double? {
        if case .double(let number) = value { number } else { nil }
    }

    private static func isString(_ value: PythonJSON?) -> Bool {
        if case .string = value { true } else { false }
    }

    /// Quirk label → (game id, first en-iPhone file it appears in), edge records left out.
    func quirkIndex() -> [(label: String, hits: [(id: String, path: String)])] {
        let invalidIDs = Catalogue.invalidRecords.map(\.id)
        return Self.quirkDetectors.map { detector in
            var hits: [(id: String, path: String)] = []
            var seen: Set<String> = []
            for page in pages where page.edition == "en-iPhone" {
                for item in page.items {
                    let id: String =
                        switch item["id"] {
                        case .string(let text): text
                        case .int(let number): String(number)
                        default: "None"
                        }
                    guard !invalidIDs.contains(id), !seen.contains(id), detector.matches(item) else { continue }
                    seen.insert(id)
                    hits.append((id, page.path))
                }
            }
            return (detector.label, hits)
        }
    }

    /// The README's bytes.
    func render() -> Data {
        var lines = CuratedReadmeText.introduction(editions: Catalogue.editions)
        lines += CuratedReadmeText.categoriesHeader
        for (offset, category) in Catalogue.categories.enumerated() {
            let recorded: String
            let directory: String
            if category.total > 0 {
                let count = pool.records[category.id]?.count ?? 0
                let offsets = stride(from: 0, to: count, by: Catalogue.pageLimit).map(String.init).joined(
                    separator: ", ")
                let lastCount = count - (count - 1) / Catalogue.pageLimit * Catalogue.pageLimit
                let complete = count == category.total ? " complete" : ""
                recorded = "\(offsets) (\(count); last page \(lastCount))\(complete)"
                directory = "`\(FileNaming.component(for: category.id))`"
            } else {
                (recorded, directory) = ("none (empty, not fetched)", "-")
            }
            let french = PythonJSON.quoted(category.frenchName, asciiOnly: true)
            lines.append(
                "| \(offset + 1) | \(category.id) | \(category.englishName) | `\(french)` | \(category.total) | "
                    + "\(directory) | \(recorded) |")
        }
        lines += CuratedReadmeText.pool(
            games: pool.games.count, recorded: pool.recordedGames.count, full: Catalogue.fullGames)

        let videoslots = FileNaming.component(for: "VIDEOSLOTS")
        guard case .game(let duplicateIndex) = pool.records["VIDEOSLOTS"]![Catalogue.pageLimit - 1] else {
            preconditionFailure("VIDEOSLOTS page 0 ends with a pool game")
        }
        let duplicate = pool.games[duplicateIndex]
        lines += [
            "- Duplicate across pages: VIDEOSLOTS game `\(duplicate.gid)` "
                + "(\(duplicate.name.trimmingCharacters(in: .whitespacesAndNewlines))) is the last item of",
            "  `games/\(videoslots)/0.json` and again the first item of `games/\(videoslots)/10.json`; keep the first.",
        ]
        let edgeLabels = [
            (label: "Empty name", record: Catalogue.invalidEmptyName),
            (label: "Non-https launchUrl (`http://insecure.example.com/x`)", record: Catalogue.invalidHTTP),
        ]
        for (label, record) in edgeLabels {
            let page = record.position / Catalogue.pageLimit * Catalogue.pageLimit
            lines.append(
                "- \(label): \(record.category) record `\(record.id)` in "
                    + "`games/\(FileNaming.component(for: record.category))/\(page).json`"
                    + " (1 of \(pool.records[record.category]?.count ?? 0) records).")
        }
        lines += CuratedReadmeText.quirksHeader
        for (label, hits) in quirkIndex() {
            lines.append("- \(label): \(hits.count) game(s)")
            let shown = hits.count <= 8 ? hits : Array(hits.prefix(4))
            for hit in shown { lines.append("  - `\(hit.id)` in `\(hit.path)`") }
            if hits.count > shown.count { lines.append("  - ... and \(hits.count - shown.count) more") }
        }
        let used = Set(feed.categories.values.joined())
        let unused = Catalogue.feedCategories.map(\.id).filter { !used.contains($0) }
        lines += CuratedReadmeText.feed(
            fetchedAt: Catalogue.fetchedAt, categories: Catalogue.feedCategories.count,
            unused: unused.joined(separator: ", "), games: feed.games.count)
        return Data((lines.joined(separator: "\n") + "\n").utf8)
    }
}
