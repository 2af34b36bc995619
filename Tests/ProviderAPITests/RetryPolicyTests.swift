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

    @Test(arguments: [
        RetryPolicy(initialDelay: .seconds(1), maxDelay: .seconds(86_400 * 3650), multiplier: .infinity),
        RetryPolicy(initialDelay: .seconds(1), maxDelay: .seconds(10), multiplier: .nan, jitter: .nan),
        RetryPolicy(initialDelay: .seconds(-5), maxDelay: .seconds(-1), multiplier: -3, jitter: 7),
        RetryPolicy(initialDelay: .seconds(1), maxDelay: .seconds(86_400 * 3650), multiplier: 1e300, jitter: 0),
        RetryPolicy(maxAttempts: .max),
    ])
    func hostileSettingsAndHeadersGiveAFiniteWaitOfAtMostAYearAndNeverTrap(policy: RetryPolicy) {
        // Given settings no one checked, and attempts and Retry-After values from anywhere
        for attempt in [Int.min, -1, 0, 1, 2, 64, 1025, Int.max - 1] {
            for retryAfter in [nil, -1, 0, 1e308, .infinity, -.infinity, .nan] as [TimeInterval?] {
                for unit in [0, 0.5, 0.999, -4, .nan] as [Double] {
                    // When a wait is asked for
                    let wait = policy.delay(afterAttempt: attempt, unit: unit, retryAfter: retryAfter)
                    // Then it is none (the attempts are spent) or a wait within 0...365 days
                    if let wait {
                        #expect(wait >= .zero && wait <= .seconds(86_400 * 365), "attempt \(attempt), \(wait)")
                    }
                }
            }
        }
    }
}
