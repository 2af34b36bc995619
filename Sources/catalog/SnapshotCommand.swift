import ArgumentParser
import CasinoCatalog
import CatalogPipeline
import Foundation
import Logging

struct SnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Write the snapshot directory (gzip files + manifest.json), atomically.",
        discussion: """
            Reads a normalized catalogue (--normalized) or normalizes a source (--source) first.
            The directory is built beside the target, validated, then swapped in; on any failure
            the previous directory stays byte-for-byte as it was.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var source: SourceOptions

    @Option(name: .long, help: "A normalized catalogue written by `catalog normalize` (instead of --source).")
    var normalized: String?

    @Option(name: .long, help: "The snapshot directory to write.")
    var out = "out"

    func run() throws {
        let logger = global.makeLogger()
        try reportingErrors(logger) {
            let catalog =
                if let normalized {
                    try CatalogFiles.readNormalized(URL(fileURLWithPath: normalized))
                } else {
                    try source.normalize(logger: logger)
                }
            let configuration = try source.configuration()
            let manifest = try SnapshotWriter(limits: configuration.limits, logger: logger)
                .write(catalog, to: URL(fileURLWithPath: out))
            let bytes = manifest.files.reduce(0) { $0 + $1.compressedBytes }
            logger.info("wrote \(manifest.files.count) files (\(bytes) bytes) to \(out); contentHash \(manifest.contentHash)")
        }
    }
}

/// Reads and writes the normalized catalogue file.
enum CatalogFiles {
    static func writeNormalized(_ catalog: Catalog, to url: URL) throws {
        let data: Data
        do {
            data = try CatalogCoding.encoder().encode(catalog)
        } catch {
            throw PipelineError(.invalidContent, "cannot encode the catalogue: \(error)", file: url.relativePath)
        }
        let temporary = url.appendingPathExtension("tmp")
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: temporary)
            _ = try FileManager.default.replaceItemAt(url, withItemAt: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw PipelineError(.io, "cannot write: \(error.localizedDescription)", file: url.relativePath)
        }
    }

    static func readNormalized(_ url: URL) throws -> Catalog {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw PipelineError(.missingInput, "normalized catalogue not found; run catalog normalize first", file: url.relativePath)
        }
        do {
            return try CatalogCoding.decoder().decode(Catalog.self, from: data)
        } catch {
            throw PipelineError(.malformedInput, "not a normalized catalogue: \(error)", file: url.relativePath)
        }
    }
}
