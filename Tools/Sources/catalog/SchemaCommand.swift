import ArgumentParser
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Logging

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Write the snapshot contract as a JSON Schema (draft 2020-12) for other clients.",
        discussion: """
            The schema is recorded from the Swift types and rules the validator and the app use, with the
            size caps of --config's snapshotLimits (the defaults otherwise). Every valid manifest and
            snapshot file validates against it; rules across fields or files stay the validator's.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "A pipeline configuration JSON file whose snapshotLimits the schema states.")
    var config: String?

    @Option(name: .shortAndLong, help: "Where to write the schema (default: standard output).")
    var output: String?

    func run() throws {
        let logger = global.makeLogger()
        try reportingErrors(logger) {
            let limits =
                try config.map { try PipelineConfiguration.load(from: URL(fileURLWithPath: $0)).snapshotLimits }
                ?? .default
            let document = SnapshotContractSchema.document(limits: limits)
            guard let output else {
                FileHandle.standardOutput.write(document)
                return
            }
            do {
                try document.write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                throw PipelineError(.io, "cannot write the schema: \(error.localizedDescription)", file: output)
            }
            logger.info("wrote the snapshot contract schema to \(output)")
        }
    }
}
