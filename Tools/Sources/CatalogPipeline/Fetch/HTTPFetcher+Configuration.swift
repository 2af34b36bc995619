@_spi(CatalogTools) public import CasinoCatalog
public import Foundation
@_spi(CatalogTools) public import ProviderAPI

extension HTTPFetcher {
    /// What to fetch, how hard to try and how long to wait. Every property but ``baseURL`` and
    /// ``editions`` has a documented default.
    ///
    /// ```swift
    /// var configuration = HTTPFetcher.Configuration(
    ///     baseURL: URL(string: "https://casino-api.example.com")!, editions: [try Edition(id: "en-iPhone")])
    /// configuration.concurrency = 8
    /// configuration.retry.maxAttempts = 3
    /// ```
    public struct Configuration: Sendable {
        /// The API's base URL; it may carry a path prefix (`https://api.example.com/prod`).
        public var baseURL: URL
        /// The editions to fetch: one categories request each, then their pages.
        public var editions: [Edition]
        /// Games per page requested (`pagination=offset=N,limit=pageLimit`): 10 by default.
        public var pageLimit = 10
        /// Pages fetched per category, from offset 0: 5 by default.
        public var maxPagesPerCategory = 5
        /// Requests in flight at once: 4 by default.
        public var concurrency = 4
        /// How long one attempt (connect, head and body) may take: 10 seconds by default.
        public var requestTimeout: Duration = .seconds(10)
        /// How long the whole fetch may take, retries and waits included: 300 seconds by default.
        public var deadline: Duration = .seconds(300)
        /// The largest response body accepted, after decompression: 16 MiB by default.
        public var maxResponseBytes = 16 << 20
        /// When and how often a failed request is tried again: `RetryPolicy.pipeline` by default.
        public var retry = RetryPolicy.pipeline
        /// Whether a single updating progress line is written to standard error: by default when
        /// standard error is a terminal.
        public var isProgressLineEnabled = isatty(2) == 1

        /// A configuration with the defaults.
        ///
        /// - Parameters:
        ///   - baseURL: The API's base URL.
        ///   - editions: The editions to fetch.
        public init(baseURL: URL, editions: [Edition]) {
            self.baseURL = baseURL
            self.editions = editions
        }

        /// A configuration cut like the pipeline's: its editions, ``PipelineConfiguration/pageSize``
        /// as the page limit and its ``PipelineConfiguration/maxPagesPerCategory``.
        public init(baseURL: URL, pipeline: PipelineConfiguration) {
            self.init(baseURL: baseURL, editions: pipeline.editions)
            pageLimit = pipeline.pageSize
            maxPagesPerCategory = pipeline.maxPagesPerCategory
        }

        /// Checks the values are usable.
        ///
        /// - Throws: ``PipelineError`` with code `.invalidConfiguration` naming the bad value.
        public func check() throws(PipelineError) {
            func fail(_ message: String) -> PipelineError { PipelineError(.invalidConfiguration, message) }
            let scheme = baseURL.scheme?.lowercased()
            guard scheme == "http" || scheme == "https", baseURL.host != nil else {
                throw fail("the base URL must be an absolute http(s) URL, got '\(baseURL.absoluteString)'")
            }
            guard !editions.isEmpty else {
                throw fail(
                    "no editions to fetch; list them in the configuration (\"editions\": [\"en-iPhone\"]) — the API cannot be asked which exist"
                )
            }
            guard Set(editions).count == editions.count else { throw fail("editions are listed twice: \(editions)") }
            guard (1...1000).contains(pageLimit) else { throw fail("pageLimit must be 1...1000, got \(pageLimit)") }
            guard (1...10_000).contains(maxPagesPerCategory) else {
                throw fail("maxPagesPerCategory must be 1...10000, got \(maxPagesPerCategory)")
            }
            guard (1...256).contains(concurrency) else { throw fail("concurrency must be 1...256, got \(concurrency)") }
            guard requestTimeout > .zero, deadline > .zero else { throw fail("timeouts must be positive") }
            guard maxResponseBytes > 0 else { throw fail("maxResponseBytes must be positive") }
            try retry.check()
        }
    }
}
