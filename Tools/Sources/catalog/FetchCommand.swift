import ArgumentParser
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Logging

struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch the live catalogue into a recorded provider directory, atomically.",
        discussion: """
            Gets each configured edition's categories, then the first pages (maxPagesPerCategory of
            pageSize) of every category with games, and writes the verbatim responses in the recorded
            layout with recording.json and etags.json. Failed requests are retried with backoff; the next
            fetch sends the stored ETags and reuses the stored bodies on 304. The directory is replaced
            only when every request succeeded; on failure it stays byte-for-byte as it was.

            Example: catalog fetch --base-url http://127.0.0.1:8080 --output .catalog/fetched

            Exit status (besides those of `catalog --help`):
              69  the provider could not be reached, timed out or cut responses short (after retries)
              75  the catalogue changed during the fetch, or the deadline passed: fetch again
              76  the provider answered with an HTTP error (a 4xx, or a 5xx/429 after retries)
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "The provider API's base URL (http or https; may carry a path prefix).")
    var baseURL: String

    @Option(name: .shortAndLong, help: "The recording directory to write.")
    var output: String

    @Option(name: .long, help: "A pipeline configuration JSON file: editions, pageSize, maxPagesPerCategory.")
    var config = "data/catalog.json"

    @Option(help: "Requests in flight at once.")
    var concurrency = 4

    @Option(help: "Seconds one attempt (connect, head and body) may take.")
    var timeout = 10.0

    @Option(help: "Seconds the whole fetch may take, retries included.")
    var deadline = 300.0

    func validate() throws {
        guard (1...256).contains(concurrency) else { throw ValidationError("--concurrency must be 1...256") }
        guard timeout > 0, deadline > 0 else { throw ValidationError("--timeout and --deadline must be positive") }
    }

    func run() async throws {
        let logger = global.makeLogger()
        _ = try await reportingErrors(logger) {
            let pipeline = try PipelineConfiguration.load(from: URL(fileURLWithPath: config))
            var configuration = try fetchConfiguration(baseURL: baseURL, pipeline: pipeline)
            configuration.concurrency = concurrency
            configuration.requestTimeout = .milliseconds(Int((timeout * 1000).rounded()))
            configuration.deadline = .milliseconds(Int((deadline * 1000).rounded()))
            configuration.isProgressLineEnabled = configuration.isProgressLineEnabled && !global.quiet
            return try await HTTPFetcher(configuration: configuration, logger: logger)
                .fetch(into: URL(fileURLWithPath: output))
        }
    }
}
