import AsyncHTTPClient
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
@_spi(CatalogTools) import ProviderAPI

/// Fetches one image to completion: the URL and every redirect checked against the allow list,
/// the body capped, retries with the fetch's policy within its deadline.
struct ImageAttempts: Sendable {
    let client: HTTPClient
    let configuration: ImageFetcher.Configuration
    let deadline: NIODeadline
    let counts: NIOLockedValueBox<ImageFetchSummary>
    let logger: Logger

    /// The reason of a fetch ended by cancellation.
    static let cancelledReason = "cancelled"

    /// How one image ended.
    enum Outcome: Sendable {
        /// Its bytes and index entry; `notModified` when they are the previous directory's.
        case body(Data, RecordedImages.Entry, notModified: Bool)
        /// Why it is left out.
        case failed(String)
    }

    /// How one request ended.
    private enum Attempt: Sendable {
        case body(Data, etag: String?, contentType: String?)
        case notModified(etag: String?)
        case redirect(String)
        case retryable(String, retryAfter: Duration?)
        case fatal(String)
    }

    /// Fetches `url`, conditionally when `previous` holds its entry and body, retrying what is worth
    /// retrying (``RetryLoop``).
    func fetch(_ url: String, previous: (entry: RecordedImages.Entry, data: Data)?) async -> Outcome {
        guard let original = URL(string: url), original.scheme?.lowercased() == "https", let host = original.host else {
            return .failed("refused: not an https URL, never requested")
        }
        guard configuration.bundling.allows(host: host) else {
            return .failed("refused: host \(host.prefix(253)) is not in bundleImages.allowedHosts, never requested")
        }
        var target = rewritten(original)
        var redirects = 0
        let etag = previous?.entry.etag
        let loop = RetryLoop(policy: configuration.retry, deadline: deadline)
        let outcome = await loop.run { failures -> RetryLoop.Attempt<Outcome> in
            counts.withLockedValue {
                $0.requests += 1
                if failures > 0 { $0.retries += 1 }
            }
            switch await attempt(target, etag: redirects == 0 ? etag : nil) {
            case .body(let data, let responseETag, let contentType):
                let entry = RecordedImages.Entry(
                    file: FileNaming.hexSHA256(data), etag: responseETag,
                    contentType: contentType.map { String($0.prefix(200)) })
                return .success(.body(data, entry, notModified: false))
            case .notModified(let responseETag):
                guard let previous, etag != nil, redirects == 0 else {
                    return .fatal("HTTP 304 Not Modified to a request without If-None-Match")
                }
                var entry = previous.entry
                entry.etag = responseETag ?? previous.entry.etag
                return .success(.body(previous.data, entry, notModified: true))
            case .redirect(let location):
                redirects += 1
                guard redirects <= configuration.maxRedirects else {
                    return .fatal("refused: more than \(configuration.maxRedirects) redirects")
                }
                switch follow(location, from: target) {
                case .success(let next): target = next
                case .failure(let refusal): return .fatal(refusal.message)
                }
                return .again
            case .retryable(let reason, let wait):
                return .retryable(reason, retryAfter: wait)
            case .fatal(let reason):
                return .fatal(reason)
            }
        } willRetry: { problem, _, _ in
            logger.debug("retrying image", metadata: ["images.url": "\(url)", "images.problem": "\(problem)"])
        }
        switch outcome {
        case .success(let answer):
            return answer
        case .failure(let stop):
            switch stop.reason {
            case .cancelled: return .failed(Self.cancelledReason)
            case .pastDeadline: return .failed("the image fetch ran past its deadline of \(configuration.deadline)")
            case .fatal: return .failed(stop.problem)
            case .attemptsExhausted: return .failed("\(stop.problem) (\(stop.attempts) attempts)")
            case .noTimeToRetry:
                let limit = configuration.deadline
                return .failed("\(stop.problem); no time left before the deadline of \(limit) to retry")
            }
        }
    }

    /// Why a redirect is not followed.
    struct Refusal: Error {
        let message: String
    }

