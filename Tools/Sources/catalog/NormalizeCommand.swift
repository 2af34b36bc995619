import ArgumentParser
import CasinoCatalog
import CatalogPipeline
import Foundation
import Logging

struct NormalizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "normalize",
        abstract: "Read a source and write the normalized catalogue as one JSON file.",
        discussion: "Records that cannot be used are skipped with a warning naming file and record.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var source: SourceOptions

    @Option(name: .shortAndLong, help: "Where to write the normalized catalogue JSON.")
    var output: String

    func run() async throws {
        let logger = global.makeLogger()
        try await reportingErrors(logger) {
            let catalog = try await source.normalize(
                logger: logger, progress: global.progressLine(label: "normalize", unit: "categories"))
            try NormalizedCatalogFile.write(catalog, to: URL(fileURLWithPath: output))
            let pages = catalog.editions.reduce(0) { $0 + $1.pages.count }
            logger.info("normalized \(catalog.editions.count) editions, \(pages) pages -> \(output)")
        }
    }
}
