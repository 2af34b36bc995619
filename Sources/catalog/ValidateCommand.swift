import ArgumentParser
import CatalogPipeline
import Foundation
import Logging

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a snapshot directory against its manifest and the schema; report every problem.",
        discussion: "Exit status 1 when any problem is found; each is printed with its file and record.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The snapshot directory.")
    var directory = "out"

    func run() throws {
        let logger = global.makeLogger()
        let report = SnapshotValidator().validate(directory: URL(fileURLWithPath: directory))
        for problem in report.problems {
            logger.error("\(directory)/\(problem)")
        }
        guard report.isValid else {
            logger.error("\(directory): \(report.problems.count) problems in \(report.filesChecked) files checked")
            throw ExitCode(1)
        }
        logger.info("\(directory): valid — \(report.filesChecked) files, \(report.gamesChecked) games checked")
    }
}
