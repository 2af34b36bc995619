import ArgumentParser
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Logging

struct SnapshotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Write the snapshot directory (gzip files + manifest.json), atomically.",
        discussion: """
            Reads a normalized catalogue (--normalized) or normalizes a source (--source) first.
            The directory is built beside the target, validated, then swapped in; on any failure
            the previous directory stays byte-for-byte as it was. With bundleImages in the
            configuration, the first screen's images are bundled too: from --images, from a
            recorded source's images/, or fetched (--fetch-images, or an http source).
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var source: SourceOptions
    @OptionGroup var imageOptions: ImageOptions

    @Option(name: .long, help: "A normalized catalogue written by `catalog normalize` (instead of --source).")
    var normalized: String?

    @Option(name: .long, help: "The snapshot directory to write.")
    var out = "out"

    @Option(
        name: .long,
        help: "The provider's withdrawal list (JSON): games withdrawn everywhere are left out, others restricted.")
    var withdrawals: String?

    func validate() throws {
        if normalized != nil, source.source != nil {
            throw ValidationError("pass --normalized or --source, not both: a normalized catalogue is not read again")
        }
    }

    func run() async throws {
        let logger = global.makeLogger()
        try await reportingErrors(logger) {
            // Before any work: a mistyped --out must fail at once, not after the whole build.
            try OutputDirectory.checkReplaceable(URL(fileURLWithPath: out), holding: .snapshot)
            let configuration = try source.configuration()
            let withdrawalList = try withdrawals.map { try WithdrawalListFile.read(from: URL(fileURLWithPath: $0)) }
            let kind = SourceKind(rawValue: source.kind) ?? SourceKind.detect(source.sourcePath)
            let progress = global.progressLine(label: "snapshot", unit: "files rendered and checked")
            defer { progress.finish() }
            // The catalogue streams into the staged snapshot a few categories at a time; only the
            // first screen (for the images) and the manifest entries stay in memory.
            var stream = try SnapshotWriter(limits: configuration.snapshotLimits, logger: logger, progress: progress)
                .stream(to: URL(fileURLWithPath: out))
            stream.withdrawals = withdrawalList.map(WithdrawalLookup.init)
            let manifest: Manifest
            do {
                if let normalized {
                    try NormalizedCatalogFile.read(from: URL(fileURLWithPath: normalized), into: &stream)
                } else {
                    // One progress line: the files rendered show how far the normalizing is.
                    try await source.normalize(into: &stream, logger: logger, progress: .disabled)
                }
                let images = try await imageOptions.bundle(
                    stream.firstScreen!, configuration: configuration,
                    recordedSource: normalized == nil && kind == .recorded ? source.sourcePath : nil,
                    isHTTPSource: normalized == nil && kind == .http, global: global, logger: logger)
                manifest = try stream.publish(images: images)
            } catch {
                stream.discard()
                throw error
            }
            if let withdrawalList {
                logger.info(
                    "withdrawal list \(withdrawalList.sequence): \(stream.withdrawn.leftOut) games left out, \(stream.withdrawn.restricted) restricted in their territories"
                )
            }
            let bytes = manifest.files.reduce(0) { $0 + $1.compressedBytes }
            let imageFiles = manifest.imageFiles
            let imageText =
                imageFiles.isEmpty
                ? "" : " and \(imageFiles.count) images (\(imageFiles.reduce(0) { $0 + $1.bytes }) bytes)"
            logger.info(
                "wrote \(manifest.files.count) files (\(bytes) bytes)\(imageText) to \(out); contentHash \(manifest.contentHash)"
            )
        }
    }
}
