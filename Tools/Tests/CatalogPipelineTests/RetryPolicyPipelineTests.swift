@_spi(CatalogTools) import CatalogPipeline
import Foundation
@_spi(CatalogTools) import ProviderAPI
import Testing

@Suite struct RetryPolicyPipelineTests {
    @Test func theFetchersKeepTheirOwnDefaults() throws {
        // Given a fetch configuration with the defaults
        let configuration = HTTPFetcher.Configuration(
            baseURL: try #require(URL(string: "https://api.example.com")), editions: [])

        // Then its policy is the pipeline's: 5 attempts, 0.2 s doubling up to 10 s (± 20 %), Retry-After up to 30 s
        let policy = configuration.retry
        #expect(policy == .pipeline)
        #expect(policy.maxAttempts == 5 && policy.initialDelay == .milliseconds(200) && policy.maxDelay == .seconds(10))
        #expect(policy.multiplier == 2 && policy.jitter == 0.2 && policy.maxRetryAfter == .seconds(30))
        #expect(policy.delay(afterAttempt: 1, unit: 0.5, retryAfter: 3600) == .seconds(30))
    }
}
