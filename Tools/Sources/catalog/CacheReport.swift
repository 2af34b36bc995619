@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CatalogPipeline
import Foundation

/// A ``CacheInspection`` (what `CatalogCache.inspection()` reports) for people: text for a
/// terminal, a static page for a bug or an audit, JSON for tools. What `catalog inspect-cache`
/// prints.
///
/// ```swift
/// let report = try CacheReport.read(URL(fileURLWithPath: "cache-report.json"))
/// print(report.text)
/// ```
struct CacheReport: Sendable {
    /// The largest report file read: 64 MiB (a 3,000-entry cache's report is a few MiB).
    static let maxFileBytes = 64 << 20

    var inspection: CacheInspection
    /// The files of a directory read offline that the report leaves out, and why.
    var findings: [CacheDirectoryReader.Finding]

    init(_ inspection: CacheInspection, findings: [CacheDirectoryReader.Finding] = []) {
        self.inspection = inspection
        self.findings = findings
    }

    /// Reads a report an app wrote (JSON, ISO 8601 dates, as `CatalogCache.inspection()`'s
    /// documentation writes it).
    ///
    /// - Throws: ``PipelineError`` naming the file: missing, not a regular file, over
    ///   ``maxFileBytes``, or not a report.
    static func read(_ file: URL) throws(PipelineError) -> CacheReport {
        let data = try FileInput.read(file, limit: maxFileBytes, what: "the cache report")
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return CacheReport(try decoder.decode(CacheInspection.self, from: data))
        } catch {
            throw PipelineError(
                .malformedInput,
                "not a cache report (JSON of CatalogCache.inspection(), ISO 8601 dates): \(error)",
                file: file.path, cause: error)
        }
    }

    /// The report as JSON, keys sorted, dates in ISO 8601: what ``read(_:)`` reads.
    func json() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        // A report holds strings, numbers and dates only: it always encodes.
        return (try? encoder.encode(inspection)) ?? Data()
    }

    // MARK: - Text

    /// The facts, then a line per key (state, tier, source, age, items) with a line per withheld
    /// game, then the players and the statistics.
    var text: String {
        let report = inspection
        var lines = facts.map { "\($0.name): \($0.value)" }
        lines.append("")
        lines.append("keys: \(report.entries.count) (\(stateCounts))")
        for entry in report.entries {
            lines.append(
                "  \(entry.key)  \(entry.state.rawValue) from \(entry.tier.rawValue) (\(entry.source.rawValue)), "
                    + "age \(Self.age(entry.age)), \(entry.items) items"
                    + (entry.withheld.isEmpty ? "" : ", \(entry.withheld.count) withheld")
                    + (entry.etag.map { ", etag \($0)" } ?? ""))
            for game in entry.withheld {
                lines.append("    withheld \(game.id): \(Self.reason(game))")
            }
        }
        lines.append("")
        lines.append("players with unsent changes: \(report.players.count)")
        for player in report.players {
            lines.append(
                "  #\(player.player): \(player.queued) queued\(player.isWaitingToRetry ? ", waiting to retry" : "")")
        }
        lines.append("")
        lines.append("statistics: \(report.statistics)")
        if !findings.isEmpty {
            lines.append("")
            lines.append("files left out: \(findings.count)")
            lines += findings.map { "  \($0)" }
        }
        return lines.joined(separator: "\n")
    }

    /// Why a game is withheld, in words: "restricted in CA-ON", "withdrawn by list 3 in CA-ON".
    static func reason(_ game: CacheInspection.WithheldGame) -> String {
        let territory = game.territory.map { " in \($0)" } ?? ""
        let list = game.withdrawalList.map { " by list \($0)" } ?? ""
        return switch game.reason {
        case .restricted: "restricted\(territory)"
        case .withdrawn: "withdrawn\(list)\(territory.isEmpty ? " everywhere" : territory)"
        case .territoryUnknown: "restricted somewhere and no territory is known"
        case .withdrawalListLost: "restricted or withdrawn somewhere, and the saved withdrawal list was lost"
        }
    }

    // MARK: - HTML

    /// A self-contained static page (no script, nothing from elsewhere loaded): the facts, the lobby
    /// (``lobbyHTML``), a table of keys with every withheld game and its reason, the players and the
    /// statistics. Every value is escaped.
    var html: String {
        let report = inspection
        let e = HTMLText.escape
        var body = [
            "<h1>Cache report</h1>",
            "<p>What this device's cache held and why, when the report was taken.</p>", #"<dl class="facts">"#,
        ]
        body += facts.map { "<dt>\(e($0.name))</dt><dd>\(e($0.value))</dd>" }
        body.append("</dl>")
        body += lobbyHTML
        body += [
            "<h2>Keys: \(report.entries.count) <small>\(e(stateCounts))</small></h2>",
            "<table><thead><tr><th>key</th><th>state</th><th>tier</th><th>source</th><th>age</th><th>items</th>"
                + "<th>withheld</th><th>etag</th><th>content hash</th></tr></thead><tbody>",
        ]
        for entry in report.entries {
            let withheld = entry.withheld.map { "<li><code>\(e($0.id))</code>: \(e(Self.reason($0)))</li>" }
            body.append(
                #"<tr class="\#(e(entry.state.rawValue))"><td><code>\#(e(entry.key))</code></td>"#
                    + "<td>\(e(entry.state.rawValue))</td><td>\(e(entry.tier.rawValue))</td>"
                    + "<td>\(e(entry.source.rawValue))</td><td>\(e(Self.age(entry.age)))</td><td>\(entry.items)</td>"
                    + "<td>\(withheld.isEmpty ? "" : "<ul>\(withheld.joined())</ul>")</td>"
                    + "<td><code>\(e(entry.etag ?? ""))</code></td><td><code>\(e(entry.contentHash ?? ""))</code></td></tr>"
            )
        }
        body += [
            "</tbody></table>", "<h2>Players with unsent changes: \(report.players.count)</h2>",
            "<table><thead><tr><th>player (hashed)</th><th>queued</th><th>waiting to retry</th></tr></thead><tbody>",
        ]
        body += report.players.map {
            "<tr><td><code>#\(e($0.player))</code></td><td>\($0.queued)</td><td>\($0.isWaitingToRetry ? "yes" : "no")</td></tr>"
        }
        body += ["</tbody></table>", "<h2>Statistics</h2>", "<p>\(e(report.statistics.description))</p>"]
        if !findings.isEmpty {
            body.append("<h2>Files left out: \(findings.count)</h2>")
            body.append(
                "<ul>" + findings.map { "<li><code>\(e($0.file))</code>: \(e($0.problem))</li>" }.joined() + "</ul>")
        }
        return HTMLText.document(title: "Cache report", body: body, style: Self.style, script: nil)
    }

    /// `catalog preview`'s look, and the keys table's rows by state.
    static let style =
        SnapshotPreview.style + """

            td { vertical-align: top; } section.edition { margin-top: 16px; } h4 small { font-weight: 400; color: #666; }
            .placeholder code { font-size: 11px; font-weight: 400; padding: 4px; overflow-wrap: anywhere; }
            td ul { margin: 0; padding-left: 16px; } tr.stale td { background: #fff6e0; } tr.bundled td { background: #eef4ff; }
            small { color: #666; font-weight: normal; } td code { word-break: break-all; }
            """

    // MARK: - Parts

    private var facts: [(name: String, value: String)] {
        let report = inspection
        let withdrawals = report.withdrawals
        var facts = [
            ("Taken", Self.date(report.takenAt)),
            (
                "Territory",
                report.territory.map { "\($0): games restricted there (or in its country) are withheld" }
                    ?? "unknown: \(report.unknownTerritoryPolicy.rawValue)"
            ),
            (
                "Withdrawals",
                withdrawals.sequence == 0 && withdrawals.pushes.isEmpty
                    ? "no list" + (withdrawals.isLost ? " (the saved list was lost)" : "")
                    : "list \(withdrawals.sequence)"
                        + (withdrawals.pushes.isEmpty
                            ? "" : ", pushes \(withdrawals.pushes.map(String.init).joined(separator: ", "))")
                        + ", \(withdrawals.games) games" + (withdrawals.isLost ? " (the saved list was lost)" : "")
            ),
        ]
        if let snapshot = report.snapshot {
            facts.append(
                (
                    "Snapshot",
                    "\(snapshot.source == .overTheAir ? "over-the-air generation" : "the app's bundle"), generated "
                        + "\(Self.date(snapshot.generatedAt)), content \(snapshot.contentHash), editions "
                        + "\(snapshot.editions.joined(separator: ", "))"
                        + (snapshot.corruptFiles > 0 ? ", \(snapshot.corruptFiles) files failed their checks" : "")
                ))
        } else {
            facts.append(("Snapshot", "none"))
        }
        if let overTheAir = report.overTheAir {
            var text = "serving \(overTheAir.serving ?? "the bundle")"
            if let installed = overTheAir.installed {
                text +=
                    "; installed \(installed.name) (version \(installed.version), signed by \(installed.signingKey)"
                    + (installed.keyListVersion.map { ", key list \($0)" } ?? "")
                    + ", published \(Self.date(installed.publishedAt)), expires \(Self.date(installed.expiresAt)))"
            }
            if !overTheAir.retired.isEmpty {
                text += "; kept for readers: " + overTheAir.retired.map(\.name).joined(separator: ", ")
            }
            facts.append(("Over the air", text))
        }
        return facts
    }

    private var stateCounts: String {
        let states = inspection.entries.map(\.state)
        return [CacheState.fresh, .stale, .bundled].map { state in "\(state.rawValue) \(states.count { $0 == state })" }
            .joined(separator: ", ")
    }

    private static func date(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// `42s`, `5m`, `3h 12m`, `2d 4h`.
    static func age(_ seconds: TimeInterval) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "?" }
        let whole = Int(min(seconds, 1e12))
        switch whole {
        case ..<60: return "\(whole)s"
        case ..<3600: return "\(whole / 60)m"
        case ..<86_400: return "\(whole / 3600)h \(whole % 3600 / 60)m"
        default: return "\(whole / 86_400)d \(whole % 86_400 / 3600)h"
        }
    }
}
