public import Foundation
@_spi(CatalogTools) public import ProviderAPI

extension ImageFetcher {
    /// How images are fetched. Every property but ``bundling`` has a documented default.
    ///
    /// ```swift
    /// var configuration = ImageFetcher.Configuration(bundling: pipeline.bundleImages!)
    /// configuration.hostRewrites = ["static.example-cdn.com": simulatorBase.appendingPathComponent("images/static.example-cdn.com")]
    /// ```
    public struct Configuration: Sendable {
        /// The allowed hosts and the per-image cap (``PipelineConfiguration/ImageBundling``).
        public var bundling: PipelineConfiguration.ImageBundling
        /// Requests in flight at once: 4 by default.
        public var concurrency = 4
        /// How long one attempt (connect, head and body) may take: 10 seconds by default.
        public var requestTimeout: Duration = .seconds(10)
        /// How long the whole fetch may take, retries included: 300 seconds by default.
        public var deadline: Duration = .seconds(300)
        /// When and how often a failed request is tried again (the catalogue fetch's policy):
        /// `RetryPolicy.pipeline` by default.
        public var retry = RetryPolicy.pipeline
        /// Redirects followed per image, each checked against the allowed hosts: 3 by default.
        public var maxRedirects = 3
        /// Requests for an image host go to another base URL instead, path and query kept:
        /// `https://static.example-cdn.com/c/1.jpg` with `["static.example-cdn.com":
        /// http://127.0.0.1:8080/images/static.example-cdn.com]` is fetched from
        /// `http://127.0.0.1:8080/images/static.example-cdn.com/c/1.jpg`. For tests and the demo
        /// (the simulator), or a staging mirror. Empty by default.
        public var hostRewrites: [String: URL] = [:]
        /// Whether a progress line is written to standard error: by default when it is a terminal.
        public var isProgressLineEnabled = isatty(2) == 1

        public init(bundling: PipelineConfiguration.ImageBundling) {
            self.bundling = bundling
        }

        /// Checks the values are usable.
        ///
        /// - Throws: ``PipelineError`` with code `.invalidConfiguration` naming the bad value.
        public func check() throws(PipelineError) {
            func fail(_ message: String) -> PipelineError { PipelineError(.invalidConfiguration, message) }
            guard (1...256).contains(concurrency) else { throw fail("concurrency must be 1...256, got \(concurrency)") }
            guard requestTimeout > .zero, deadline > .zero else { throw fail("timeouts must be positive") }
            guard (0...10).contains(maxRedirects) else {
                throw fail("maxRedirects must be 0...10, got \(maxRedirects)")
            }
            guard (1...(1 << 30)).contains(bundling.maxImageBytes) else {
                throw fail("bundleImages.maxImageBytes must be 1...\(1 << 30), got \(bundling.maxImageBytes)")
            }
            for (host, base) in hostRewrites {
                let scheme = base.scheme?.lowercased()
                guard scheme == "http" || scheme == "https", base.host != nil else {
                    throw fail("the rewrite of \(host) must be an absolute http(s) URL, got '\(base.absoluteString)'")
                }
            }
            try retry.check()
        }
    }
}
