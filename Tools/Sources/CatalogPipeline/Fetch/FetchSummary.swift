@_spi(CatalogTools) import CasinoCatalog

/// What one ``HTTPFetcher/fetch(into:)`` did: requests, retries, revalidations, bytes and time.
///
/// ```
/// 202 requests (7 retries, 195 not modified), 38 KiB received, 203 files written in 1.84 s
/// ```
public struct FetchSummary: Sendable, Hashable, CustomStringConvertible {
    /// HTTP requests sent, retries included.
    public var requests = 0
    /// Requests that were attempts after a failure.
    public var retries = 0
    /// `304 Not Modified` answers, whose bodies were taken from the previous recording.
    public var notModified = 0
    /// Response body bytes received over the network (after decompression), failed attempts included.
    public var bytesReceived = 0
    /// Files written into the recording: responses, `etags.json` and `recording.json`.
    public var filesWritten = 0
    /// Wall time from the first request to the published recording.
    public var elapsed: Duration = .zero

    public init() {}

    public var description: String {
        let seconds = elapsed.timeInterval
        return "\(requests) requests (\(retries) retries, \(notModified) not modified), "
            + "\(FetchSummary.format(bytes: bytesReceived)) received, \(filesWritten) files written in "
            + "\((seconds * 100).rounded() / 100) s"
    }

    /// `512 B`, `38.2 KiB`, `4.1 MiB`.
    static func format(bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1 << 20 { return "\((Double(bytes) / 102.4).rounded() / 10) KiB" }
        return "\((Double(bytes) / 104_857.6).rounded() / 10) MiB"
    }
}
