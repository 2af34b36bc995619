import ArgumentParser
@_spi(CatalogTools) import CasinoCache
import Foundation
import Logging

#if canImport(CatalogSigning)
import CatalogSigning
#endif

struct UpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Check a published set as an app does, and install it into a support directory.",
        discussion: """
            Runs the app's SnapshotUpdater: fetches the signed manifest (conditionally), verifies it against the
            pinned public key, downloads only the files neither the installed generation nor --bundle holds,
            checks them and installs the new generation atomically. With --cache, applies the withdrawal list signed
            with the set to the app cache in that directory at once, as CatalogCache.checkForSnapshotUpdate(with:) does.
            Prints the outcome on standard output.
            Exit status: 0 installed or up to date, 65 refused (bad signature, older version, expired, bad file),
            69 unreachable, 74 I/O error, 75 timed out, 76 an HTTP error status, 78 a bad key or setting.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "The published set's manifest.json URL.")
    var manifestURL: String

    @Option(name: .long, help: "The pinned public key: base64 of its 32 bytes (catalog keygen prints it).")
    var publicKey: String

    @Option(name: .long, help: "The support directory generations are installed into.")
    var directory: String

    @Option(name: .long, help: "The snapshot the app bundles, whose files are reused (default: none).")
    var bundle: String?

    @Option(name: .long, help: "An app cache directory to apply the set's withdrawal list to (default: none).")
    var cache: String?

    @Option(name: .long, help: "The longest one request may take, in seconds (default: 60).")
    var requestTimeout: Double = 60

    @Option(name: .long, help: "The longest the whole update may take, in seconds (default: 300).")
    var updateTimeout: Double = 300

    func validate() throws {
        for (name, value) in [("--request-timeout", requestTimeout), ("--update-timeout", updateTimeout)]
        where !(value > 0 && value <= 86_400) {
            throw ValidationError("\(name) must be a number of seconds above 0 and at most 86400, got \(value)")
        }
    }

    func run() async throws {
        let logger = global.makeLogger()
        guard let url = URL(string: manifestURL), url.scheme == "http" || url.scheme == "https" else {
            throw ValidationError("--manifest-url must be an http(s) URL, got '\(manifestURL)'")
        }
        do {
            let verifier = try Ed25519SignatureVerifier(base64PublicKey: publicKey)
            var configuration = SnapshotUpdater.Configuration(
                manifestURL: url, verifier: verifier, directory: URL(fileURLWithPath: directory),
                bundleDirectory: bundle.map { URL(fileURLWithPath: $0) })
            // A terminal is not a background window: the app's defaults fit one.
            configuration.requestTimeout = requestTimeout
            configuration.updateTimeout = updateTimeout
            let updater = SnapshotUpdater(configuration: configuration, logger: logger)
            // The cache never fetches here: its upstream is only needed to make one.
            let catalogCache = cache.map {
                CatalogCache(
                    upstream: ProviderHTTPUpstream(configuration: .init(baseURL: url)),
                    cacheDirectory: URL(fileURLWithPath: $0), bundleDirectory: updater.activeSnapshotDirectory,
                    logger: logger)
            }
            let outcome =
                if let catalogCache {
                    try await catalogCache.checkForSnapshotUpdate(with: updater)
                } else {
                    try await updater.checkForUpdate()
                }
            switch outcome {
            case .upToDate(let version):
                say("up to date: version \(version.map(String.init) ?? "none (the bundle)")")
            case .installed(let installation):
                say(
                    "installed version \(installation.version): \(installation.filesDownloaded) files downloaded "
                        + "(\(installation.bytesDownloaded) bytes), \(installation.filesReused) reused")
            case .refused(let error):
                logger.error("refused: \(error)")
                throw ExitCode(65)
            }
            if let catalogCache {
                await catalogCache.flush()
                say("withdrawal list: sequence \(catalogCache.withdrawalSequence), saved")
            }
        } catch let error as SnapshotUpdateError {
            logger.error("\(error)")
            throw ExitCode(Self.exitStatus(for: error.code))
        }
    }

    static func exitStatus(for code: SnapshotUpdateError.Code) -> Int32 {
        switch code {
        case .offline, .transportFailed: 69
        case .io: 74
        case .timedOut: 75
        case .httpStatus: 76
        case .invalidPublicKey, .invalidConfiguration: 78
        default: 65
        }
    }
}
