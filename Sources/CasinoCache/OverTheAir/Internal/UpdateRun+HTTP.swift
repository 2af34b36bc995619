import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension UpdateRun {
    /// A `200`'s body and validator.
    struct Answer {
        var body: Data
        var etag: String?
    }

    /// GETs `url` within ``SnapshotUpdater/Configuration/requestTimeout``, refusing a body over
    /// `maxBytes` (announced or received).
    ///
    /// - Returns: The `200` answer, or `nil` for a `304` to an `If-None-Match`.
    /// - Throws: ``SnapshotUpdateError``: `.overLimit`, `.httpStatus`, `.offline`, `.timedOut`, `.transportFailed`.
    func get(_ url: URL, etag: String?, maxBytes: Int) async throws -> Answer? {
        var request = URLRequest(
            url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: configuration.requestTimeout)
        request.httpMethod = "GET"
        for (name, value) in configuration.additionalHeaders { request.setValue(value, forHTTPHeaderField: name) }
        if let etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        let timeout = configuration.requestTimeout
        guard let http else {
            throw SnapshotUpdateError(
                .invalidConfiguration, "an offline inspection makes no request", location: url.absoluteString)
        }
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await http.data(
                for: request, maxBytes: maxBytes, within: Deadline.duration(seconds: timeout),
                timedOut: {
                    SnapshotUpdateError(.timedOut, "no whole answer within \(timeout) s", location: url.absoluteString)
                })
        } catch let error as SnapshotUpdateError {
            throw error
        } catch let error as HTTPTransfer.TooLarge {
            throw Self.overLimit(url, maxBytes, error.detail)
        } catch let error as CancellationError {
            throw error
        } catch {
            let code: SnapshotUpdateError.Code =
                switch (error as? URLError)?.code {
                case .timedOut?: .timedOut
                case .notConnectedToInternet?, .cannotConnectToHost?, .networkConnectionLost?, .cannotFindHost?,
                    .dnsLookupFailed?:
                    .offline
                default: .transportFailed
                }
            throw SnapshotUpdateError(
                code, "the request failed: \(error.localizedDescription)", location: url.absoluteString, cause: error)
        }
        guard let http = response as? HTTPURLResponse else {
            throw SnapshotUpdateError(.transportFailed, "the answer is not HTTP", location: url.absoluteString)
        }
        switch http.statusCode {
        case 200:
            return Answer(body: data, etag: http.value(forHTTPHeaderField: "ETag"))
        case 304 where etag != nil:
            return nil
        case 400...499:
            throw SnapshotUpdateError(
                .httpStatus,
                "the server answered \(http.statusCode): the published set has no such file, or refuses the app; "
                    + "check the manifest URL and that every file of the set was uploaded",
                location: url.absoluteString)
        default:
            throw SnapshotUpdateError(
                .httpStatus, "the server answered \(http.statusCode); try again later", location: url.absoluteString)
        }
    }

    private static func overLimit(_ url: URL, _ maxBytes: Int, _ detail: String) -> SnapshotUpdateError {
        SnapshotUpdateError(
            .overLimit, "the answer is larger than \(maxBytes) bytes (\(detail))", location: url.absoluteString)
    }
}