    /// Where a redirect leads, when it may be followed: the same origin as `current`, or https on
    /// an allowed host (then rewritten like any image URL).
    func follow(_ location: String, from current: URL) -> Result<URL, Refusal> {
        guard let next = URL(string: location, relativeTo: current)?.absoluteURL, let host = next.host else {
            return .failure(Refusal(message: "refused: redirected to '\(location.prefix(200))', not a URL"))
        }
        if next.scheme == current.scheme, host == current.host, next.port == current.port { return .success(next) }
        guard next.scheme?.lowercased() == "https" else {
            return .failure(Refusal(message: "refused: redirected to \(next.absoluteString.prefix(200)), not https"))
        }
        guard configuration.bundling.allows(host: host) else {
            return .failure(
                Refusal(
                    message:
                        "refused: redirected to host \(host.prefix(253)), which is not in bundleImages.allowedHosts"))
        }
        return .success(rewritten(next))
    }

    /// `url` with its host replaced by the configured rewrite, path and query kept.
    func rewritten(_ url: URL) -> URL {
        guard let host = url.host?.lowercased(), let base = configuration.hostRewrites[host],
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return url }
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += components.percentEncodedPath
        if let query = components.percentEncodedQuery { text += "?" + query }
        return URL(string: text) ?? url
    }

    /// One request, bounded by the request timeout (head and body) and the deadline.
    private func attempt(_ url: URL, etag: String?) async -> Attempt {
        let attemptDeadline = min(NIODeadline.now() + TimeAmount(configuration.requestTimeout), deadline)
        let answer = await ConditionalGET.bounded(by: attemptDeadline) { deadline in
            await exchange(url, etag: etag, deadline: deadline)
        }
        return answer ?? .retryable("no complete answer within \(configuration.requestTimeout)", retryAfter: nil)
    }

    private func exchange(_ url: URL, etag: String?, deadline: NIODeadline) async -> Attempt {
        let request = ConditionalGET.request(
            url, accept: "image/webp,image/png,image/jpeg,image/gif", acceptsCompression: false, etag: etag)
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, deadline: deadline)
        } catch {
            return classify(error)
        }
        let cap = configuration.bundling.maxImageBytes
        let code = response.status.code
        switch code {
        case 304:
            return .notModified(etag: response.headers.first(name: "ETag"))
        case 301, 302, 303, 307, 308:
            guard let location = response.headers.first(name: "Location") else {
                return .fatal("HTTP \(code) without a Location")
            }
            return .redirect(location)
        case 200..<300 where code != 204:
            if let announced = response.headers.first(name: "Content-Length").flatMap(Int.init), announced > cap {
                return .fatal(
                    "refused: the body announces \(announced) bytes, over bundleImages.maxImageBytes (\(cap)); not read"
                )
            }
            do {
                let buffer = try await response.body.collect(upTo: cap)
                counts.withLockedValue { $0.bytesReceived += buffer.readableBytes }
                return .body(
                    Data(buffer.readableBytesView), etag: response.headers.first(name: "ETag"),
                    contentType: response.headers.first(name: "Content-Type"))
            } catch {
                return classify(error)
            }
        case 429, 500..<600:
            return .retryable(
                "HTTP \(code) \(response.status.reasonPhrase)",
                retryAfter: RequestExecutor.retryAfter(response.headers.first(name: "Retry-After")))
        default:
            return .fatal("HTTP \(code) \(response.status.reasonPhrase), not retried")
        }
    }

    private func classify(_ error: any Error) -> Attempt {
        if error is NIOTooManyBytesError {
            return .fatal(
                "refused: the body is over bundleImages.maxImageBytes (\(configuration.bundling.maxImageBytes)); reading stopped at the cap"
            )
        }
        if error is CancellationError { return .fatal(Self.cancelledReason) }
        if let error = error as? HTTPClientError {
            switch error {
            case .invalidURL, .emptyHost, .emptyScheme, .alreadyShutdown: return .fatal("\(error)")
            default: break
            }
        }
        return .retryable("\(error)", retryAfter: nil)
    }
}
