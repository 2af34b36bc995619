import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// What the catalogue fetch and the image fetch share about one attempt: the request they send,
/// and the race that bounds it (head and body) by a deadline.
enum ConditionalGET {
    /// A `GET` of `url` with the pipeline's `User-Agent`, `accept`, and `If-None-Match: etag`.
    static func request(_ url: URL, accept: String, acceptsCompression: Bool, etag: String?) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .GET
        request.headers.add(name: "Accept", value: accept)
        if acceptsCompression { request.headers.add(name: "Accept-Encoding", value: "gzip, deflate") }
        request.headers.add(name: "User-Agent", value: "\(CatalogPipeline.name)/\(CatalogPipeline.version)")
        if let etag { request.headers.add(name: "If-None-Match", value: etag) }
        return request
    }

    /// `exchange(deadline)`'s answer, or `nil` when `deadline` passes first. The client's own
    /// deadline covers the response head only; the race also bounds the body.
    static func bounded<Answer: Sendable>(
        by deadline: NIODeadline, _ exchange: @escaping @Sendable (NIODeadline) async -> Answer
    ) async -> Answer? {
        await withTaskGroup(of: Answer?.self) { group in
            group.addTask { await exchange(deadline) }
            group.addTask {
                try? await Task.sleep(for: .nanoseconds(max((deadline - NIODeadline.now()).nanoseconds, 0)))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
