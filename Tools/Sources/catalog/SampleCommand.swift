import ArgumentParser
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Logging

struct SampleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sample",
        abstract: "Write a synthetic provider recording with the provider's quirks.",
        discussion: """
            For tests and benchmarks: `catalog sample --games 10000 --output .catalog/sample-10k`. \
            The same options write the same bytes. (The repository's data/ is a fixture edited by hand, \
            not written by this command.)
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: "Distinct games (default: 1000).")
    var games: Int?

    @Option(help: "Non-empty categories; two empty ones are added (default: 20).")
    var categories: Int?

    @Option(help: "Comma-separated editions (default: en-iPhone,fr-iPhone).")
    var editions: String?

    @Option(help: "Games per recorded page (default: 10).")
    var pageLimit: Int?

    @Option(help: "Generator seed (default: 2026).")
    var seed: UInt64?

    @Option(help: "Size of the recorded thumbnails in pixels, as <width>x<height> (default: 96x72).")
    var thumbnailSize: String?

    @Option(
        name: .shortAndLong,
        help: "The directory to write the recording into (replaced atomically).")
    var output: String

    func validate() throws {
        if let games, !(1...10_000_000).contains(games) { throw ValidationError("--games must be 1...10000000") }
        if let categories, !(1...10_000).contains(categories) {
            throw ValidationError("--categories must be 1...10000")
        }
        if let pageLimit, !(1...1000).contains(pageLimit) { throw ValidationError("--page-limit must be 1...1000") }
        if let thumbnailSize, Self.pixels(thumbnailSize) == nil {
            throw ValidationError("--thumbnail-size must be <width>x<height>, each 1...4096; got '\(thumbnailSize)'")
        }
        for id in (editions ?? "").split(separator: ",") {
            do { _ = try Edition(id: String(id)) } catch { throw ValidationError(error.description) }
        }
    }

    func run() throws {
        let logger = global.makeLogger()
        let directory = URL(fileURLWithPath: output)
        try reportingErrors(logger) {
            try OutputDirectory.checkReplaceable(directory, holding: .recording)
            var sample = SampleRecording(games: games ?? 1000, categories: categories ?? 20)
            if let editions { sample.editions = try editions.split(separator: ",").map { try Edition(id: String($0)) } }
            if let pageLimit { sample.pageLimit = pageLimit }
            if let seed { sample.seed = seed }
            if let thumbnailSize, let pixels = Self.pixels(thumbnailSize) { sample.thumbnailSize = pixels }
            let progress = global.progressLine(label: "sample", unit: "files")
            defer { progress.finish() }
            let files = try sample.write(to: directory, progress: progress)
            logger.info("wrote \(files) files for \(sample.games) games to \(output)")
        }
    }

    /// `<width>x<height>`, each 1...4096, as the sample's thumbnail size.
    private static func pixels(_ text: String) -> (width: Int, height: Int)? {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false).compactMap { Int($0) }
        guard parts.count == 2, parts.allSatisfy({ (1...4096).contains($0) }) else { return nil }
        return (parts[0], parts[1])
    }
}
