import ArgumentParser
@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Logging

struct InspectCacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect-cache",
        abstract: "Show what a cache held and why: a device's cache directory, or a report an app wrote.",
        discussion: """
            `catalog inspect-cache CACHE_DIR --bundle OUT` reads a cache directory copied from a device (Xcode's \
            "Download Container", a simulator's data folder) offline and read-only, and prints what the app would \
            answer there now: the territory, the withdrawal list, the snapshot, one line per cached key (state, tier, \
            source, age) with each withheld game and its reason, the players' unsent changes (ids hashed), and every \
            file it left out and why ("unreadable: ...", "not ours"). Nothing in the directory is written, renamed or \
            removed; a directory holding nothing a cache writes is refused. `--report FILE` instead reads the JSON an \
            app wrote from CatalogCache.inspection(). --json prints the report as sorted JSON (what --report reads); \
            --html DIR writes it as a static page (DIR/index.html), replacing DIR only when it is missing, empty or \
            such a page.
            Exit status: 0 when the report was shown; 64 for bad arguments; 65 when the report or directory is not \
            one; 66 when it is missing; 73 when DIR holds files this tool did not write.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The cache directory copied from a device (the cacheDirectory the app gave the cache).")
    var directory: String?

    @Option(
        name: .long, help: "The snapshot the app serves: its bundled snapshot or installed generation (default: none).")
    var bundle: String?

    @Option(name: .long, help: "The app's Configuration.cacheVersion: entries of another are unreadable.")
    var cacheVersion = 1

    @Option(
        name: .long,
        help: "What the app withholds while no territory is known: hideRestrictedAnywhere (the default) or showAll.")
    var unknownTerritoryPolicy = UnknownTerritoryPolicy.hideRestrictedAnywhere.rawValue

    @Option(
        name: .long, help: "A report file instead of a directory (JSON of CatalogCache.inspection(), ISO 8601 dates).")
    var report: String?

    @Flag(name: .long, help: "Print the report as JSON instead of text.")
    var json = false

    @Option(name: .long, help: "Also write the report as a static page: DIR/index.html.")
    var html: String?

    func validate() throws {
        guard (directory == nil) != (report == nil) else {
            throw ValidationError("give a cache directory or --report FILE, not both and not neither")
        }
        guard report == nil || bundle == nil else { throw ValidationError("--bundle reads a directory, not a report") }
        guard UnknownTerritoryPolicy(rawValue: unknownTerritoryPolicy) != nil else {
            throw ValidationError(
                "--unknown-territory-policy must be one of \(UnknownTerritoryPolicy.allCases.map(\.rawValue)), got '\(unknownTerritoryPolicy)'"
            )
        }
    }

    func run() throws {
        let logger = global.makeLogger()
        try reportingErrors(logger) {
            let target = html.map { URL(fileURLWithPath: $0) }
            if let target { try OutputDirectory.checkReplaceable(target, holding: .report) }
            let report = try self.report.map { try CacheReport.read(URL(fileURLWithPath: $0)) } ?? readDirectory()
            if json {
                FileHandle.standardOutput.write(report.json())
                print("")
                for finding in report.findings { logger.warning("left out: \(finding)") }
            } else {
                print(report.text)
            }
            if let target {
                try OutputDirectory.publish(
                    [
                        ("index.html", Data(report.html.utf8)),
                        (
                            OutputDirectory.reportMarkerName,
                            Data(
                                (OutputDirectory.reportMarkerFirstLine + "\nThe next run replaces this directory.\n")
                                    .utf8)
                        ),
                    ], as: target, holding: .report)
                logger.info("wrote the report's page: open \(target.path)/index.html")
            }
        }
    }

    /// The report of the cache directory, read offline.
    private func readDirectory() throws(PipelineError) -> CacheReport {
        let directory = URL(fileURLWithPath: self.directory ?? ".")
        var configuration = CatalogCache.Configuration.default
        configuration.cacheVersion = cacheVersion
        configuration.unknownTerritoryPolicy =
            UnknownTerritoryPolicy(rawValue: unknownTerritoryPolicy) ?? .hideRestrictedAnywhere
        do {
            let (inspection, findings) = try CacheDirectoryReader.inspect(
                directory, bundle: bundle.map { URL(fileURLWithPath: $0) }, configuration: configuration, now: Date())
            return CacheReport(inspection, findings: findings)
        } catch {
            let isMissing = !FileManager.default.fileExists(atPath: directory.path)
            throw PipelineError(isMissing ? .missingInput : .malformedInput, error.description, file: directory.path)
        }
    }
}
