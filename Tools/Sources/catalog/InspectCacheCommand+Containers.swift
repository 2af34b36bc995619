@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Logging

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
}
