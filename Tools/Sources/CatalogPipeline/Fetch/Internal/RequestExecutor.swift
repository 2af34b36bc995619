import AsyncHTTPClient
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
@_spi(CatalogTools) import ProviderAPI

/// A response that passed its checks, ready to be written into the recording.
struct FetchedResponse: Sendable {
    let job: FetchJob
    /// The verbatim body: as received, or the previous recording's file after a `304`.
    let body: Data
    /// The response's `ETag`, if any.
    let etag: String?
    /// What the body says that the fetch needs.
    let content: ResponseContent
}

/// Runs one request to completion: conditional on the previous recording's ETag, with a per
/// attempt timeout, a size cap, and retries with capped exponential backoff and jitter within
/// the fetch's deadline.
struct RequestExecutor: Sendable {
    let client: HTTPClient
    let configuration: HTTPFetcher.Configuration
    /// The fetch's overall deadline.
    let deadline: NIODeadline
    let previous: PreviousRecording
    let progress: FetchProgress
    let logger: Logger

    /// How one attempt ended.
    private enum Attempt: Sendable {
        /// A `2xx` with its whole body.
        case body(Data, etag: String?)
        /// `304 Not Modified`.
        case notModified(etag: String?)
        /// Worth another attempt: `code` if it is the last one, and the server's `Retry-After`.
        case retryable(String, code: PipelineError.Code, retryAfter: Duration?)
        /// Not worth another attempt.
        case fatal(String, code: PipelineError.Code)
    }

    /// Fetches `job`, retrying what is worth retrying (``RetryLoop``).
    ///
    /// - Throws: ``PipelineError`` naming the request, the last problem and the attempts made.
    func perform(_ job: FetchJob) async throws(PipelineError) -> FetchedResponse {
        let url = job.request.url(relativeTo: configuration.baseURL)
        var etag = previous.etag(for: job)
        let loop = RetryLoop(policy: configuration.retry, deadline: deadline)
        let outcome = await loop.run { failures -> RetryLoop.Attempt<FetchedResponse> in
            progress.sent(isRetry: failures > 0)
            switch await attempt(url: url, etag: etag) {
            case .body(let data, let responseETag):
                switch ResponseCheck.content(of: data, for: job) {
                case .success(let content):
                    progress.complete(notModified: false)
                    return .success(FetchedResponse(job: job, body: data, etag: responseETag, content: content))
                case .failure(let reason):
                    return .retryable(
                        "the body is not a collection envelope: \(reason.text)", code: .malformedInput, retryAfter: nil)
                }
            case .notModified(let responseETag):
                guard let sent = etag else {
                    return .fatal("HTTP 304 Not Modified to a request without If-None-Match", code: .httpStatus)
                }
                if let data = previous.body(for: job),
                    case .success(let content) = ResponseCheck.content(of: data, for: job)
                {
                    progress.complete(notModified: true)
                    return .success(FetchedResponse(job: job, body: data, etag: responseETag ?? sent, content: content))
                }
                logger.debug(
                    "previous response missing or unreadable; fetching it again without If-None-Match",
                    metadata: ["fetch.url": "\(url.absoluteString)"])
                etag = nil
                return .again
            case .retryable(let reason, let code, let wait):
                return .retryable(reason, code: code, retryAfter: wait)
            case .fatal(let reason, let code):
                return .fatal(reason, code: code)
            }
        } willRetry: { problem, failures, wait in
            logger.debug(
                "retrying",
                metadata: [
                    "fetch.url": "\(url.absoluteString)", "fetch.problem": "\(problem)",
                    "fetch.attempt": "\(failures + 1)",
                    "fetch.wait": "\(wait)",
                ])
        }
        switch outcome {
        case .success(let response):
            return response
        case .failure(let stop):
            let problem =
                switch stop.reason {
                case .cancelled: "cancelled"
                case .pastDeadline: "the fetch ran past its deadline of \(configuration.deadline)"
                case .noTimeToRetry:
                    "\(stop.problem); no time left before the fetch's deadline of \(configuration.deadline) to retry"
                case .fatal, .attemptsExhausted: stop.problem
                }
            throw failure(job, url, problem, code: stop.code, attempts: stop.attempts)
        }
    }

    /// One attempt, bounded by the request timeout (head and body) and the overall deadline.
    private func attempt(url: URL, etag: String?) async -> Attempt {
        let attemptDeadline = min(NIODeadline.now() + TimeAmount(configuration.requestTimeout), deadline)
        let answer = await ConditionalGET.bounded(by: attemptDeadline) { deadline in
            await exchange(url: url, etag: etag, deadline: deadline)
        }
        return answer
            ?? .retryable("no complete answer within \(configuration.requestTimeout)", code: .network, retryAfter: nil)
    }

