@_spi(CatalogTools) import CasinoCatalog
public import Foundation

/// When a failed request is tried again, and how long to wait first: capped exponential
/// backoff with jitter, never sooner than the server's `Retry-After`. The one rule for the app's
/// cache (`CatalogCache.Configuration.retry`) and the pipeline's fetchers, which differ only in
/// their settings.
///
/// ```swift
/// var policy = RetryPolicy.default
/// policy.maxAttempts = 3
/// let wait = policy.delay(afterAttempt: 1, unit: .random(in: 0..<1))  // 2 s ± 20 %; nil after attempt 3
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// The wait before the first retry: 2 seconds by default.
    public var initialDelay: Duration
    /// The longest wait between retries: 5 minutes by default.
    public var maxDelay: Duration
    /// How much each wait grows: ×2 by default.
    public var multiplier: Double
    /// The random spread around each wait, as a fraction: ±20 % by default.
    public var jitter: Double
    /// Attempts in one round of retries, the first included: 6 by default. (The cache lets a key
    /// rest for ``maxDelay`` after the last, before a lookup starts a new round.)
    public var maxAttempts: Int
    /// The longest `Retry-After` honoured: a day by default.
    public var maxRetryAfter: Duration

    public init(
        initialDelay: Duration = .seconds(2), maxDelay: Duration = .seconds(300), multiplier: Double = 2,
        jitter: Double = 0.2, maxAttempts: Int = 6, maxRetryAfter: Duration = .seconds(RetryPolicy.maxRetryAfterSeconds)
    ) {
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.multiplier = multiplier
        self.jitter = jitter
        self.maxAttempts = maxAttempts
        self.maxRetryAfter = maxRetryAfter
    }

    /// The longest `Retry-After` honoured by default, the cap every parsed header gets: a day.
    @usableFromInline static let maxRetryAfterSeconds: TimeInterval = 86_400

    /// The defaults.
    public static let `default` = RetryPolicy()

    /// One attempt, no retries.
    public static let never = RetryPolicy(maxAttempts: 1)

    /// The wait after failed attempt number `attempt` (1-based), or `nil` when no retry is left:
    /// `initialDelay × multiplier^(attempt − 1)`, at most ``maxDelay``, spread by ± ``jitter``, or
    /// `retryAfter` seconds (at most ``maxRetryAfter``) when the server asked for longer.
    ///
    /// Settings and headers are not trusted: the wait is finite, between zero and a year, and
    /// never traps whatever the values.
    ///
    /// - Parameters:
    ///   - attempt: The failed attempt's number, from 1.
    ///   - unit: A random number in `0..<1` that places the wait inside the jitter band.
    ///   - retryAfter: What the server asked for in seconds (`RetryAfter.seconds(from:now:)`), if
    ///     anything.
    public func delay(afterAttempt attempt: Int, unit: Double, retryAfter: TimeInterval? = nil) -> Duration? {
        guard attempt < maxAttempts else { return nil }
        let base = initialDelay.timeInterval * pow(multiplier, Double(min(max(attempt, 1), 1001) - 1))
        let capped = min(base, maxDelay.timeInterval)
        var seconds = capped + capped * jitter * (unit * 2 - 1)
        if let retryAfter, retryAfter.isFinite {
            seconds = max(seconds, min(retryAfter, maxRetryAfter.timeInterval))
        }
        let bounded = seconds.isFinite ? min(max(seconds, 0), 86_400 * 365) : 0
        return .milliseconds(Int64((bounded * 1000).rounded()))
    }
}
