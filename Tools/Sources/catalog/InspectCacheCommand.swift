import ArgumentParser
@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Logging

struct InspectCacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect-cache",
        abstract: "Show what a cache held and why: a device's cache directory, a widget's container, or a report.",
        discussion: """
            `catalog inspect-cache CACHE_DIR --bundle OUT` reads a cache directory copied from a device (Xcode's \
            "Download Container", a simulator's data folder) offline and read-only, and prints what the app would \
            answer there now: the territory, the withdrawal list, the snapshot, one line per cached key (state, tier, \
            source, age) with each withheld game and its reason, the players' unsent changes (ids hashed), and every \
            file it left out and why ("unreadable: ...", "not ours"). Nothing in the directory is written, renamed or \
            removed; a directory holding nothing a cache writes is refused. With --support DIR --public-key KEY it \
            also reads the updater's support directory, read-only: the generation that serves (then the snapshot \
            read instead of --bundle), the installed one (version, signing key, key list, published, expiry) and the \
            retired ones. `--shared DIR [--bundle OUT] [CACHE_DIR]` reads as an app's widget does \
            (SharedCatalogReader): the app's updater directory in the App Group container, else the extension's \
            bundle, with the territory and withdrawals the app saved in CACHE_DIR; it reads every edition's \
            categories and pages, then prints the widget's report. `--report FILE` instead reads the JSON an app \
            wrote from CatalogCache.inspection(). --json prints the report as sorted JSON (what --report reads); \
            --html DIR writes it as a static page (DIR/index.html): the lobby as the device shows it, each withheld \
            game marked with its reason, then the keys; DIR is replaced only when it is missing, empty or such a page.
            Exit status: 0 when the report was shown; 64 for bad arguments; 65 when the report or directory is not \
            one; 66 when it is missing; 73 when DIR holds files this tool did not write.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp(
            "The cache directory copied from a device (the cacheDirectory the app gave the cache); with --shared, "
                + "where the app saved its territory and withdrawals (optional)."))
    var directory: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The snapshot the app serves: its bundled snapshot or installed generation; with --shared, the "
                + "extension's bundle (default: none)."))
    var bundle: String?

    @Option(name: .long, help: "Read as a widget does: the app's updater directory in the App Group container.")
    var shared: String?

    @Option(name: .long, help: "The app updater's support directory (SnapshotUpdater.Configuration.directory).")
    var support: String?

    @Option(
        name: .long, help: "With --support, the pinned public key: base64 of its 32 bytes (catalog keygen prints it).")
    var publicKey: String?

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

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --shared, wait a random 0...N ms before each read, as a widget drawing between reads (tests).",
            visibility: .hidden))
    var pauseMilliseconds = 0

    func validate() throws {
        if report != nil {
            guard directory == nil, shared == nil, support == nil, bundle == nil else {
                throw ValidationError(
                    "--report reads a report file alone: no directory, --shared, --support or --bundle")
            }
        } else if directory == nil, shared == nil {
            throw ValidationError("give a cache directory, --shared DIR or --report FILE")
        }
        guard shared == nil || support == nil else {
            throw ValidationError("--support reads a device's cache directory; --shared reads as a widget does")
        }
        guard (support == nil) == (publicKey == nil) else {
            throw ValidationError(
                "--support and --public-key go together: the installed generation's signature is checked")
        }
        guard (0...10_000).contains(pauseMilliseconds) else {
            throw ValidationError("--pause-milliseconds must be 0...10000, got \(pauseMilliseconds)")
        }
        guard UnknownTerritoryPolicy(rawValue: unknownTerritoryPolicy) != nil else {
            throw ValidationError(
                "--unknown-territory-policy must be one of \(UnknownTerritoryPolicy.allCases.map(\.rawValue)), got '\(unknownTerritoryPolicy)'"
            )
        }
    }

    func run() async throws {
        let logger = global.makeLogger()
        try await reportingErrors(logger) {
            let target = html.map { URL(fileURLWithPath: $0) }
            if let target { try OutputDirectory.checkReplaceable(target, holding: .report) }
            let report: CacheReport
            if let file = self.report {
                report = try CacheReport.read(URL(fileURLWithPath: file))
            } else if let shared {
                report = try await readShared(URL(fileURLWithPath: shared), logger: logger)
            } else {
                report = try readDirectory()
            }
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

    /// The app cache's settings these flags give.
    var cacheConfiguration: CatalogCache.Configuration {
        var configuration = CatalogCache.Configuration.default
        configuration.cacheVersion = cacheVersion
        configuration.unknownTerritoryPolicy =
            UnknownTerritoryPolicy(rawValue: unknownTerritoryPolicy) ?? .hideRestrictedAnywhere
        return configuration
    }

    /// The report of the cache directory, read offline, with the updater's generations when --support is given.
    private func readDirectory() throws(PipelineError) -> CacheReport {
        let directory = URL(fileURLWithPath: self.directory ?? ".")
        var bundle = self.bundle.map { URL(fileURLWithPath: $0) }
        var overTheAir: CacheInspection.OverTheAir?
        if let support {
            (overTheAir, bundle) = try Self.readSupport(
                URL(fileURLWithPath: support), publicKey: publicKey, bundle: bundle)
        }
        do {
            let (inspection, findings) = try CacheDirectoryReader.inspect(
                directory, bundle: bundle, configuration: cacheConfiguration, overTheAir: overTheAir, now: Date())
            return CacheReport(inspection, findings: findings)
        } catch {
            let isMissing = !FileManager.default.fileExists(atPath: directory.path)
            throw PipelineError(isMissing ? .missingInput : .malformedInput, error.description, file: directory.path)
        }
    }
}
