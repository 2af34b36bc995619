@_spi(CatalogTools) public import CasinoCatalog
import CatalogSupport
public import Foundation
public import Logging
@_spi(CatalogTools) import ProviderAPI

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// The provider's casino API over `URLSession`: a ready ``CatalogUpstream`` for ``CatalogCache``.
///
/// Requests are built by `ProviderRequest` and answers mapped by `ProviderMapping`, the same code
/// the snapshot pipeline runs, so live content looks exactly like the bundled snapshot. A cached
/// ETag goes out as `If-None-Match`; a `304` answers ``UpstreamResponse/notModified`` and the
/// cache renews its entry without rewriting it. Failures throw ``UpstreamError``, whose code
/// tells offline from timed out from a failing server from a bad answer.
///
/// ```swift
/// let upstream = ProviderHTTPUpstream(
///     configuration: .init(baseURL: URL(string: "https://casino-api.example.com")!),
///     logger: logger)
/// let cache = CatalogCache(
///     upstream: upstream, cacheDirectory: cachesURL.appendingPathComponent("CasinoCache"),
///     bundleDirectory: Bundle.main.url(forResource: "out", withExtension: nil), logger: logger)
/// ```
public final class ProviderHTTPUpstream: CatalogUpstream {
    /// Where the API is and how long and how much to wait for.
    ///
    /// ```swift
    /// var configuration = ProviderHTTPUpstream.Configuration(baseURL: apiURL)
    /// configuration.timeout = 10
    /// configuration.additionalHeaders["Authorization"] = "Bearer \(token)"
    /// ```
    public struct Configuration: Sendable {
        /// The API's base URL, with any path prefix (`https://api.example.com/prod`); requests go
        /// to `/v1/casino/…` below it. No default.
        public var baseURL: URL
        /// The longest one request may take, from sending it to the last byte of the body, in
        /// seconds: 15 by default. Also the idle timeout handed to `URLSession`.
        public var timeout: TimeInterval = 15
        /// The largest body accepted, in bytes: 8 MiB by default. Checked against
        /// `Content-Length` before the body arrives and against the bytes as they arrive.
        public var maxResponseBytes: Int = 8 << 20
        /// Headers added to every request (authorization, a user agent): none by default.
        public var additionalHeaders: [String: String] = [:]

        public init(
            baseURL: URL, timeout: TimeInterval = 15, maxResponseBytes: Int = 8 << 20,
            additionalHeaders: [String: String] = [:]
        ) {
            self.baseURL = baseURL
            self.timeout = timeout
            self.maxResponseBytes = maxResponseBytes
            self.additionalHeaders = additionalHeaders
        }
    }

    /// The configuration the upstream was made with.
    public let configuration: Configuration
    private let http: HTTPTransfer
    let logger: Logger
    /// Player id → `sessionId` cookie value (`ProviderHTTPUpstream+Player.swift`).
    let playerSessions = Locked<[String: String]>([:])

    /// Creates an upstream for the API at `configuration.baseURL`.
    ///
    /// - Parameters:
    ///   - configuration: The base URL, timeout, size cap and extra headers.
    ///   - sessionConfiguration: How requests go out (cookies, proxies, timeouts, `URLProtocol`
    ///     classes): `.ephemeral` by default. The upstream sends them through a `URLSession` of its
    ///     own made with it, which caps each body as it arrives and never consults a `URLCache`
    ///     (the cache above decides freshness).
    ///   - logger: Where requests are logged (at `.debug`).
    public init(
        configuration: Configuration, sessionConfiguration: URLSessionConfiguration = .ephemeral,
        logger: Logger = .casinoCacheDisabled
    ) {
        self.configuration = configuration
        self.http = HTTPTransfer(configuration: sessionConfiguration)
        self.logger = logger
    }

    /// Creates an upstream whose requests go out with `session`'s configuration (its delegate is
    /// not called).
    @available(
        *, deprecated, message: "pass the session's configuration: init(configuration:sessionConfiguration:logger:)"
    )
    public convenience init(configuration: Configuration, session: URLSession, logger: Logger = .casinoCacheDisabled) {
        self.init(configuration: configuration, sessionConfiguration: session.configuration, logger: logger)
    }

    /// An edition's categories, mapped like the pipeline maps them.
    ///
    /// - Throws: ``UpstreamError``, or `CancellationError` when the calling task is cancelled.
    public func categories(edition: Edition, etag: String?) async throws -> UpstreamResponse<CategoryList> {
        let request = ProviderRequest.categories(edition)
        guard let data = try await get(request, etag: etag) else { return .notModified }
        let envelope = try decodeEnvelope(of: ProviderCategory.self, from: data.body, for: request)
        let mapped = ProviderMapping.categoryList(from: envelope)
        logNotes(mapped.notes, for: request)
        return .modified(mapped.value, etag: data.etag)
    }

