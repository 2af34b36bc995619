@_spi(CatalogTools) import CasinoCatalog
public import Foundation

/// How long a client waits before it asks the provider again: capped exponential backoff with
/// jitter, and never sooner than the server's `Retry-After`. The one rule for the pipeline's fetcher
/// and the app's cache, which differ only in their settings.
///
/// ```swift
/// let wait = Backoff(initial: .seconds(2), maximum: .seconds(300), jitter: 0.2)
///     .delay(afterAttempt: 3, unit: .random(in: 0..<1), retryAfter: 30)   // 8 s ± 20 %, or 30 s
/// ```
@_spi(CatalogTools) public struct Backoff: Sendable, Hashable {
    /// The wait after the first failed attempt.
    public var initial: Duration
    /// The longest computed wait.
    public var maximum: Duration
    /// How much each wait grows: ×2 by default.
    public var multiplier: Double
    /// The random spread around each wait, as a fraction (0.2 is ± 20 %).
    public var jitter: Double
    /// The longest `Retry-After` honoured: `RetryAfter/maxSeconds` (a day) by default.
    public var maxRetryAfter: Duration

    public init(
        initial: Duration, maximum: Duration, multiplier: Double = 2, jitter: Double,
        maxRetryAfter: Duration = .seconds(RetryAfter.maxSeconds)
    ) {
        self.initial = initial
        self.maximum = maximum
        self.multiplier = multiplier
        self.jitter = jitter
        self.maxRetryAfter = maxRetryAfter
    }

    /// The wait after failed attempt `attempt` (1 for the first): `initial × multiplier^(attempt − 1)`,
    /// at most ``maximum``, spread by ± ``jitter``, or `retryAfter` seconds (at most
    /// ``maxRetryAfter``) when the server asked for longer.
    ///
    /// Settings and headers are not trusted: the result is finite, between zero and a year, and
    /// never traps whatever the values.
    ///
    /// - Parameters:
    ///   - attempt: The failed attempt's number, from 1.
    ///   - unit: A number in `0..<1` placing the wait inside the jitter band (`Double.random(in:)`).
    ///   - retryAfter: The server's `Retry-After` in seconds (`RetryAfter/seconds(from:now:)`), if any.
    public func delay(afterAttempt attempt: Int, unit: Double, retryAfter: TimeInterval? = nil) -> Duration {
        let base = initial.timeInterval * pow(multiplier, Double(min(max(attempt - 1, 0), 1000)))
        let capped = min(base, maximum.timeInterval)
        let spread = capped * jitter * (unit * 2 - 1)
        var seconds = capped + spread
        if let retryAfter, retryAfter.isFinite {
            seconds = max(seconds, min(retryAfter, maxRetryAfter.timeInterval))
        }
        let bounded = seconds.isFinite ? min(max(seconds, 0), 86_400 * 365) : 0
        return .milliseconds(Int64((bounded * 1000).rounded()))
    }
}
