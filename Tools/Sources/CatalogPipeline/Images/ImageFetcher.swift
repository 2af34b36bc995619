import AsyncHTTPClient
@_spi(CatalogTools) import CasinoCatalog
public import Foundation
public import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Fetches the images a snapshot bundles into a ``RecordedImages`` directory, with the catalogue
/// fetch's machinery: bounded concurrency, per-attempt timeouts and an overall deadline, retries
/// with capped exponential backoff (`RetryPolicy.pipeline`), conditional requests from the
/// previous directory's ETags, a progress line, and an all-or-nothing swap of the directory.
///
/// Images are hostile input:
/// - **https only, allowed hosts only.** A URL that is not https, or whose host is not in
///   ``PipelineConfiguration/ImageBundling/allowedHosts``, is never requested.
/// - **Redirects are followed by hand**, at most ``Configuration-swift.struct/maxRedirects``; each
///   target must be https on an allowed host (or the same origin as the request it answers).
/// - **Bodies are capped** at ``PipelineConfiguration/ImageBundling/maxImageBytes``: an announced
///   larger body is refused unread, a longer one stops being read at the cap.
/// - **Nothing is trusted:** the server's `Content-Type` is only recorded; ``ImageBundler`` sniffs.
///
/// An image that fails (a `404`, a refused redirect, a body over the cap, retries exhausted) is a
/// warning in the summary and is left out of the directory: its games keep their URLs. Only a
/// cancelled fetch or a failed write throws, and then the previous directory stays as it was.
///
/// ```swift
/// let plan = ImagePlan(catalog: catalog, bundling: bundling)
/// let summary = try await ImageFetcher(configuration: .init(bundling: bundling), logger: logger)
///     .fetch(plan.urls, into: URL(fileURLWithPath: ".catalog/images"))
/// let images = ImageBundler(bundling: bundling).bundle(catalog, from: try RecordedImages(directory: dir))
/// ```
public struct ImageFetcher: Sendable {
    /// How images are fetched.
    public var configuration: Configuration
    /// Where retries (`.debug`) and the summary (`.info`) are logged.
    public var logger: Logger

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Fetches `urls` into `directory`, replacing it as a whole.
    ///
    /// - Returns: What the fetch did, with a warning for each URL that failed.
    /// - Throws: ``PipelineError``: `.invalidConfiguration`, `.outputNotReplaceable`, `.io` or
    ///   `.cancelled`; `directory` is then as it was.
    public func fetch(_ urls: [String], into directory: URL) async throws(PipelineError) -> ImageFetchSummary {
        try configuration.check()
        try OutputDirectory.checkReplaceable(directory, holding: .images)
        let previous = try? RecordedImages(directory: directory)
        let publisher = DirectoryPublisher(target: directory, content: .images)
        let staging = try publisher.makeStagingDirectory()
        let line = ProgressLine(label: "images", unit: "images", isEnabled: configuration.isProgressLineEnabled)
        line.expect(urls.count)
        let counts = NIOLockedValueBox(ImageFetchSummary())
        var clientConfiguration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(
                connect: min(TimeAmount(configuration.requestTimeout), .seconds(10)),
                read: TimeAmount(configuration.requestTimeout)),
            decompression: .disabled)
        clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = configuration.concurrency
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        let deadline = NIODeadline.now() + TimeAmount(configuration.deadline)
        let attempts = ImageAttempts(
            client: client, configuration: configuration, deadline: deadline, counts: counts, logger: logger)

        let unique = Array(Set(urls)).sorted()
        var bodies: [String: (data: Data, entry: RecordedImages.Entry)] = [:]
        var cancelled = false
        await withTaskGroup(of: (String, ImageAttempts.Outcome).self) { group in
            var next = 0
            var inFlight = 0
            while true {
                while inFlight < configuration.concurrency, next < unique.count {
                    let url = unique[next]
                    next += 1
                    inFlight += 1
                    let reusable = previous?.index[url].flatMap { entry in
                        (try? previous?.body(for: url, maxBytes: configuration.bundling.maxImageBytes)?.get()).map {
                            (entry, $0)
                        }
                    }
                    group.addTask { (url, await attempts.fetch(url, previous: reusable)) }
                }
                guard let (url, outcome) = await group.next() else { break }
                inFlight -= 1
                line.advance()
                switch outcome {
                case .body(let data, let entry, let notModified):
                    bodies[url] = (data, entry)
                    counts.withLockedValue {
                        if notModified { $0.notModified += 1 } else { $0.fetched += 1 }
                    }
                case .failed(let reason):
                    if reason == ImageAttempts.cancelledReason { cancelled = true }
                    counts.withLockedValue {
                        $0.failed += 1
                        $0.warnings.append(
                            PipelineWarning(
                                file: String(url.prefix(300)), record: "", message: reason + "; the game keeps its URL")
                        )
                    }
                }
            }
        }
        do {
            try await client.shutdown()
        } catch {
            logger.debug("HTTP client shutdown failed", metadata: ["images.error": "\(error)"])
        }
        line.finish()
        do throws(PipelineError) {
            if cancelled || Task.isCancelled { throw PipelineError(.cancelled, "the image fetch was cancelled") }
            try RecordedImages.write(bodies, under: staging)
            try publisher.publish(staging)
        } catch {
            publisher.discard(staging)
            throw error
        }
        var summary = counts.withLockedValue { $0 }
        summary.images = unique.count
        summary.warnings.sort { $0.file < $1.file }
        logger.info(
            "fetched images",
            metadata: [
                "images.output": "\(directory.relativePath)", "images.fetched": "\(summary.fetched)",
                "images.notModified": "\(summary.notModified)", "images.failed": "\(summary.failed)",
                "images.requests": "\(summary.requests)", "images.bytes": "\(summary.bytesReceived)",
            ])
        return summary
    }
}
