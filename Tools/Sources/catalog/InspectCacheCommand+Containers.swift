@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Logging

#if canImport(CatalogSigning)
import CatalogSigning
#endif

extension InspectCacheCommand {
    /// The report a widget's ``SharedCatalogReader`` on `shared` gives once it has read every
    /// edition's categories and each category's pages: what `--shared` prints.
    ///
    /// - Throws: ``PipelineError`` when `shared` is missing.
    func readShared(_ shared: URL, logger: Logger) async throws(PipelineError) -> CacheReport {
        guard FileManager.default.fileExists(atPath: shared.path) else {
            throw PipelineError(
                .missingInput,
                "no shared directory: give the app's updater directory (SnapshotUpdater.Configuration.directory) "
                    + "in its App Group container", file: shared.path)
        }
        var configuration = SharedCatalogReader.Configuration(
            sharedDirectory: shared, bundleDirectory: bundle.map { URL(fileURLWithPath: $0) })
        configuration.territoryDirectory = directory.map { URL(fileURLWithPath: $0) }
        configuration.cache = cacheConfiguration
        // Every file read stays in the reader's memory, so the report names each one.
        configuration.cache.memoryCountLimit = 1 << 30
        configuration.cache.memoryCostLimit = 1 << 50
        let reader = SharedCatalogReader(configuration: configuration, logger: logger)
        logger.info("reading as a widget does", metadata: ["shared.source": "\(reader.source)"])
        let pause = pauseMilliseconds
        Self.readAll(reader) {
            if pause > 0 { usleep(UInt32.random(in: 0...UInt32(pause)) * 1000) }
        }
        return CacheReport(await reader.inspection())
    }

    /// Reads each edition's categories and each category's pages in order until one is missing,
    /// calling `pause` before each read.
    static func readAll(_ reader: SharedCatalogReader, pausing pause: () -> Void) {
        for edition in reader.editions {
            pause()
            guard let categories = reader.categories(edition: edition).value else { continue }
            for category in categories.items {
                var offset = 0
                while true {
                    pause()
                    guard let page = reader.gamesPage(edition: edition, categoryId: category.id, offset: offset).value
                    else { break }
                    offset += page.limit
                    if page.limit < 1 || offset >= page.total { break }
                }
            }
        }
    }

    /// What the updater whose support directory is `support` installed, read offline and read-only,
    /// and the snapshot that serves at a launch (its generation, else `bundle`): what `--support` adds.
    ///
    /// - Throws: ``PipelineError`` when `support` is not a directory or the key is not one.
    static func readSupport(
        _ support: URL, publicKey: String?, bundle: URL?
    ) throws(PipelineError) -> (CacheInspection.OverTheAir, URL?) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: support.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw PipelineError(
                .missingInput,
                "no support directory: give the updater's directory (SnapshotUpdater.Configuration.directory)",
                file: support.path)
        }
        let verifier: Ed25519SignatureVerifier
        do {
            verifier = try Ed25519SignatureVerifier(base64PublicKey: publicKey ?? "")
        } catch {
            throw PipelineError(
                .invalidConfiguration, "--public-key: \(error) (catalog keygen prints the key)", cause: error)
        }
        // The manifest URL is never fetched: the inspection makes no request.
        let configuration = SnapshotUpdater.Configuration(
            manifestURL: support.appendingPathComponent("manifest.json"), verifier: verifier, directory: support,
            bundleDirectory: bundle)
        let (overTheAir, serving) = SnapshotUpdater.inspection(ofDirectory: configuration)
        return (overTheAir, serving)
    }
}
