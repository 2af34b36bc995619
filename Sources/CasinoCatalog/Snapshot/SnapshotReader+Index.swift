import Foundation

@_spi(CatalogTools) extension SnapshotReader {
    /// Reads and checks `index.json` (`SnapshotIndex`); `nil` when the directory has none, so
    /// the caller reads ``manifest()`` instead.
    ///
    /// - Throws: `SnapshotReadError` as ``manifest()`` does: the index is a link, over
    ///   ``SnapshotLimits/maxManifestBytes``, not JSON of an index, of another schema version, or
    ///   breaks a rule (`SnapshotIndex/violations(limits:)`).
    public func index() throws(SnapshotReadError) -> SnapshotIndex? {
        let file = SnapshotIndex.fileName
        try checkLimits(file: file)
        let data: Data
        do {
            data = try ContainedFileReader.contents(of: file, in: directory, maxBytes: limits.maxManifestBytes)
        } catch  where error.code == .notFound {
            return nil
        }
        let index = try decoded(SnapshotIndex.self, from: data, file: file, what: "a snapshot index")
        guard index.head.schemaVersion == CatalogSchema.version else {
            throw foreignSchema(index.head.schemaVersion, file: file)
        }
        try require(index.violations(limits: limits), file: file)
        return index
    }

    /// The manifest without its entries and images, for what needs only its head (when it was
    /// generated, its editions): the index's `SnapshotIndex/head`, or without an index the
    /// manifest's, read and checked whole (`Manifest/head`).
    ///
    /// - Throws: `SnapshotReadError` as ``index()`` or ``manifest()`` does.
    public func head() throws(SnapshotReadError) -> Manifest {
        if let index = try index() { return index.head }
        return try manifest().head
    }

    /// The manifest of one edition: `index`'s head with the entries of the edition's table (an
    /// ``EditionTable``, at most ``SnapshotLimits/maxManifestBytes``), which must keep the
    /// manifest's rules and all be of `edition`.
    ///
    /// - Throws: `SnapshotReadError`: `.notFound` when `index` does not list `edition` or its table
    ///   is missing, `.undecodable` for a table that is not one (its line named, a truncated one
    ///   included), else as ``manifest()`` does.
    public func manifest(
        of edition: Edition, in index: SnapshotIndex
    ) throws(SnapshotReadError) -> Manifest {
        guard index.head.editions.contains(edition) else {
            throw SnapshotReadError(.notFound, file: SnapshotIndex.fileName, "does not list edition \(edition)")
        }
        let file = SnapshotIndex.path(of: edition)
        let bytes = try tableOfContents(file)
        let entries: [Manifest.Entry]
        do {
            entries = try EditionTable.parse(bytes)
        } catch {
            throw SnapshotReadError(.undecodable, file: file, "is not an edition's table: \(error)")
        }
        var manifest = index.head
        manifest.files = entries
        var violations = manifest.violations(limits: limits)
        for (position, entry) in entries.enumerated() where entry.edition != edition {
            violations.append(Violation(.malformed, at: "files[\(position)].key", "is not of edition \(edition)"))
        }
        try require(violations, file: file)
        return manifest
    }

    /// The images the index's image list names, checked as a manifest's are; `nil` when it has none.
    ///
    /// - Throws: `SnapshotReadError` as ``manifest(of:in:)`` does.
    public func images(in index: SnapshotIndex) throws(SnapshotReadError) -> [Manifest.Image]? {
        guard let count = index.imageCount else { return nil }
        let file = SnapshotIndex.imagesPath
        let list = try decoded(
            SnapshotIndex.ImageList.self, from: try tableOfContents(file), file: file, what: "an image list")
        guard list.schemaVersion == CatalogSchema.version else { throw foreignSchema(list.schemaVersion, file: file) }
        var manifest = index.head
        manifest.images = list.images
        var violations = manifest.violations(limits: limits)
        if list.images.count != count {
            violations.append(
                Violation(.malformed, at: "images", "lists \(list.images.count); index.json says \(count)"))
        }
        try require(violations, file: file)
        return list.images
    }
}

@_spi(CatalogTools) extension SnapshotIndex {
    /// Every rule of the snapshot contract the index breaks, for a reader with `limits`: the
    /// manifest's rules for its head (`Manifest/violations(limits:)`: editions listed, sorted and
    /// unique, the default among them, …), no entries or images of its own, and an image count
    /// within ``SnapshotLimits/maxImageCount``.
    public func violations(limits: SnapshotLimits) -> [Violation] {
        var violations = head.violations(limits: limits)
        if !head.files.isEmpty || head.images != nil {
            violations.append(
                Violation(.malformed, at: "files", "must be empty, with no images: they are in the index's parts"))
        }
        if let imageCount, !(0...limits.maxImageCount).contains(imageCount) {
            violations.append(
                Violation(.outOfRange, at: "imageCount", "must be 0...\(limits.maxImageCount), got \(imageCount)"))
        }
        return violations
    }
}
