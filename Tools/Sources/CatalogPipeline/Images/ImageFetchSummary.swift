/// What one ``ImageFetcher/fetch(_:into:)`` did.
///
/// ```
/// 52 images: 48 fetched, 3 not modified, 1 failed; 57 requests (2 retries), 24.1 KiB received
/// ```
public struct ImageFetchSummary: Sendable, Hashable, CustomStringConvertible {
    /// URLs asked for.
    public var images = 0
    /// Answered `200` with a body within the cap.
    public var fetched = 0
    /// Answered `304`: the previous body was kept.
    public var notModified = 0
    /// Refused or failed: each has a warning.
    public var failed = 0
    /// HTTP requests sent, retries and redirects included.
    public var requests = 0
    /// Requests that were attempts after a failure.
    public var retries = 0
    /// Body bytes received.
    public var bytesReceived = 0
    /// Every URL refused or failed, with why; their games keep their URLs.
    public var warnings: [PipelineWarning] = []

    public init() {}

    public var description: String {
        "\(images) images: \(fetched) fetched, \(notModified) not modified, \(failed) failed; \(requests) requests "
            + "(\(retries) retries), \(FetchSummary.format(bytes: bytesReceived)) received"
    }
}
