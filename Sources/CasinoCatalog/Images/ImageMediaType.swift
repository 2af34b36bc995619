/// The image formats a snapshot may bundle, named by their media type.
///
/// A bundled image's type is what `ImageSniffer` finds in its bytes, never what a server's
/// `Content-Type` or a URL's extension claims. The app's image library decodes; the runtime only
/// checks which of these four the bytes are.
public enum ImageMediaType: String, Codable, Sendable, Hashable, CaseIterable {
    /// JPEG (JFIF or Exif): `FF D8 FF` … `FF D9`.
    case jpeg = "image/jpeg"
    /// PNG: the 8-byte signature, `IHDR` first, `IEND` last.
    case png = "image/png"
    /// WebP: a `RIFF` container of form `WEBP` holding a `VP8 `, `VP8L` or `VP8X` chunk.
    case webp = "image/webp"
    /// GIF87a or GIF89a, ending in the `;` trailer.
    case gif = "image/gif"

    /// The file name extension a snapshot gives images of this type: `jpg`, `png`, `webp`, `gif`.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .gif: "gif"
        }
    }

    /// The type whose ``fileExtension`` is `fileExtension`, or `nil`.
    public init?(fileExtension: String) {
        guard let match = Self.allCases.first(where: { $0.fileExtension == fileExtension }) else { return nil }
        self = match
    }
}
