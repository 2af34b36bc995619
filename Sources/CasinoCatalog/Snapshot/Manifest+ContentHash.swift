import CatalogSupport
import Foundation

@_spi(CatalogTools) extension Manifest {
    /// The manifest's ``contentHash``, computed from its own entries: `sha256:` and the lowercase hex
    /// SHA-256 of a UTF-8 text made of one line per file, `<key>` TAB `<entry contentHash>` LF,
    /// sorted by their bytes; then, when images are bundled, one line per image, `image` TAB `<url>`
    /// TAB `<sha256>` LF, sorted the same way. No separator between the two groups and nothing after
    /// the last LF. It is equal whenever the content is, whatever `generatedAt` or the file bytes.
    ///
    /// ```
    /// en-iPhone/categories\tsha256:0f7b…\n
    /// en-iPhone/games/VIDEOSLOTS/0\tsha256:9c21…\n
    /// image\thttps://cdn.example.com/a.jpg\t1c9e…\n
    /// ```
    ///
    /// The pipeline writes it; ``contentHashViolation()`` checks it where a snapshot is accepted.
    public static func contentHash(of files: [Entry], images: [Image]?) -> String {
        let fileLines = files.map { "\($0.key)\t\($0.contentHash)\n" }
        let imageLines = (images ?? []).map { "image\t\($0.url)\t\($0.sha256)\n" }
        let text = byteOrdered(fileLines).joined() + byteOrdered(imageLines).joined()
        return CatalogRules.contentHashPrefix + SHA256Digest.hex(Data(text.utf8))
    }

    /// `lines` in the order of their UTF-8 bytes (Swift's `String` order is by Unicode scalars
    /// after normalization: the same for ASCII, not for every text).
    private static func byteOrdered(_ lines: [String]) -> [String] {
        lines.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