    /// Sends the request and reads the whole response.
    private func exchange(url: URL, etag: String?, deadline: NIODeadline) async -> Attempt {
        let request = ConditionalGET.request(url, accept: "application/json", acceptsCompression: true, etag: etag)
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, deadline: deadline)
        } catch {
            return classify(error)
        }
        let status = response.status
        switch status.code {
        case 304:
            _ = await drain(response)
            return .notModified(etag: response.headers.first(name: "ETag"))
        case 200..<300 where status.code != 204:
            let buffer: ByteBuffer
            do {
                buffer = try await response.body.collect(upTo: configuration.maxResponseBytes)
            } catch {
                return classify(error)
            }
            progress.received(bytes: buffer.readableBytes)
            return .body(Data(buffer.readableBytesView), etag: response.headers.first(name: "ETag"))
        case 429, 500..<600:
            let detail = await drain(response)
            let wait = Self.retryAfter(response.headers.first(name: "Retry-After"))
            return .retryable(
                "HTTP \(status.code) \(status.reasonPhrase)\(detail)", code: .httpStatus, retryAfter: wait)
        default:
            let detail = await drain(response)
            return .fatal(
                "HTTP \(status.code) \(status.reasonPhrase)\(detail), not retried; check the base URL and the editions",
                code: .httpStatus)
        }
    }

    /// Reads (and counts) up to 4 KiB of an error body; returns a short excerpt for messages.
    private func drain(_ response: HTTPClientResponse) async -> String {
        var excerpt = Data()
        do {
            for try await chunk in response.body {
                progress.received(bytes: chunk.readableBytes)
                if excerpt.count < 200 {
                    excerpt.append(contentsOf: chunk.readableBytesView.prefix(200 - excerpt.count))
                }
            }
        } catch {
            return ""
        }
        let text = String(decoding: excerpt, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "" : " (\(text))"
    }

    /// Sorts a transport error into retryable or not.
    private func classify(_ error: any Error) -> Attempt {
        if error is NIOTooManyBytesError || (error as? NIOHTTPDecompression.DecompressionError) == .limit {
            return .fatal(
                "the response is over the cap of \(configuration.maxResponseBytes) bytes; raise maxResponseBytes if it is genuine",
                code: .inputTooLarge)
        }
        if error is CancellationError {
            return .fatal("cancelled", code: .cancelled)
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .invalidURL, .emptyHost, .emptyScheme, .redirectLimitReached,
                .redirectCycleDetected, .alreadyShutdown:
                return .fatal("\(error)", code: .invalidConfiguration)
            case .deadlineExceeded, .readTimeout, .connectTimeout:
                // The same words as a timeout the attempt's own bound catches first: which one fires is a race.
                return .retryable(
                    "no complete answer within \(configuration.requestTimeout) (\(error))", code: .network,
                    retryAfter: nil)
            case .remoteConnectionClosed:
                return .retryable(
                    "the connection closed before the response was complete", code: .network, retryAfter: nil)
            default:
                break
            }
        }
        if let error = error as? IOError {
            let reason = String(cString: strerror(error.errnoCode)).lowercased()
            let hint = error.errnoCode == ECONNREFUSED ? "; is the provider running at \(hostAndPort)?" : ""
            return .retryable("cannot connect: \(reason)\(hint)", code: .network, retryAfter: nil)
        }
        return .retryable("\(error)", code: .network, retryAfter: nil)
    }

    /// `host:port` of the base URL, for messages.
    private var hostAndPort: String {
        let url = configuration.baseURL
        return (url.host ?? "?") + (url.port.map { ":\($0)" } ?? "")
    }

    /// `Retry-After` as a duration from now (``RetryAfter``: capped at a day).
    static func retryAfter(_ value: String?) -> Duration? {
        RetryAfter.seconds(from: value, now: Date()).map { .milliseconds(Int64(($0 * 1000).rounded())) }
    }

    private func failure(
        _ job: FetchJob, _ url: URL, _ problem: String, code: PipelineError.Code, attempts: Int
    ) -> PipelineError {
        let tries = attempts == 1 ? "1 attempt" : "\(attempts) attempts"
        return PipelineError(code, "\(problem) (\(tries))", file: url.absoluteString, record: job.description)
    }
}

extension TimeAmount {
    /// The amount closest to `duration`.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        self = .nanoseconds(Int64(min(max(nanoseconds, -9e18), 9e18)))
    }
}
