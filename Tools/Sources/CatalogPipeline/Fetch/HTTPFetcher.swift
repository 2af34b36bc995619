import AsyncHTTPClient
@_spi(CatalogTools) import CasinoCatalog
public import Foundation
public import Logging
import NIOCore
import NIOHTTPCompression
@_spi(CatalogTools) import ProviderAPI

/// Fetches the provider's live catalogue into a recorded provider directory, so that
/// ``RecordedProviderSource`` and the ``Normalizer`` turn it into a snapshot exactly as they do
/// the embedded recording.
///
/// Per edition it gets the categories, then the first
/// ``Configuration-swift.struct/maxPagesPerCategory`` pages of every category with games, with
/// ``Configuration-swift.struct/concurrency`` requests in flight. It writes the verbatim bodies
/// in the ``RecordingLayout``, plus `recording.json` and `etags.json`:
///
/// ```
/// .catalog/fetched/recording.json                              fetchedAt (wall clock), baseURL, editions, pageLimit
/// .catalog/fetched/etags.json                                  relative path → ETag, for the next fetch
/// .catalog/fetched/en-iPhone/categories.json
/// .catalog/fetched/en-iPhone/games/videoslots-d4a8b457ac/0.json
/// ```
///
/// - **All or nothing.** The recording is built in a staging directory and swapped in only when
///   every request succeeded; a failed fetch leaves the previous directory byte for byte as it was.
/// - **Retries** connect errors, timeouts, `5xx`, `429` (after its `Retry-After`), and bodies that
///   are cut short or are not a collection envelope, with capped exponential backoff and jitter
///   (`RetryPolicy.pipeline`). Other `4xx` are never retried.
/// - **Revalidation.** Each request carries the previous recording's ETag in `If-None-Match`; a
///   `304` reuses the previous file's bytes.
/// - **Consistency.** A games page whose `total` differs from its category's `games.total` means
///   the catalogue changed during the fetch: the fetch fails and asks to be run again.
/// - **Caps.** A timeout per attempt (head and body), an overall deadline, and a cap on each
///   body, decompressed or not.
///
/// ```swift
/// var configuration = HTTPFetcher.Configuration(
///     baseURL: URL(string: "http://127.0.0.1:8080")!, pipeline: try PipelineConfiguration.load(from: config))
/// let summary = try await HTTPFetcher(configuration: configuration, logger: logger)
///     .fetch(into: URL(fileURLWithPath: ".catalog/fetched"))
/// let source = try RecordedProviderSource(directory: URL(fileURLWithPath: ".catalog/fetched"))
/// ```
public struct HTTPFetcher: Sendable {
    /// What to fetch and how.
    public var configuration: Configuration
    /// Where retries (`.debug`) and the summary (`.info`) are logged.
    public var logger: Logger

    /// Creates a fetcher.
    ///
    /// - Parameters:
    ///   - configuration: What to fetch and how.
    ///   - logger: Where retries and the summary are logged.
    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Fetches the catalogue into `directory`, replacing it as a whole.
    ///
    /// One `HTTPClient` is created for the fetch and shut down on every path.
    ///
    /// - Parameter directory: The recording to write; any previous recording there is replaced
    ///   only when the fetch succeeds, and serves the conditional requests.
    /// - Returns: What the fetch did.
    /// - Throws: ``PipelineError`` naming the request that failed (URL, edition, category, offset),
    ///   its status or error and the attempts made, with code `.network`, `.httpStatus`,
    ///   `.malformedInput`, `.inputTooLarge`, `.catalogueChanged`, `.deadlineExceeded`,
    ///   `.invalidConfiguration`, `.io` or `.cancelled`. `directory` is then exactly as it was.
    @discardableResult
    public func fetch(into directory: URL) async throws(PipelineError) -> FetchSummary {
        try configuration.check()
        try OutputDirectory.checkReplaceable(directory, holding: .recording)
        let started = ContinuousClock.now
        let fetchedAt = Date()
        let previous = PreviousRecording(
            directory: directory, baseURL: configuration.baseURL, pageLimit: configuration.pageLimit,
            maxBodyBytes: configuration.maxResponseBytes, logger: logger)
        let publisher = DirectoryPublisher(target: directory, content: .recording)
        let staging = try publisher.makeStagingDirectory()
        let progress = FetchProgress(isLineEnabled: configuration.isProgressLineEnabled)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration())
        let executor = RequestExecutor(
            client: client, configuration: configuration,
            deadline: .now() + TimeAmount(configuration.deadline), previous: previous, progress: progress,
            logger: logger)

