import ArgumentParser
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Logging

struct NormalizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "normalize",
        abstract: "Read a source and write the normalized catalogue (JSON Lines, a line per page).",
        discussion: "Records that cannot be used are skipped with a warning naming file and record.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var source: SourceOptions

    @Option(name: .shortAndLong, help: "Where to write the normalized catalogue (JSON Lines).")
    var output: String

    func run() async throws {
        let logger = global.makeLogger()
        try await reportingErrors(logger) {
            var file = try NormalizedCatalogFile.Writer(to: URL(fileURLWithPath: output))
            do {
                try await source.normalize(
                    into: &file, logger: logger, progress: global.progressLine(label: "normalize", unit: "categories"))
            } catch {
                file.discard()
                throw error
            }
            logger.info("normalized \(file.editionCount) editions, \(file.pageCount) pages -> \(output)")
        }
    }
}
