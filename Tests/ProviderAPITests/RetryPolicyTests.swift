import Foundation
@_spi(CatalogTools) import ProviderAPI
import Testing

@Suite struct RetryPolicyTests {
    @Test func defaultsAreTheCachesBackoff() {
        // Given the defaults
        let policy = RetryPolicy.default

        // Then they are the app cache's: 6 attempts, 2 s doubling up to 5 minutes, ± 20 %, Retry-After up to a day
        #expect(policy.maxAttempts == 6)
        #expect(policy.initialDelay == .seconds(2) && policy.maxDelay == .seconds(300))
        #expect(policy.multiplier == 2 && policy.jitter == 0.2)
        #expect(policy.maxRetryAfter == .seconds(86_400))
    }

    @Test(arguments: [1, 2, 5])
    func waitsWithinTheJitterBandAndHonoursRetryAfter(attempt: Int) throws {
        // Given a policy without jitter
        let policy = RetryPolicy(
            initialDelay: .seconds(1), maxDelay: .seconds(10), jitter: 0, maxRetryAfter: .seconds(30))

        // Then the wait doubles up to the cap, and a longer Retry-After wins up to its own cap
        let base = min(pow(2, Double(attempt - 1)), 10)
        #expect(policy.delay(afterAttempt: attempt, unit: 0.5) == .milliseconds(Int64(base * 1000)))
        #expect(policy.delay(afterAttempt: attempt, unit: 0.5, retryAfter: 20) == .seconds(20))
        #expect(policy.delay(afterAttempt: attempt, unit: 0.5, retryAfter: 3600) == .seconds(30))
    }

    @Test func neverRetriesAndTheLastAttemptHasNoWait() {
        #expect(RetryPolicy.never.delay(afterAttempt: 1, unit: 0.5) == nil)
        let policy = RetryPolicy(maxAttempts: 3)
        #expect(policy.delay(afterAttempt: 2, unit: 0.5) != nil)
        #expect(policy.delay(afterAttempt: 3, unit: 0.5) == nil)
    }
}
