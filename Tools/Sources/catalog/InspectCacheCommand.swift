import ArgumentParser
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Logging

struct InspectCacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect-cache",
        abstract: "Show a cache report an app wrote: what its cache held and why each withheld game was withheld.",
        discussion: """
            `catalog inspect-cache --report cache-report.json` reads the JSON an app wrote from \
            CatalogCache.inspection() (attached to a bug, or exported from a debug screen) and prints it: the \
            territory, the withdrawal list, the snapshot and over-the-air generations, one line per cached key \
            (state, tier, source, age) with each withheld game and its reason, the players' unsent changes (ids \
            hashed) and the statistics. --json prints it back as sorted JSON; --html DIR writes it as a static page \
            (DIR/index.html), replacing DIR only when it is missing, empty or such a page. The report is only read.
            Exit status: 0 when the report was shown; 64 for bad arguments; 65 when the file is not a report; 66 when it \
            is missing; 73 when DIR holds files this tool did not write.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "The report file (JSON of CatalogCache.inspection(), ISO 8601 dates).")
    var report: String

    @Flag(name: .long, help: "Print the report as JSON instead of text.")
    var json = false

    @Option(name: .long, help: "Also write the report as a static page: DIR/index.html.")
    var html: String?

    func run() throws {
        let logger = global.makeLogger()
        try reportingErrors(logger) {
            let target = html.map { URL(fileURLWithPath: $0) }
            if let target { try OutputDirectory.checkReplaceable(target, holding: .report) }
            let report = try CacheReport.read(URL(fileURLWithPath: self.report))
            if json {
                FileHandle.standardOutput.write(report.json())
                print("")
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
}