    /// One page of a category's games, mapped like the pipeline maps them.
    ///
    /// - Throws: ``UpstreamError``, or `CancellationError` when the calling task is cancelled.
    public func gamesPage(
        edition: Edition, categoryId: String, offset: Int, limit: Int, etag: String?
    ) async throws -> UpstreamResponse<GamesPage> {
        let request = ProviderRequest.gamesPage(edition, categoryId: categoryId, offset: offset, limit: limit)
        guard let data = try await get(request, etag: etag) else { return .notModified }
        let envelope = try decodeEnvelope(of: ProviderGame.self, from: data.body, for: request)
        let mapped = ProviderMapping.gamesPage(from: envelope, categoryId: categoryId, offset: offset, limit: limit)
        logNotes(mapped.notes, for: request)
        return .modified(mapped.value, etag: data.etag)
    }

    /// Bulk validation: one `POST` of `CacheValidation` (the provider's cache validation
    /// endpoint; the simulator serves it). Verdicts for keys that were not asked, or that do not
    /// parse, are dropped; inline content is checked against its key by the cache.
    ///
    /// - Throws: ``UpstreamError`` (a `404` or `405` included: an API without the endpoint), or
    ///   `CancellationError`.
    public func validate(
        contentHashes: [SnapshotKey: String], pageSize: Int, inlineBytes: Int
    ) async throws -> [SnapshotKey: UpstreamVerdict]? {
        try await validate(
            contentHashes: contentHashes, pageSize: pageSize, inlineBytes: inlineBytes, withdrawalSequence: nil
        ).verdicts
    }

    public func validate(
        contentHashes: [SnapshotKey: String], pageSize: Int, inlineBytes: Int, withdrawalSequence: Int
    ) async throws -> UpstreamValidation? {
        try await validate(
            contentHashes: contentHashes, pageSize: pageSize, inlineBytes: inlineBytes,
            withdrawalSequence: Optional(withdrawalSequence))
    }

    private func validate(
        contentHashes: [SnapshotKey: String], pageSize: Int, inlineBytes: Int, withdrawalSequence: Int?
    ) async throws -> UpstreamValidation {
        var url = configuration.baseURL
        url.appendPathComponent(String(CacheValidation.path.dropFirst()))
        var urlRequest = makeRequest(url, method: "POST")
        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let body = CacheValidation.Request(
            keys: Dictionary(uniqueKeysWithValues: contentHashes.map { ($0.key.description, $0.value) }),
            pageSize: pageSize, inlineBytes: inlineBytes, withdrawalSequence: withdrawalSequence)
        urlRequest.httpBody = try CatalogCoding.encoder().encode(body)
        guard
            let data = try await perform(
                urlRequest, url: url, label: "validate \(contentHashes.count) keys", acceptsNotModified: false)
        else { return UpstreamValidation(verdicts: [:]) }
        let response: CacheValidation.Response
        do {
            response = try CatalogCoding.decoder().decode(CacheValidation.Response.self, from: data.body)
        } catch {
            throw UpstreamError(
                .invalidResponse,
                "the validation answer is not CacheValidation JSON: \(DecodingFailure.describe(error))",
                status: 200, url: url, cause: error)
        }
        var verdicts: [SnapshotKey: UpstreamVerdict] = [:]
        for (text, verdict) in response.keys {
            guard let key = SnapshotKey(text), contentHashes[key] != nil else { continue }
            verdicts[key] = Self.verdict(verdict)
        }
        return UpstreamValidation(verdicts: verdicts, withdrawals: response.withdrawals)
    }

    private static func verdict(_ verdict: CacheValidation.Verdict) -> UpstreamVerdict {
        switch verdict.status {
        case .removed?: return .removed
        case .unknown?: return .unknown
        case nil:
            guard verdict.invalidate else { return .current(etag: verdict.etag) }
            let content: CatalogContent? =
                switch verdict.content {
                case .categories(let list)?: .categories(list)
                case .gamesPage(let page)?: .gamesPage(page)
                case nil: nil
                }
            return .changed(content, etag: verdict.etag)
        }
    }

    // MARK: - HTTP

    /// A `200` body and its validator.
    struct Body {
        var body: Data
        var etag: String?
    }

