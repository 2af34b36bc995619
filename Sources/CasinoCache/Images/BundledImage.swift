@_spi(CatalogTools) public import CasinoCatalog
public import Foundation

/// An image shipped inside the app's snapshot, verified and ready for the app's image library to
/// decode.
///
/// The runtime never decodes images: it checks the bytes are the file the manifest lists (size,
/// SHA-256) and one of the bundled formats (``mediaType``, sniffed from the bytes).
///
/// ```swift
/// if let image = cache.bundledImage(for: game.thumbnail) {
///     cell.imageView.image = UIImage(data: image.data)     // on the first frame, offline
/// }
/// ```
public struct BundledImage: Sendable, Hashable {
    /// The URL the game names, as in the snapshot.
    public let url: String
    /// The image file's bytes.
    public let data: Data
    /// The format the bytes are (JPEG, PNG, WebP or GIF).
    public let mediaType: ImageMediaType

    public init(url: String, data: Data, mediaType: ImageMediaType) {
        self.url = url
        self.data = data
        self.mediaType = mediaType
    }
}