        var outcome: Result<Int, PipelineError>
        do {
            outcome = .success(
                try await record(into: RecordingLayout(root: staging), using: executor, fetchedAt: fetchedAt))
        } catch {
            outcome = .failure(error)
        }
        do {
            try await client.shutdown()
        } catch {
            logger.debug("HTTP client shutdown failed", metadata: ["fetch.error": "\(error)"])
        }
        progress.finish()
        if case .success = outcome {
            do {
                try publisher.publish(staging)
            } catch {
                outcome = .failure(error)
            }
        }
        switch outcome {
        case .failure(var error):
            publisher.discard(staging)
            error.message +=
                !((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).isEmpty
                ? "; nothing was replaced: \(directory.relativePath) still holds the previous recording"
                : "; nothing was written"
            throw error
        case .success(let filesWritten):
            var summary = progress.summary
            summary.filesWritten = filesWritten
            summary.elapsed = ContinuousClock.now - started
            logger.info(
                "fetched the catalogue",
                metadata: [
                    "fetch.baseURL": "\(configuration.baseURL.absoluteString)",
                    "fetch.output": "\(directory.relativePath)", "fetch.requests": "\(summary.requests)",
                    "fetch.retries": "\(summary.retries)", "fetch.notModified": "\(summary.notModified)",
                    "fetch.bytes": "\(summary.bytesReceived)", "fetch.files": "\(summary.filesWritten)",
                    "fetch.elapsed": "\(summary.elapsed)",
                ])
            return summary
        }
    }

    /// Runs every request, `concurrency` at a time, writing each answer into `layout` as it
    /// arrives; pages are queued as soon as their edition's categories are known.
    ///
    /// - Returns: The number of files written.
    private func record(
        into layout: RecordingLayout, using executor: RequestExecutor, fetchedAt: Date
    ) async throws(PipelineError) -> Int {
        let configuration = configuration
        var pending = configuration.editions.map(FetchJob.categories)
        executor.progress.plan(pending.count)
        var etags: [String: String] = [:]
        var written = 0
        do {
            try await withThrowingTaskGroup(of: FetchedResponse.self) { group in
                var next = 0
                var inFlight = 0
                while true {
                    while inFlight < configuration.concurrency, next < pending.count {
                        let job = pending[next]
                        next += 1
                        inFlight += 1
                        group.addTask { try await executor.perform(job) }
                    }
                    guard let response = try await group.next() else { break }
                    inFlight -= 1
                    let pages = try Self.check(response, configuration: configuration)
                    pending += pages
                    executor.progress.plan(pages.count)
                    try FileOutput.write(response.body, to: response.job.file(in: layout))
                    etags[response.job.relativePath] = response.etag
                    written += 1
                }
            }
        } catch let error as PipelineError {
            throw error
        } catch {
            throw PipelineError(.cancelled, "the fetch was cancelled: \(error)")
        }
        let metadata = RecordingLayout.Metadata(
            fetchedAt: fetchedAt, baseURL: configuration.baseURL.absoluteString, editions: configuration.editions,
            pageLimit: configuration.pageLimit)
        let etagsFile = layout.root.appendingPathComponent(PreviousRecording.etagsFileName)
        do {
            try FileOutput.write(try CatalogCoding.prettyEncoder().encode(etags), to: etagsFile)
            try FileOutput.write(try CatalogCoding.prettyEncoder().encode(metadata), to: layout.metadataFile)
        } catch let error as PipelineError {
            throw error
        } catch {
            throw PipelineError(.io, "cannot encode the recording's metadata: \(error)", file: layout.root.relativePath)
        }
        return written + 2
    }

    /// Checks an answer against what is already known, and returns the requests it makes
    /// necessary: a categories response's pages, none for a page.
    ///
    /// - Throws: ``PipelineError`` `.catalogueChanged` when a page's `total` is not its category's.
    private static func check(
        _ response: FetchedResponse, configuration: Configuration
    ) throws(PipelineError) -> [FetchJob] {
        switch response.content {
        case .categories(let categories):
            var seen = Set<String>()
            return categories.flatMap { category -> [FetchJob] in
                guard seen.insert(category.id).inserted else { return [] }  // first wins, as in the normalizer
                return FetchJob.pages(
                    response.job.request.edition, categoryId: category.id, total: category.total,
                    limit: configuration.pageLimit, maxPages: configuration.maxPagesPerCategory)
            }
        case .gamesPage(let total):
            if let page = response.job.page, total != page.expectedTotal {
                throw PipelineError(
                    .catalogueChanged,
                    "the catalogue changed while fetching: this page says the category has \(total) games, "
                        + "its categories response said \(page.expectedTotal); fetch again",
                    file: response.job.request.url(relativeTo: configuration.baseURL).absoluteString,
                    record: response.job.description)
            }
            return []
        }
    }

    /// The client: pooled connections up to `concurrency`, timeouts, decompression capped at
    /// `maxResponseBytes`, a few redirects at most, no silent reconnecting.
    private func clientConfiguration() -> HTTPClient.Configuration {
        let requestTimeout = TimeAmount(configuration.requestTimeout)
        var client = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: 3, allowCycles: false),
            timeout: .init(connect: min(requestTimeout, .seconds(10)), read: requestTimeout),
            decompression: .enabled(limit: .size(configuration.maxResponseBytes)))
        client.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = configuration.concurrency
        // A refused connection fails the attempt at once, and the retry policy decides; the client
        // would otherwise keep reconnecting silently until the attempt's deadline.
        client.connectionPool.retryConnectionEstablishment = false
        return client
    }
}
