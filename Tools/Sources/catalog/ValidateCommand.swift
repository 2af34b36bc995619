import ArgumentParser
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Logging

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a snapshot directory against its manifest and the schema; report every problem.",
        discussion:
            "Exit status 1 when any problem is found, each printed with its file and record; 2 when the snapshot is "
            + "valid but was generated longer ago than --max-age; 66 when there is no directory."
    )

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "A pipeline configuration JSON file whose snapshotLimits apply.")
    var config: String?

    @Option(
        name: .long,
        help: "Fail (exit 2) a snapshot generated longer ago than this: <n>d, <n>h, <n>m or <n>s (e.g. 7d).")
    var maxAge: String?

    @Option(
        name: .long,
        help: "The provider's withdrawal list (JSON): a game it withdraws, still shown as it is, is a problem.")
    var withdrawals: String?

    @Argument(help: "The snapshot directory.")
    var directory = "out"

    /// The exit status of a valid snapshot older than `--max-age`.
    static let staleStatus: Int32 = 2

    func validate() throws {
        if let maxAge, DurationText.seconds(maxAge) == nil {
            throw ValidationError("--max-age must be a whole number and d, h, m or s (7d, 12h), got '\(maxAge)'")
        }
    }

    func run() throws {
        let logger = global.makeLogger()
        let (limits, withdrawalList) = try reportingErrors(logger) {
            // A missing directory is missing input (66), as for `inspect`, not a failed validation.
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                throw PipelineError(
                    .missingInput, "no snapshot directory here (make snapshot writes one)", file: directory)
            }
            let limits =
                try config.map { try PipelineConfiguration.load(from: URL(fileURLWithPath: $0)).snapshotLimits }
                ?? .default
            return (limits, try withdrawals.map { try WithdrawalListFile.read(from: URL(fileURLWithPath: $0)) })
        }
        let progress = global.progressLine(label: "validate", unit: "files")
        let report = SnapshotValidator(
            limits: limits, progress: progress, withdrawals: withdrawalList.map(WithdrawalLookup.init)
        ).validate(
            directory: URL(fileURLWithPath: directory))
        progress.finish()
        for problem in report.problems {
            logger.error("\(directory)/\(problem)")
        }
        guard report.isValid else {
            logger.error("\(directory): \(report.problems.count) problems in \(report.filesChecked) files checked")
            throw ExitCode(1)
        }
        logger.info("\(directory): valid — \(report.filesChecked) files, \(report.gamesChecked) games checked")
        if let maxAge, let limit = DurationText.seconds(maxAge), let generatedAt = report.manifest?.generatedAt {
            let age = Date().timeIntervalSince(generatedAt)
            guard age <= limit else {
                logger.error(
                    "\(directory): generated \(DurationText.age(age)) ago (\(generatedAt.formatted(.iso8601))), over --max-age \(maxAge): rebuild it with make snapshot (SOURCE= the provider's URL for live data) and ship the new out/"
                )
                throw ExitCode(Self.staleStatus)
            }
        }
    }
}
