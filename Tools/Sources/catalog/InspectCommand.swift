import ArgumentParser
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Summarize a snapshot directory's manifest: editions, categories, games, sizes.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The snapshot directory.")
    var directory = "out"

    func run() throws {
        let logger = global.makeLogger()
        let manifest = try reportingErrors(logger) {
            try SnapshotValidator.readManifest(in: URL(fileURLWithPath: directory))
        }
        print(ManifestSummary(manifest: manifest).text)
    }
}

/// The human summary `catalog inspect` prints.
struct ManifestSummary {
    let manifest: Manifest

    var text: String {
        var lines: [String] = []
        let compressed = manifest.files.reduce(0) { $0 + $1.compressedBytes }
        let uncompressed = manifest.files.reduce(0) { $0 + $1.uncompressedBytes }
        lines.append("schema v\(manifest.schemaVersion) · \(manifest.generator.name) \(manifest.generator.version)")
        lines.append("generated \(ISO8601DateFormatter().string(from: manifest.generatedAt)) from \(manifest.source)")
        lines.append("content \(manifest.contentHash)")
        lines.append(
            "\(manifest.files.count) files, \(format(compressed)) gzip (\(format(uncompressed)) JSON), page size \(manifest.pageSize)"
        )
        if let images = manifest.images {
            let files = manifest.imageFiles
            let types = Dictionary(grouping: files, by: \.mediaType.rawValue).map { "\($0.key) \($0.value.count)" }
                .sorted()
            lines.append(
                "\(images.count) image URLs in \(files.count) files, \(format(files.reduce(0) { $0 + $1.bytes })) (\(types.joined(separator: ", ")))"
            )
        }
        lines.append("")
        for edition in manifest.editions {
            let files = manifest.files.filter { $0.edition == edition }
            let pages = files.filter { $0.kind == .gamesPage }
            var perCategory: [String: (pages: Int, games: Int, total: Int)] = [:]
            var order: [String] = []
            for page in pages {
                guard case .gamesPage(_, let categoryId, _) = page.key else { continue }
                if perCategory[categoryId] == nil { order.append(categoryId) }
                let current = perCategory[categoryId] ?? (0, 0, page.total)
                perCategory[categoryId] = (current.pages + 1, current.games + page.count, page.total)
            }
            let games = pages.reduce(0) { $0 + $1.count }
            let bytes = files.reduce(0) { $0 + $1.compressedBytes }
            let marker = edition == manifest.defaultEdition ? " (default)" : ""
            lines.append(
                "\(edition)\(marker): \(perCategory.count) categories, \(pages.count) pages, \(games) games, \(format(bytes))"
            )
            for categoryId in order.sorted() {
                let stats = perCategory[categoryId]!
                lines.append(
                    "  \(categoryId.padding(toLength: 24, withPad: " ", startingAt: 0)) \(stats.pages) pages  \(stats.games) of \(stats.total) games"
                )
            }
        }
        return lines.joined(separator: "\n")
    }

    private func format(_ bytes: Int) -> String {
        bytes < 10_240 ? "\(bytes) B" : bytes < 10_485_760 ? "\(bytes / 1024) KiB" : "\(bytes / 1_048_576) MiB"
    }
}
