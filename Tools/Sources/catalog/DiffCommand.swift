import ArgumentParser
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Logging

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Show which content differs between two snapshot directories.",
        discussion: """
            Compares the manifests by content key and hash, and bundled images by URL and SHA-256, so a
            rebuild of the same data with another generatedAt shows no difference. --format markdown reads every file
            of both and writes a table for a pull request comment: per edition the categories and games added,
            removed or renamed, the pages and bytes changed, and the images. Exit status 0 when the content is the
            same, 1 when it differs.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, markdown
    }

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The old snapshot directory.")
    var old: String

    @Argument(help: "The new snapshot directory.")
    var new: String

    @Option(name: .long, help: "text: a line per changed file; markdown: a table for a pull request.")
    var format: Format = .text

    func run() throws {
        let logger = global.makeLogger()
        let diff: ManifestDiff
        switch format {
        case .text:
            diff = try reportingErrors(logger) {
                ManifestDiff(
                    from: try SnapshotValidator.readManifest(in: URL(fileURLWithPath: old)),
                    to: try SnapshotValidator.readManifest(in: URL(fileURLWithPath: new)))
            }
            for line in diff.lines { print(line) }
        case .markdown:
            let content = try reportingErrors(logger) {
                try CatalogDiff(old: URL(fileURLWithPath: old), new: URL(fileURLWithPath: new))
            }
            diff = content.files
            print(content.markdown(old: old, new: new), terminator: "")
        }
        guard diff.isEmpty else {
            logger.info(
                "\(diff.added.count) added, \(diff.removed.count) removed, \(diff.changed.count) changed; images: \(diff.addedImages.count) added, \(diff.removedImages.count) removed, \(diff.changedImages.count) changed"
            )
            throw ExitCode(1)
        }
        logger.info("same content")
    }
}