    /// Sends `request` and returns the body of a `200`, or `nil` for a `304`.
    private func get(_ request: ProviderRequest, etag: String?) async throws -> Body? {
        let url = request.url(relativeTo: configuration.baseURL)
        var urlRequest = makeRequest(url, method: "GET")
        if let etag { urlRequest.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        return try await perform(urlRequest, url: url, label: "\(request)", acceptsNotModified: etag != nil)
    }

    func makeRequest(_ url: URL, method: String) -> URLRequest {
        var urlRequest = URLRequest(
            url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: configuration.timeout)
        urlRequest.httpMethod = method
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in configuration.additionalHeaders { urlRequest.setValue(value, forHTTPHeaderField: name) }
        return urlRequest
    }

    /// Sends a request and returns the JSON body of a `200` with its validator, or `nil` for a
    /// `304` when one may come; every other status is an ``UpstreamError``.
    func perform(_ urlRequest: URLRequest, url: URL, label: String, acceptsNotModified: Bool) async throws -> Body? {
        let started = Date()
        let (data, response) = try await send(urlRequest, url: url)
        guard let http = response as? HTTPURLResponse else {
            throw UpstreamError(.invalidResponse, "the answer is not HTTP", url: url)
        }
        let status = http.statusCode
        logger.debug(
            "provider answered",
            metadata: [
                "upstream.request": "\(label)", "upstream.status": "\(status)", "upstream.bytes": "\(data.count)",
                "upstream.milliseconds": "\(Int(Date().timeIntervalSince(started) * 1000))",
            ])
        switch status {
        case 200:
            if let type = http.value(forHTTPHeaderField: "Content-Type"), !type.lowercased().contains("json") {
                throw UpstreamError(
                    .invalidResponse, "expected JSON, got Content-Type \(type)", status: status, url: url)
            }
            return Body(body: data, etag: http.value(forHTTPHeaderField: "ETag"))
        case 304 where acceptsNotModified:
            return nil
        case 429:
            let wait = RetryAfter.seconds(from: http.value(forHTTPHeaderField: "Retry-After"), now: Date())
            throw UpstreamError(
                .rateLimited, "the provider is rate limiting (429)" + (wait.map { "; retry after \(Int($0)) s" } ?? ""),
                status: status, retryAfter: wait, url: url)
        case 401, 403:
            throw UpstreamError(
                .unauthorized,
                status == 401
                    ? "the provider refused the session (401): sign the player in again"
                    : "the provider refused the player for this session (403): sign in as that player",
                status: status, url: url)
        case 500...599:
            throw UpstreamError(
                .server, "the provider failed (\(status)); try again later", status: status,
                retryAfter: RetryAfter.seconds(from: http.value(forHTTPHeaderField: "Retry-After"), now: Date()),
                url: url)
        case 400...499:
            throw UpstreamError(
                .client, "the provider refused the request (\(status)); check the base URL and the edition",
                status: status, url: url)
        default:
            throw UpstreamError(.invalidResponse, "unexpected status \(status)", status: status, url: url)
        }
    }

    /// Runs the request under the overall deadline, mapping transport failures.
    private func send(_ request: URLRequest, url: URL) async throws -> (Data, URLResponse) {
        let timeout = configuration.timeout
        let cap = configuration.maxResponseBytes
        do {
            return try await http.data(
                for: request, maxBytes: cap, within: Deadline.duration(seconds: timeout),
                timedOut: { UpstreamError(.timedOut, "the provider did not answer within \(timeout) s", url: url) })
        } catch let error as UpstreamError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch let error as HTTPTransfer.TooLarge {
            throw UpstreamError(
                .invalidResponse, "the answer is larger than \(cap) bytes (\(error.detail))", status: 200, url: url,
                cause: error)
        } catch let urlError as URLError {
            throw UpstreamError(urlError, url: url)
        } catch {
            throw UpstreamError(.transportFailed, "the request failed: \(error)", url: url, cause: error)
        }
    }

    /// The provider's collection envelope, its items decoded one by one (a bad record is skipped
    /// by the mapping, not fatal); an answer without an `items` array is refused (an error object
    /// would otherwise decode as an empty envelope, every field being optional).
    private func decodeEnvelope<Item: Codable & Sendable & Hashable>(
        of item: Item.Type, from data: Data, for request: ProviderRequest
    ) throws -> ProviderCollection<Lossy<Item>> {
        try decodeEnvelope(of: item, from: data, url: request.url(relativeTo: configuration.baseURL))
    }

    /// The collection envelope of an answer from `url` (see the overload above).
    func decodeEnvelope<Item: Codable & Sendable & Hashable>(
        of item: Item.Type, from data: Data, url: URL
    ) throws -> ProviderCollection<Lossy<Item>> {
        let envelope: ProviderCollection<Lossy<Item>>
        do {
            envelope = try JSONDecoder().decode(ProviderCollection<Lossy<Item>>.self, from: data)
        } catch {
            throw UpstreamError(
                .invalidResponse, "the answer is not the provider's JSON: \(DecodingFailure.describe(error))",
                status: 200,
                url: url, cause: error)
        }
        guard envelope.items != nil else {
            throw UpstreamError(.invalidResponse, "the answer has no items array", status: 200, url: url)
        }
        return envelope
    }

    private func logNotes(_ notes: [String], for request: ProviderRequest) {
        for note in notes {
            logger.debug(
                "provider record repaired or skipped",
                metadata: ["upstream.request": "\(request)", "upstream.note": "\(note)"])
        }
    }
}
