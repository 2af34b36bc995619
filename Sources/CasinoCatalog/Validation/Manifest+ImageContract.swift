@_spi(CatalogTools) extension Manifest {
    /// Adds the rules the `images` section breaks: at most ``SnapshotLimits/maxImageCount`` entries
    /// sorted by unique URL; each an absolute https URL, a size in `1...maxImageBytes`, a
    /// well-formed digest and the path `images/<sha256>.<ext>` that digest and type give (so no
    /// path comes from a URL); entries naming one file agree on it; the files, each counted once,
    /// within ``SnapshotLimits/maxImageTotalBytes``. Every integer is bounded before it is summed.
    func checkImages(into check: inout ViolationCollector, limits: SnapshotLimits) {
        guard let images else { return }
        guard images.count <= limits.maxImageCount else {
            check.add(
                .outOfRange, at: "images",
                "lists \(images.count) images, over the cap of \(limits.maxImageCount) (maxImageCount)")
            return
        }
        var files: [String: Image] = [:]
        var total = 0
        var previousURL: String?
        for (index, image) in images.enumerated() {
            let at = "images[\(index)]"
            if !CatalogRules.isAbsoluteHTTPS(image.url) {
                check.add(.invalidURL, at: "\(at).url", "must be an absolute https URL, got '\(image.url.prefix(200))'")
            }
            if let previousURL, previousURL >= image.url {
                check.add(.malformed, at: "\(at).url", "images must be sorted by URL, each listed once")
            }
            previousURL = image.url
            let isSized = (1...limits.maxImageBytes).contains(image.bytes)
            if !isSized {
                check.add(
                    .outOfRange, at: "\(at).bytes",
                    "must be 1...\(limits.maxImageBytes) (maxImageBytes), got \(image.bytes)")
            }
            let isDigest = Manifest.isDigest(image.sha256, prefix: "")
            if !isDigest {
                check.add(.malformed, at: "\(at).sha256", "must be 64 lowercase hex digits")
            } else if image.path != Image.path(sha256: image.sha256, mediaType: image.mediaType) {
                check.add(
                    .unsafePath, at: "\(at).path",
                    "must be \(Image.path(sha256: image.sha256, mediaType: image.mediaType)), got '\(image.path.prefix(200))'"
                )
            }
            if let first = files[image.path] {
                if first.bytes != image.bytes || first.sha256 != image.sha256 || first.mediaType != image.mediaType {
                    check.add(
                        .malformed, at: at, "names \(image.path.prefix(200)) as another entry does, but disagrees on it"
                    )
                }
            } else {
                files[image.path] = image
                // Each addend is at most maxImageBytes ≤ 1 GiB, and there are at most maxImageCount ≤ 1 GiB
                // of them: the sum stays far below Int.max on 64-bit platforms, and is capped anyway.
                if isSized { total = min(total + image.bytes, Int.max / 2) }
            }
        }
        if total > limits.maxImageTotalBytes {
            check.add(
                .outOfRange, at: "images",
                "the image files take \(total) bytes, over the cap of \(limits.maxImageTotalBytes) (maxImageTotalBytes)"
            )
        }
    }

    /// The distinct image files the `images` section lists (one entry per path), sorted by path.
    public var imageFiles: [Image] {
        var seen = Set<String>()
        return (images ?? []).sorted { $0.path < $1.path }.filter { seen.insert($0.path).inserted }
    }
}
