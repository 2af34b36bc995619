@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
public import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// Serving published snapshot sets (`catalog publish`), as a CDN would.
///
/// Routes, under ``CatalogSimulator/publishedPath`` (`/ota`):
/// - `GET /ota/manifest.json`: the signed manifest with a strong `ETag` (its SHA-256) and
///   `Cache-Control: no-cache`; a matching `If-None-Match` answers `304`.
/// - `GET /ota/files/<sha256>`: a content-addressed file, `Cache-Control: public, max-age=31536000,
///   immutable`; a name that is not 64 lowercase hex digits is a `404` before the disk is touched.
///   Injected faults apply to files as to the API routes (`{"kind": "longer", "path": "/ota/files/"}`:
///   a CDN serving the wrong bytes, a cut or stalled body, a status).
/// - `POST /_admin/published` with `{"directory": "/path/to/set", "fileDelayMilliseconds": 0}`:
///   switches to another set (or slows files down) at run time.
///
/// Files are read from the set's directory on every request and streamed, so a test may publish
/// into the directory, or damage it, while the simulator runs.
///
/// ```swift
/// simulator.servePublishedSet(at: publishedDirectory)
/// let manifestURL = base.appendingPathComponent("ota/manifest.json")
/// ```
extension CatalogSimulator {
    /// The path prefix published sets are served under: `/ota`.
    public static let publishedPath = "/ota"

    /// What the simulator serves of published sets, and what it served.
    struct PublishedState: Sendable {
        var directory: URL?
        var fileDelayMilliseconds = 0
        var statistics = PublishedStatistics()
    }

    /// What was served of published sets.
    public struct PublishedStatistics: Sendable, Hashable, Codable {
        /// `GET manifest.json` requests, `304`s included.
        public var manifestRequests = 0
        /// Of those, how many were answered `304`.
        public var notModified = 0
        /// `GET files/…` requests answered `200`.
        public var fileRequests = 0
        /// Bytes of files sent.
        public var fileBytes = 0
    }

    /// Serves the published set in `directory` from now on (`nil`: none, every route answers 404).
    public func servePublishedSet(at directory: URL?) {
        published.withLockedValue { $0.directory = directory }
    }

    /// Holds every published file's answer for `milliseconds` before sending it (0: none).
    public func delayPublishedFiles(milliseconds: Int) {
        published.withLockedValue { $0.fileDelayMilliseconds = max(0, min(milliseconds, 600_000)) }
    }

    /// What has been served of published sets.
    public func publishedStatistics() -> PublishedStatistics { published.withLockedValue { $0.statistics } }

    /// Forgets what has been served of published sets.
    public func resetPublishedStatistics() { published.withLockedValue { $0.statistics = PublishedStatistics() } }

    /// The routes of published sets; `makeApplication` calls it.
    func addPublishedRoutes(to router: Router<BasicRequestContext>) {
        router.get(RouterPath(stringLiteral: Self.publishedPath + "/" + SignedManifest.fileName)) { request, _ in
            self.servePublishedManifest(request)
        }
        router.get(RouterPath(stringLiteral: Self.publishedPath + "/" + PublishedManifest.filesDirectory + "/:sha256"))
        {
            request, context in
            await self.servePublishedFile(named: context.parameters.get("sha256") ?? "", request: request)
        }
        router.post("/_admin/published") { request, _ in
            struct Change: Decodable {
                var directory: String?
                var fileDelayMilliseconds: Int?
            }
            let body = try await request.body.collect(upTo: 1 << 16)
            guard let change = try? JSONDecoder().decode(Change.self, from: Data(String(buffer: body).utf8)) else {
                return Response(status: .badRequest)
            }
            if let directory = change.directory { self.servePublishedSet(at: URL(fileURLWithPath: directory)) }
            if let delay = change.fileDelayMilliseconds { self.delayPublishedFiles(milliseconds: delay) }
            return Response(status: .noContent)
        }
    }

    private func servePublishedManifest(_ request: Request) -> Response {
        let directory = published.withLockedValue { state -> URL? in
            state.statistics.manifestRequests += 1
            return state.directory
        }
        guard let url = directory?.appendingPathComponent(SignedManifest.fileName),
            let data = try? Data(contentsOf: url)
        else { return Response(status: .notFound) }
        let etag = "\"" + FileNaming.hexSHA256(data) + "\""
        var headers: HTTPFields = [.eTag: etag, .cacheControl: "no-cache"]
        if let match = request.headers[.ifNoneMatch],
            match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag })
        {
            published.withLockedValue { $0.statistics.notModified += 1 }
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: Self.streamed(url, size: data.count))
    }

    private func servePublishedFile(named name: String, request: Request) async -> Response {
        guard PublishedManifest.isSHA256Hex(name) else { return Response(status: .notFound) }
        let (directory, delay) = published.withLockedValue { ($0.directory, $0.fileDelayMilliseconds) }
        guard
            let url = directory?.appendingPathComponent(PublishedManifest.filesDirectory).appendingPathComponent(name),
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int
        else { return Response(status: .notFound) }
        if delay > 0 { try? await Self.pause(milliseconds: delay) }
        published.withLockedValue {
            $0.statistics.fileRequests += 1
            $0.statistics.fileBytes += size
        }
        let fault = decide(path: request.uri.path, query: request.uri.query ?? "").1
        if let fault {
            if fault.kind == .status { return Self.failure(status: fault.status ?? 500) }
            guard let data = try? Data(contentsOf: url) else { return Response(status: .notFound) }
            var response = respond(data, to: request, maxAge: 0, fault: fault)
            response.headers[.contentType] = "application/octet-stream"
            return response
        }
        let headers: HTTPFields = [
            .contentType: "application/octet-stream", .cacheControl: "public, max-age=31536000, immutable",
            .eTag: "\"\(name)\"",
        ]
        return Response(status: .ok, headers: headers, body: Self.streamed(url, size: size))
    }

    /// The file's bytes in 64 KiB pieces: a large set is never held in memory.
    private static func streamed(_ url: URL, size: Int) -> ResponseBody {
        ResponseBody(contentLength: size) { writer in
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            while let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty {
                try await writer.write(ByteBuffer(bytes: chunk))
            }
            try await writer.finish(nil)
        }
    }
}
