import ArgumentParser
import CasinoCatalog
import CatalogPipeline
import Foundation
import Logging

struct SampleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sample",
        abstract: "Write a deterministic synthetic provider recording with the provider's quirks.",
        discussion: "For tests and benchmarks: `catalog sample --games 10000 --output .catalog/sample-10k`.")

    @OptionGroup var global: GlobalOptions

    @Option(help: "Distinct games.")
    var games = 1000

    @Option(help: "Non-empty categories (two empty ones are added).")
    var categories = 20

    @Option(help: "Comma-separated editions.")
    var editions = "en-iPhone,fr-iPhone"

    @Option(help: "Games per recorded page.")
    var pageLimit = 10

    @Option(help: "Generator seed.")
    var seed: UInt64 = 2026

    @Option(name: .shortAndLong, help: "The recording directory to write (replaced atomically).")
    var output: String

    func validate() throws {
        guard (1...10_000_000).contains(games) else { throw ValidationError("--games must be 1...10000000") }
        guard (1...10_000).contains(categories) else { throw ValidationError("--categories must be 1...10000") }
        guard (1...1000).contains(pageLimit) else { throw ValidationError("--page-limit must be 1...1000") }
        for id in editions.split(separator: ",") {
            do { _ = try Edition(id: String(id)) } catch { throw ValidationError(error.description) }
        }
    }

    func run() throws {
        let logger = global.makeLogger()
        try reportingErrors(logger) {
            try OutputDirectory.checkReplaceable(URL(fileURLWithPath: output), holding: .recording)
            var sample = SampleRecording(games: games, categories: categories)
            sample.editions = try editions.split(separator: ",").map { try Edition(id: String($0)) }
            sample.pageLimit = pageLimit
            sample.seed = seed
            let progress = global.progressLine(label: "sample", unit: "files")
            defer { progress.finish() }
            let files = try sample.write(to: URL(fileURLWithPath: output), progress: progress)
            logger.info("wrote \(files) files for \(games) games to \(output)")
        }
    }
}
