import ArgumentParser
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Logging

struct PublishCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Sign a validated snapshot directory into a CDN-ready set of content-addressed files.",
        discussion: """
            Writes <to>/files/<sha256> for every file that is new, <to>/manifests/<version>.json, and last,
            atomically, <to>/manifest.json: the signed manifest apps fetch. Files already in the set are kept
            (apps on the previous version still find them); nothing is deleted. The version is the set's last
            + 1 unless --set-version says otherwise; it never goes down. The key comes from --key-file or from
            $CATALOG_SIGNING_KEY (its base64 text), never from the repository.
            Serve manifest.json with revalidation (no-cache, ETag) and files/ as immutable.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "The snapshot directory to publish.")
    var from = "out"

    @Option(name: .long, help: "The published set's directory (created when missing).")
    var to: String

    @Option(name: .long, help: "The private key file (catalog keygen); default: $CATALOG_SIGNING_KEY.")
    var keyFile: String?

    @Option(name: .customLong("set-version"), help: "The version to publish (default: the set's last version + 1).")
    var version: Int?

    @Option(name: .long, help: "How long apps accept the set: <n>d, <n>h, <n>m or <n>s (default: 30d).")
    var expiresIn = "30d"

    @Option(name: .long, help: "A pipeline configuration JSON file whose snapshotLimits apply.")
    var config: String?

    @Option(
        name: .long,
        help:
            "The provider's withdrawal list JSON, signed with the set: apps apply it at once (the snapshot must not show a game it withdraws)."
    )
    var withdrawals: String?

    @Option(
        name: .long,
        help: "The signed key list naming the signing key (catalog sign-keys), for apps that pin root keys.")
    var keyList: String?

    func validate() throws {
        guard DurationText.seconds(expiresIn) != nil else {
            throw ValidationError("--expires-in must be a whole number and d, h, m or s (30d, 12h), got '\(expiresIn)'")
        }
        if let version, version < 1 { throw ValidationError("--set-version must be at least 1, got \(version)") }
    }

    func run() throws {
        let logger = global.makeLogger()
        let report = try reportingErrors(logger) {
            let key = try SigningKey.load(
                file: keyFile.map { URL(fileURLWithPath: $0) }, environment: ProcessInfo.processInfo.environment)
            let limits =
                try config.map { try PipelineConfiguration.load(from: URL(fileURLWithPath: $0)).snapshotLimits }
                ?? .default
            let withdrawalList = try withdrawals.map { try WithdrawalListFile.read(from: URL(fileURLWithPath: $0)) }
            var publisher = SnapshotPublisher(key: key, limits: limits, logger: logger)
            publisher.keyList = try keyList.map { try KeyListFile.read(from: URL(fileURLWithPath: $0)) }
            return try publisher.publish(
                from: URL(fileURLWithPath: from), to: URL(fileURLWithPath: to), version: version,
                expiresIn: DurationText.seconds(expiresIn) ?? 30 * 86_400, withdrawals: withdrawalList)
        }
        print(report.version)
        logger.info(
            "\(to): version \(report.version) (was \(report.previousVersion.map(String.init) ?? "none")), \(report.filesWritten) files written (\(report.bytesWritten) bytes), \(report.filesReused) reused, expires \(report.expiresAt)"
        )
    }
}
