import ArgumentParser
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Logging

struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Write static HTML pages showing what ships: each edition's first screen offline.",
        discussion: """
            `catalog preview out --output .catalog/preview` writes index.html and a page per edition: the \
            categories in lobby order, each with its first bundled page's tiles (thumbnails, names, badges), the \
            games the cache withholds, the sizes and how old the snapshot is. Thumbnails are copied into images/ \
            after their size, SHA-256 and type are checked; one missing or changed shows as a placeholder. Nothing \
            loads from the network. The output is replaced only when it is missing, empty or a preview.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The snapshot directory.")
    var directory = "out"

    @Option(name: .shortAndLong, help: "The directory to write the pages into (replaced atomically).")
    var output: String

    @Option(
        help:
            "The player's territory (GB, CA-ON); default: unknown, as on a first launch (every restricted game withheld)."
    )
    var territory: String?

    func validate() throws {
        if let territory, CatalogRules.territoryCode(territory) == nil {
            throw ValidationError("--territory must be a country code with an optional subdivision (GB, CA-ON)")
        }
    }

    func run() throws {
        let logger = global.makeLogger()
        try reportingErrors(logger) {
            let target = URL(fileURLWithPath: output)
            try OutputDirectory.checkReplaceable(target, holding: .preview)
            let preview = try SnapshotPreview(snapshot: URL(fileURLWithPath: directory), territory: territory)
            let files = try preview.write(to: target)
            for edition in preview.editions {
                let tiles = edition.tiles
                let thumbnails = SnapshotPreview.ThumbnailCounts(tiles)
                let message: Logger.Message =
                    "\(edition.edition): \(tiles.count) tiles in \(edition.categories.count) categories, \(tiles.count { $0.isWithheld }) withheld; thumbnails \(thumbnails.text)"
                if thumbnails.missing + thumbnails.tampered > 0 {
                    logger.warning(message)
                } else {
                    logger.info(message)
                }
            }
            logger.info(
                "wrote \(files) files to \(output): open \(output)/\(SnapshotPreview.indexName) (generated \(DurationText.age(preview.age)) ago)"
            )
        }
    }
}
