@_spi(CatalogTools) import CatalogPipeline
public import Foundation
import Hummingbird

/// Serving the catalogue's images, as its CDN would, so image fetches run over real loopback HTTP.
///
/// `GET /images/<host>/<path>` answers the image whose URL is `https://<host>/<path>` with the
/// `Content-Type` it was recorded with, a strong `ETag` (`304` on a match) and the simulator's
/// latency and faults: a `.status` fault (`404`), `.body` (HTML served as `image/jpeg`),
/// `.truncated`, `.oversized` (a 2 GiB body) or `.redirect` (to the fault's `body`, a URL).
/// Point an image fetch here with a host rewrite (``imageBaseURL(for:)``).
///
/// ```swift
/// var fetch = ImageFetcher.Configuration(bundling: bundling)
/// fetch.hostRewrites = ["static.example-cdn.com": simulator.imageBaseURL(for: "static.example-cdn.com")!]
/// ```
extension CatalogSimulator {
    /// The path prefix images are served under: `/images`.
    public static let imagesPath = "/images"

    /// Where the running simulator serves the images of `host`
    /// (`http://127.0.0.1:54321/images/static.example-cdn.com`), or `nil` when stopped.
    public func imageBaseURL(for host: String) -> URL? {
        baseURL.map {
            $0.appendingPathComponent(String(Self.imagesPath.dropFirst())).appendingPathComponent(host.lowercased())
        }
    }

    /// Every image URL the simulator serves, sorted.
    public var imageURLs: [String] { catalog.images.keys.sorted() }

    func addImageRoutes(to router: Router<BasicRequestContext>) {
        router.get("\(Self.imagesPath)/**") { request, _ in
            await self.serveImage(request)
        }
    }

    private func serveImage(_ request: Request) async -> Response {
        let path = request.uri.path
        let (settings, fault, delay, _) = decide(path: path, query: request.uri.query ?? "")
        if delay > 0 { try? await Self.pause(milliseconds: delay) }
        let response: Response
        let suffix = path.dropFirst(Self.imagesPath.count + 1)  // <host>/<path>
        let query = request.uri.query.map { "?\($0)" } ?? ""
        if fault?.kind == .status {
            response = Self.failure(status: fault?.status ?? 500, retryAfter: settings.retryAfterSeconds)
        } else if fault?.kind == .redirect {
            var headers: HTTPFields = [:]
            headers[.location] = fault?.body ?? "/"
            response = Response(status: .found, headers: headers)
        } else if let image = catalog.images["https://\(suffix)\(query)"] {
            var answer = respond(image.data, to: request, maxAge: settings.maxAgeSeconds, fault: fault)
            if answer.status == .ok { answer.headers[.contentType] = image.contentType }
            response = answer
        } else {
            response = Self.failure(status: 404, message: "no image at https://\(suffix.prefix(200))")
        }
        count(response, path: Self.imagesPath)
        return response
    }
}
