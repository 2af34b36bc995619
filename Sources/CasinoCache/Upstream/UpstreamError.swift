public import Foundation

/// Why an HTTP upstream got no usable answer, typed so the cache and the app can tell "offline"
/// (show cached data quietly) from "the server is failing" (report it) from "the answer was bad".
///
/// ``CatalogCache`` wraps it as the ``CacheError/cause`` of a `.upstreamFailed` error, so a
/// failed refresh can be told apart:
///
/// ```swift
/// for await update in cache.updates() {
///     if case .refreshFailed(let error, _, _) = update.event,
///         (error.cause as? UpstreamError)?.code == .offline {
///         banner.show("Offline: showing the lobby from your last visit")
///     }
/// }
/// ```
public struct UpstreamError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable code.
    public var code: Code
    /// The HTTP status, when the server answered.
    public var status: Int?
    /// How long the server asked the client to wait before trying again (`Retry-After`, in
    /// seconds), when it said so.
    public var retryAfter: TimeInterval?
    /// The request's URL.
    public var url: URL?
    /// What went wrong and what to do, for people.
    public var message: String
    /// The underlying error (a `URLError`, a `DecodingError`), when there is one.
    public var cause: (any Error & Sendable)?

    public init(
        _ code: Code, _ message: String, status: Int? = nil, retryAfter: TimeInterval? = nil, url: URL? = nil,
        cause: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.status = status
        self.retryAfter = retryAfter
        self.url = url
        self.cause = cause
    }

    public var description: String {
        var text = "\(code): \(message)"
        if let url { text += " (GET \(url.absoluteString))" }
        return text
    }

    /// A stable code per failure. Extensible: new failures add new static values.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// No network, or the server cannot be reached (connection refused or lost, host not
        /// found). Serve what is cached and try again when the network is back.
        public static let offline = Code(rawValue: "offline")
        /// The request took longer than the upstream's timeout.
        public static let timedOut = Code(rawValue: "timed-out")
        /// The server failed (`5xx`); ``UpstreamError/status`` says which.
        public static let server = Code(rawValue: "server")
        /// The server is rate limiting (`429`); ``UpstreamError/retryAfter`` says how long to wait.
        public static let rateLimited = Code(rawValue: "rate-limited")
        /// The server refused the request (`4xx` other than `401`, `403` and `429`): retrying the same request
        /// will not help.
        public static let client = Code(rawValue: "client")
        /// The server refused the player's session (`401`: missing or expired) or the player
        /// (`403`: the session is another player's). Sign the player in again; the cache drops the
        /// player's cached rows.
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// The server answered something unusable: not JSON, not the provider's envelope, too
        /// large, or an unexpected status.
        public static let invalidResponse = Code(rawValue: "invalid-response")
        /// The connection failed for another reason (TLS, a malformed URL, a refused redirect).
        public static let transportFailed = Code(rawValue: "transport-failed")
    }
}

extension UpstreamError {
    /// The `URLError` codes that mean the server cannot be reached right now.
    static let offlineURLErrors: Set<URLError.Code> = [
        .notConnectedToInternet, .cannotConnectToHost, .networkConnectionLost, .cannotFindHost, .dnsLookupFailed,
        .dataNotAllowed, .internationalRoamingOff, .callIsActive,
    ]

    /// The error for a transport failure of the request to `url`.
    init(_ error: URLError, url: URL) {
        if Self.offlineURLErrors.contains(error.code) {
            self.init(
                .offline,
                "the provider cannot be reached (URLError \(error.code.rawValue)); retry when the network is back",
                url: url, cause: error)
        } else if error.code == .timedOut {
            self.init(
                .timedOut, "the provider did not answer in time (URLError \(error.code.rawValue))", url: url,
                cause: error)
        } else if error.code == .badServerResponse || error.code == .cannotParseResponse {
            self.init(
                .invalidResponse, "the provider's answer is not valid HTTP (URLError \(error.code.rawValue))", url: url,
                cause: error)
        } else {
            self.init(.transportFailed, "the request failed (URLError \(error.code.rawValue))", url: url, cause: error)
        }
    }
}
