@_spi(CatalogTools) import CatalogPipeline
public import Foundation

/// An image the simulator serves: its bytes and the `Content-Type` it claims (which may lie).
public struct SimulatedImage: Sendable, Hashable {
    public var data: Data
    public var contentType: String

    public init(data: Data, contentType: String) {
        self.data = data
        self.contentType = contentType
    }

    /// The images of a recording's `images/` directory by URL; none when it has no such directory.
    static func load(recording directory: URL) throws -> [String: SimulatedImage] {
        let imagesDirectory = directory.appendingPathComponent("images")
        guard
            FileManager.default.fileExists(
                atPath: imagesDirectory.appendingPathComponent(RecordedImages.indexFileName).path)
        else { return [:] }
        let recorded = try RecordedImages(directory: imagesDirectory)
        var images: [String: SimulatedImage] = [:]
        for (url, entry) in recorded.index {
            guard case .success(let data)? = recorded.body(for: url, maxBytes: 64 << 20) else { continue }
            images[url] = SimulatedImage(data: data, contentType: entry.contentType ?? "application/octet-stream")
        }
        return images
    }
}
