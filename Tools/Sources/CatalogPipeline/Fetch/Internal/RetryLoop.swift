@_spi(CatalogTools) import CasinoCatalog
import NIOCore
@_spi(CatalogTools) import ProviderAPI

/// The retry loop the catalogue fetch (``RequestExecutor``) and the image fetch (``ImageAttempts``)
/// share: attempts until one answers or is not worth repeating, waits of the ``RetryPolicy``
/// between them (the server's `Retry-After` honoured), and no attempt or wait past the deadline of
/// the whole fetch. What an attempt sends and how its answer is judged stay with each fetcher.
///
/// ```swift
/// let loop = RetryLoop(policy: configuration.retry, deadline: deadline)
/// let outcome = await loop.run { failures in
///     await send(isRetry: failures > 0)  // .success(body), .retryable(…), .fatal(…) or .again
/// } willRetry: { problem, failures, wait in
///     logger.debug("retrying", metadata: ["fetch.wait": "\(wait)"])
/// }
/// // .success(body), or .failure(stop): stop.reason, stop.problem, stop.code, stop.attempts
/// ```
struct RetryLoop: Sendable {
    /// When and how often a failed attempt is repeated.
    let policy: RetryPolicy
    /// The end of the whole fetch: no attempt starts after it, and no wait is begun that ends after it.
    let deadline: NIODeadline

    /// How one attempt ended, as far as the loop is concerned.
    enum Attempt<Success> {
        /// An answer: the loop returns it.
        case success(Success)
        /// Worth another attempt after a wait: the problem, its code if it stays the last one, and
        /// the server's `Retry-After`.
        case retryable(String, code: PipelineError.Code = .network, retryAfter: Duration?)
        /// Not worth another attempt.
        case fatal(String, code: PipelineError.Code = .network)
        /// Another attempt at once, not counted as a failure: the request changed (a redirect
        /// followed, an ETag dropped).
        case again
    }

    /// Why the loop stopped without an answer.
    struct Stop: Error {
        enum Reason: Equatable {
            /// The task was cancelled before an attempt or during a wait.
            case cancelled
            /// The deadline passed before an attempt.
            case pastDeadline
            /// An attempt was not worth repeating (``Attempt/fatal(_:code:)``).
            case fatal
            /// The policy's last attempt failed too.
            case attemptsExhausted
            /// The wait before the next attempt would end after the deadline.
            case noTimeToRetry
        }

        var reason: Reason
        /// The last attempt's problem; empty for ``Reason/cancelled`` and ``Reason/pastDeadline``.
        var problem: String
        /// The code of ``problem``.
        var code: PipelineError.Code
        /// The attempts made.
        var attempts: Int
    }

    /// Runs `attempt` until it answers or the loop stops.
    ///
    /// - Parameters:
    ///   - attempt: One attempt, given the failures so far (0 for the first).
    ///   - willRetry: Told the problem, the failures so far and the wait, before each wait.
    /// - Returns: The answer, or why there is none.
    func run<Success>(
        _ attempt: (_ failures: Int) async -> Attempt<Success>,
        willRetry: (_ problem: String, _ failures: Int, _ wait: Duration) -> Void
    ) async -> Result<Success, Stop> {
        var failures = 0
        while true {
            guard !Task.isCancelled else {
                return .failure(Stop(reason: .cancelled, problem: "", code: .cancelled, attempts: failures))
            }
            guard NIODeadline.now() < deadline else {
                return .failure(Stop(reason: .pastDeadline, problem: "", code: .deadlineExceeded, attempts: failures))
            }
            let problem: String
            let code: PipelineError.Code
            var retryAfter: Duration?
            switch await attempt(failures) {
            case .success(let answer):
                return .success(answer)
            case .again:
                continue
            case .fatal(let reason, let reasonCode):
                return .failure(Stop(reason: .fatal, problem: reason, code: reasonCode, attempts: failures + 1))
            case .retryable(let reason, let reasonCode, let wait):
                (problem, code, retryAfter) = (reason, reasonCode, wait)
            }
            failures += 1
            guard
                let wait = policy.delay(
                    afterAttempt: failures, unit: .random(in: 0..<1), retryAfter: retryAfter?.timeInterval)
            else {
                return .failure(Stop(reason: .attemptsExhausted, problem: problem, code: code, attempts: failures))
            }
            guard NIODeadline.now() + TimeAmount(wait) < deadline else {
                return .failure(
                    Stop(reason: .noTimeToRetry, problem: problem, code: .deadlineExceeded, attempts: failures))
            }
            willRetry(problem, failures, wait)
            do {
                try await Task.sleep(for: wait)
            } catch {
                return .failure(Stop(reason: .cancelled, problem: "", code: .cancelled, attempts: failures))
            }
        }
    }
}
