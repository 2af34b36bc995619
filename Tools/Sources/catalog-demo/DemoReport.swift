@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogServer
import Foundation

/// What the demo measured: one row per step, and the cache's own counters per launch.
struct DemoReport {
    /// Lines describing the setup.
    var header: [String] = []
    var rows: [DemoRow] = []
    /// `cache.statistics()` of each launch, labelled with its steps.
    var statistics: [(steps: String, statistics: CacheStatistics)] = []
    /// The cause of the first failed refresh while the provider was down.
    var failureCause: String?
    /// The push payload of step 7, as the simulator announced its version bump.
    var pushPayload: String?
    /// The push payload of step 8, as the simulator announced a withdrawal.
    var withdrawalPayload: String?

    /// The report as text: the setup, the table, the statistics.
    func rendered() -> String {
        let titles = [
            "step", "the user saw first", "first content", "tier that answered", "then, silently", "settled after",
            "server requests", "updates", "failures",
        ]
        let cells = rows.map { row in
            [
                row.step, row.sawFirst, DemoRow.milliseconds(row.firstContent), row.tier, row.then,
                DemoRow.milliseconds(row.settled), row.requests, "\(row.updates)", "\(row.failures)",
            ]
        }
        let widths = titles.indices.map { column in
            ([titles[column]] + cells.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ values: [String]) -> String {
            "| "
                + values.enumerated().map { column, value in
                    value + String(repeating: " ", count: widths[column] - value.count)
                }.joined(separator: " | ") + " |"
        }
        let rule = "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"
        var lines = header + [""]
        lines.append(line(titles))
        lines.append(rule)
        lines += cells.map(line)
        lines.append("")
        if let failureCause { lines.append("refresh failure while the provider was down: \(failureCause)") }
        if let pushPayload { lines.append("push payload of step 7: \(pushPayload)") }
        if let withdrawalPayload { lines.append("push payload of step 8: \(withdrawalPayload)") }
        if let spinner = rows.first?.firstContent, let slowest = rows.dropFirst().map(\.firstContent).max() {
            lines.append(
                "without the cache the lobby waited \(DemoRow.milliseconds(spinner)) behind a spinner; with it, the first "
                    + "frame had content within \(DemoRow.milliseconds(slowest)) in every session")
        }
        lines.append("")
        lines.append("cache.statistics() per launch:")
        for (steps, statistics) in statistics { lines.append("  launched in step \(steps): \(statistics)") }
        return lines.joined(separator: "\n")
    }
}

/// One step of the story, as the table shows it.
struct DemoRow {
    var step: String
    var sawFirst: String
    /// From launch (making the cache) to content for the first frame.
    var firstContent: Duration
    var tier: String
    var then: String
    /// From launch until the background work (refreshes, updates) ended.
    var settled: Duration
    var requests: String
    var updates: Int
    var failures: Int

    /// `"4 categories + 10 games (v1)"`, or what a miss looks like.
    static func describe(categories: CacheResult<CategoryList>, page: CacheResult<GamesPage>) -> String {
        guard let list = categories.value else { return "a spinner (nothing cached)" }
        guard let games = page.value else { return "\(list.items.count) categories, no games yet" }
        return "\(list.items.count) categories + \(games.items.count) games (\(version(of: games)))"
    }

    /// `"disk · stale"`: where the categories came from, and how old they were.
    static func tier(of categories: CacheResult<CategoryList>, _ page: CacheResult<GamesPage>) -> String {
        let shown = label(categories.metadata, kind(categories))
        let pageShown = label(page.metadata, kind(page))
        return shown == pageShown ? shown : "\(shown), page \(pageShown)"
    }

    /// What happened in the background: updates, failures and revalidations.
    static func then(
        _ events: [CacheUpdate], server: (before: SimulatorStatistics, after: SimulatorStatistics)
    ) -> String {
        var parts: [String] = []
        for event in events {
            switch event.event {
            case .updated(let content, let changes):
                let what: String
                switch content {
                case .categories: what = "categories"
                case .gamesPage(let page): what = "page → \(version(of: page))"
                }
                let removed = changes.removed.isEmpty ? "" : ", \(changes.removed.count) removed"
                parts.append("update: \(what) (\(changes.updated.count + changes.inserted.count) changed\(removed))")
            case .refreshFailed(let error, _, _):
                let code = (error.cause as? UpstreamError)?.code.description ?? error.code.description
                parts.append("refresh failed: \(code)")
            case .pendingUpdate(let changes):
                parts.append(
                    "held: \(changes.inserted.count) new, \(changes.removed.count) gone, \(changes.updated.count) changed"
                )
            case .mutationFailed(_, let error):
                parts.append("change undone: \(error.code)")
            }
        }
        let notModified = server.after.count(status: 304) - server.before.count(status: 304)
        if notModified > 0 { parts.append("\(notModified) × 304 (unchanged)") }
        let unchanged =
            server.after.count(status: 200) - server.before.count(status: 200)
            - events.filter { if case .updated = $0.event { true } else { false } }.count
        if unchanged > 0 { parts.append("\(unchanged) × 200 same content, no update") }
        if parts.isEmpty { return "nothing: no network call" }
        var counted: [(part: String, count: Int)] = []
        for part in parts {
            if let index = counted.firstIndex(where: { $0.part == part }) {
                counted[index].count += 1
            } else {
                counted.append((part, 1))
            }
        }
        return counted.map { $0.count == 1 ? $0.part : "\($0.count) × \($0.part)" }.joined(separator: "; ")
    }

    /// `"2 (200 × 1, 304 × 1)"`: what the server counted between two readings.
    static func requests(from before: SimulatorStatistics, to after: SimulatorStatistics) -> String {
        let total = after.totalRequests - before.totalRequests
        let statuses = after.statuses.keys.sorted().compactMap { status -> String? in
            let count = (after.statuses[status] ?? 0) - (before.statuses[status] ?? 0)
            return count > 0 ? "\(status) × \(count)" : nil
        }
        return statuses.isEmpty ? "\(total)" : "\(total) (\(statuses.joined(separator: ", ")))"
    }

    /// `"0.42 ms"`, `"3127 ms"`.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return value < 10 ? String(format: "%.2f ms", value) : String(format: "%.0f ms", value)
    }

    /// The catalogue version a page shows: the simulator suffixes game names with ` vN` from version 2.
    static func version(of page: GamesPage) -> String {
        guard let last = page.items.first?.name.split(separator: " ").last, last.hasPrefix("v"),
            Int(last.dropFirst()) != nil
        else { return "v1" }
        return String(last)
    }

    private static func kind<Value: Sendable>(_ result: CacheResult<Value>) -> String {
        switch result {
        case .fresh: "fresh"
        case .stale: "stale"
        case .bundled: "bundled"
        case .miss: "miss"
        }
    }

    private static func label(_ metadata: CacheMetadata?, _ kind: String) -> String {
        guard let metadata else { return kind }
        return metadata.tier == .bundled ? "bundled snapshot" : "\(metadata.tier.rawValue) · \(kind)"
    }
}
