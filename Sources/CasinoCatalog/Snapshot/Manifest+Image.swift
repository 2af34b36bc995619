@_spi(CatalogTools) extension Manifest {
    /// One bundled image: the URL a game names and the content-addressed file holding its bytes.
    ///
    /// Files are named by their SHA-256 (`images/<sha256>.<ext>`), never by anything from a URL, so
    /// one file serves every URL with the same bytes, and a hostile URL never reaches the file
    /// system. Several entries may name one file; they then agree on its size, digest and type.
    ///
    /// ```json
    /// {"url": "https://static.example-cdn.com/c/34795.jpg", "path": "images/9f86…08.jpg",
    ///  "bytes": 412, "sha256": "9f86…08", "mediaType": "image/jpeg"}
    /// ```
    public struct Image: Codable, Sendable, Hashable {
        /// The absolute https URL as the snapshot's games name it (`thumbnail`, `backgroundImageUrl`).
        public var url: String
        /// The file relative to the snapshot directory: `images/<sha256>.<extension of mediaType>`.
        public var path: String
        /// The file's size in bytes.
        public var bytes: Int
        /// The hex SHA-256 of the file's bytes.
        public var sha256: String
        /// The format sniffed from the bytes when the snapshot was written.
        public var mediaType: ImageMediaType

        public init(url: String, path: String, bytes: Int, sha256: String, mediaType: ImageMediaType) {
            self.url = url
            self.path = path
            self.bytes = bytes
            self.sha256 = sha256
            self.mediaType = mediaType
        }

        /// The directory of a snapshot that holds its images: `images`.
        public static let directoryName = "images"

        /// Where the image with `sha256` and `mediaType` lives: `images/<sha256>.<ext>`.
        public static func path(sha256: String, mediaType: ImageMediaType) -> String {
            "\(directoryName)/\(sha256).\(mediaType.fileExtension)"
        }
    }
}
