@_spi(CatalogTools) public import ProviderAPI

extension RetryPolicy {
    /// The pipeline's fetchers' policy (``HTTPFetcher`` and ``ImageFetcher``), which retry connect
    /// errors, timeouts, `5xx`, `429`, and bodies cut short or not a collection envelope; other
    /// `4xx` never: 5 attempts, waits from 0.2 seconds doubling up to 10 seconds (± 20 %), and a
    /// `Retry-After` honoured up to 30 seconds.
    public static let pipeline = RetryPolicy(
        initialDelay: .milliseconds(200), maxDelay: .seconds(10), maxAttempts: 5, maxRetryAfter: .seconds(30))

    /// Checks the values are usable for a fetch.
    ///
    /// - Throws: ``PipelineError`` with code `.invalidConfiguration`.
    func check() throws(PipelineError) {
        guard (1...100).contains(maxAttempts) else {
            throw PipelineError(.invalidConfiguration, "retry maxAttempts must be 1...100, got \(maxAttempts)")
        }
        guard initialDelay >= .zero, maxDelay >= initialDelay, maxRetryAfter >= .zero, (0..<1).contains(jitter),
            multiplier >= 1, multiplier.isFinite
        else {
            throw PipelineError(
                .invalidConfiguration,
                "retry delays must be 0 ≤ initialDelay ≤ maxDelay, maxRetryAfter ≥ 0, jitter in 0..<1 and "
                    + "multiplier ≥ 1")
        }
    }
}
