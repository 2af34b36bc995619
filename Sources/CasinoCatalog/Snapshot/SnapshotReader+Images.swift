public import Foundation

@_spi(CatalogTools) extension SnapshotReader {
    /// The verified bytes of a bundled image the manifest lists.
    ///
    /// The file is opened inside the directory as every snapshot file is (no link followed, no path
    /// leaving it), refused unread when the manifest's size is over ``SnapshotLimits/maxImageBytes``
    /// or the file's size is not the manifest's, then its SHA-256 (checked as every snapshot file's)
    /// and its sniffed type (`ImageSniffer`) must be the manifest's. The bytes are not decoded.
    ///
    /// ```swift
    /// let image = manifest.images!.first!
    /// let bytes = try reader.image(image)        // hand them to the app's image library
    /// ```
    ///
    /// - Parameters:
    ///   - image: An entry of the manifest's `images`.
    ///   - verifyingChecksum: Whether to compute the SHA-256; `false` only to re-read a file whose
    ///     digest was verified before (its size and type are still checked). `true` by default.
    /// - Returns: The file's bytes, exactly `image.bytes` long.
    /// - Throws: `SnapshotReadError`: `.unsafePath` (a path other than `images/<sha256>.<ext>`),
    ///   `.tooLarge`, `.notFound`, `.notRegularFile`, `.sizeMismatch`, `.io`, `.checksumMismatch`,
    ///   `.wrongMediaType`.
    public func image(_ image: Manifest.Image, verifyingChecksum: Bool = true) throws(SnapshotReadError) -> Data {
        if let problem = limits.problem {
            throw SnapshotReadError(.tooLarge, file: image.path, "unusable snapshot limits: \(problem)")
        }
        // The name must be the one the digest and type give: nothing from a URL or free text.
        guard Manifest.isDigest(image.sha256, prefix: ""),
            image.path == Manifest.Image.path(sha256: image.sha256, mediaType: image.mediaType)
        else {
            throw SnapshotReadError(
                .unsafePath, file: String(image.path.prefix(200)),
                "is not images/<sha256>.<ext> for its digest and type")
        }
        guard (1...limits.maxImageBytes).contains(image.bytes) else {
            throw SnapshotReadError(
                .tooLarge, file: image.path,
                "the manifest gives it \(image.bytes) bytes; the cap (maxImageBytes) is 1...\(limits.maxImageBytes)")
        }
        let data = try ContainedFileReader.contents(
            of: image.path, in: directory, maxBytes: limits.maxImageBytes, expectedBytes: image.bytes,
            directories: directories)
        if verifyingChecksum { try requireDigest(of: data, is: image.sha256, file: image.path) }
        switch ImageSniffer.sniff(data) {
        case .success(let type) where type == image.mediaType:
            return data
        case .success(let type):
            throw SnapshotReadError(
                .wrongMediaType, file: image.path,
                "holds \(type.rawValue), the manifest says \(image.mediaType.rawValue)")
        case .failure(let refusal):
            throw SnapshotReadError(.wrongMediaType, file: image.path, "is not an image: \(refusal)")
        }
    }
}
