import ArgumentParser
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Logging

/// Where `catalog snapshot` takes the images it bundles (when the configuration has `bundleImages`).
struct ImageOptions: ParsableArguments {
    @Option(
        name: .long,
        help:
            "A recorded images directory (index.json + bodies) to bundle from (default: <source>/images of a recorded source)."
    )
    var images: String?

    @Flag(
        name: .long,
        help: "Fetch the images over the network (https, allowed hosts only) instead of reading a recording.")
    var fetchImages = false

    @Option(name: .long, help: "Where fetched images are kept between runs, for conditional requests.")
    var imageCache = ".catalog/images"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Fetch an image host from another base URL: host=URL (repeatable), e.g. to the simulator's /images/<host>.",
            valueName: "host=url"))
    var imageHostRewrite: [String] = []

    func validate() throws {
        if images != nil, fetchImages { throw ValidationError("pass --images or --fetch-images, not both") }
        _ = try rewrites()
    }

    /// `--image-host-rewrite` as host → base URL.
    func rewrites() throws -> [String: URL] {
        var result: [String: URL] = [:]
        for text in imageHostRewrite {
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, let url = URL(string: parts[1]), url.host != nil,
                ["http", "https"].contains(url.scheme?.lowercased() ?? "")
            else {
                throw ValidationError("--image-host-rewrite must be host=http(s)://base, got '\(text)'")
            }
            result[parts[0].lowercased()] = url
        }
        return result
    }

    /// The images to bundle into a snapshot of `catalog`, or `nil` when the configuration bundles
    /// none. Each refused or dropped image is logged as a warning.
    ///
    /// - Parameters:
    ///   - recordedSource: The recorded provider directory the catalogue was read from, if any:
    ///     its `images/` is used when neither `--images` nor `--fetch-images` is given.
    func bundle(
        _ catalog: Catalog, configuration: PipelineConfiguration, recordedSource: String?, isHTTPSource: Bool,
        global: GlobalOptions, logger: Logger
    ) async throws -> BundledImages? {
        guard let bundling = configuration.bundleImages else {
            if images != nil || fetchImages {
                logger.warning("the configuration has no bundleImages: no images are bundled")
            }
            return nil
        }
        let directory: URL
        if let images {
            directory = URL(fileURLWithPath: images)
        } else if fetchImages || (isHTTPSource && recordedSource == nil) {
            directory = URL(fileURLWithPath: imageCache)
            var fetch = ImageFetcher.Configuration(bundling: bundling)
            fetch.hostRewrites = try rewrites()
            fetch.isProgressLineEnabled = ProgressLine.isTerminal && !global.quiet
            let plan = ImagePlan(catalog: catalog, bundling: bundling)
            let summary = try await ImageFetcher(configuration: fetch, logger: logger).fetch(plan.urls, into: directory)
            logger.info("\(summary)")
        } else if let recordedSource,
            FileManager.default.fileExists(
                atPath: URL(fileURLWithPath: recordedSource).appendingPathComponent(
                    "images/\(RecordedImages.indexFileName)"
                ).path)
        {
            directory = URL(fileURLWithPath: recordedSource).appendingPathComponent("images")
        } else {
            logger.warning(
                "the configuration has bundleImages, but there is no image source: pass --images DIR or --fetch-images; no images are bundled"
            )
            return nil
        }
        let bundled = ImageBundler(bundling: bundling).bundle(catalog, from: try RecordedImages(directory: directory))
        for warning in bundled.warnings { logger.warning("\(warning)") }
        let refused = bundled.warnings.count - bundled.dropped
        logger.info(
            "bundling \(bundled.entries.count) image URLs in \(bundled.files.count) files (\(bundled.totalBytes) bytes); \(refused) refused, \(bundled.dropped) dropped over budget"
        )
        return bundled
    }
}
