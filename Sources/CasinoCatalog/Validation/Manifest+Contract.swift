@_spi(CatalogTools) extension Manifest {
    /// Every rule of the snapshot contract the manifest breaks, for a reader with `limits`;
    /// empty when its files may be opened.
    ///
    /// Checked before any file is read: the editions (listed, sorted, unique, the default among
    /// them), the page size, the number of files, and for each entry a safe relative path, a
    /// listed edition, unique paths and keys, sizes and counts within range (every integer in a
    /// manifest is hostile: negative or `Int.max` sizes are refused here, before any arithmetic),
    /// and well-formed hashes. What needs the files (sizes, digests) is checked by
    /// `SnapshotReader` and the pipeline's validator; the content hash by
    /// ``contentHashViolation()``.
    ///
    /// - Parameter limits: The caps the reader applies.
    /// - Returns: The rules broken, each with its path (`files[3].uncompressedBytes`).
    public func violations(limits: SnapshotLimits) -> [Violation] {
        var check = ViolationCollector()
        if schemaVersion != CatalogSchema.version {
            check.add(
                .outOfRange, at: "schemaVersion", "is \(schemaVersion), this build reads \(CatalogSchema.version)")
        }
        if editions.isEmpty {
            check.add(.emptyField, at: "editions", "lists no edition")
        } else if !zip(editions, editions.dropFirst()).allSatisfy({ $0 < $1 }) {
            check.add(.malformed, at: "editions", "must be sorted and unique")
        }
        if !editions.contains(defaultEdition) {
            check.add(.malformed, at: "defaultEdition", "\(defaultEdition) is not one of the editions")
        }
        if !(1...CatalogRules.maxPageSize).contains(pageSize) {
            check.add(.outOfRange, at: "pageSize", "must be 1...\(CatalogRules.maxPageSize), got \(pageSize)")
        }
        if !Self.isDigest(contentHash, prefix: CatalogRules.contentHashPrefix) {
            check.add(.malformed, at: "contentHash", "must be sha256: and 64 lowercase hex digits")
        }
        guard files.count <= limits.maxFileCount else {
            // Not one entry is looked at: the count alone makes the manifest unusable.
            check.add(
                .outOfRange, at: "files",
                "lists \(files.count) files, over the cap of \(limits.maxFileCount) (maxFileCount)")
            return check.violations
        }
        let editionSet = Set(editions)
        var keys = Set<SnapshotKey>(minimumCapacity: files.count)
        var previousPath: String?
        for (index, entry) in files.enumerated() {
            entry.check(into: &check, at: index, limits: limits)
            if !editionSet.contains(entry.edition) {
                check.add(.malformed, at: "files[\(index)].key", "edition \(entry.edition) is not listed in editions")
            }
            if !keys.insert(entry.key).inserted {
                check.add(.duplicateID, at: "files[\(index)].key", "\(entry.key) is listed twice")
            }
            // Sorted by path, a path listed twice is listed twice in a row: no set of paths needed.
            if let previousPath, previousPath >= entry.path {
                if previousPath == entry.path {
                    check.add(.duplicateID, at: "files[\(index)].path", "\(entry.path.prefix(200)) is listed twice")
                } else {
                    check.add(.malformed, at: "files[\(index)].path", "files must be sorted by path")
                }
            }
            previousPath = entry.path
        }
        checkImages(into: &check, limits: limits)
        return check.violations
    }

    /// The broken rule when ``contentHash`` is not the hash of the manifest's own entries and images
    /// (``contentHash(of:images:)``): the manifest was edited or spliced after it was written.
    ///
    /// Checked where a snapshot is accepted: by the pipeline's validator (every `make snapshot` and
    /// `catalog validate`) and by the over-the-air updater before it installs. Not by the app at
    /// launch: the 110 µs it costs on a 101-file manifest would be a tenth of the first frame, and
    /// each bundled file is still checked against its own entry when read.
    public func contentHashViolation() -> Violation? {
        let expected = Self.contentHash(of: files, images: images)
        guard contentHash != expected else { return nil }
        return Violation(
            .malformed, at: "contentHash",
            "is \(contentHash.prefix(80)), the files and images listed hash to \(expected): "
                + "the manifest was changed after it was written; build the snapshot again (make snapshot)")
    }

    /// Whether `text` is `prefix` followed by the 64 lowercase hex digits of a SHA-256.
    @_spi(CatalogTools) public static func isDigest(_ text: String, prefix: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.count == prefix.utf8.count + CatalogRules.sha256HexLength, utf8.starts(with: prefix.utf8) else {
            return false
        }
        var index = utf8.index(utf8.startIndex, offsetBy: prefix.utf8.count)
        while index != utf8.endIndex {
            switch utf8[index] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"):
                utf8.formIndex(after: &index)
            default: return false
            }
        }
        return true
    }
}

@_spi(CatalogTools) extension Manifest.Entry {
    /// Adds the rules the entry at `index` of `files` breaks. (Its record path is built only for a
    /// broken rule: every app launch checks every entry.)
    fileprivate func check(into check: inout ViolationCollector, at index: Int, limits: SnapshotLimits) {
        var path: String { "files[\(index)]" }
        if !CatalogRules.isSafeRelativePath(self.path) {
            check.add(.unsafePath, at: "\(path).path", "'\(self.path.prefix(200))' could leave the snapshot directory")
        }
        if !(0...limits.maxFileBytes).contains(compressedBytes) {
            check.add(
                .outOfRange, at: "\(path).compressedBytes",
                "must be 0...\(limits.maxFileBytes) (maxFileBytes), got \(compressedBytes)")
        }
        if !(0...limits.maxInflatedBytes).contains(uncompressedBytes) {
            check.add(
                .outOfRange, at: "\(path).uncompressedBytes",
                "must be 0...\(limits.maxInflatedBytes) (maxInflatedBytes), got \(uncompressedBytes)")
        }
        let maxCount = kind == .categories ? CatalogRules.maxGamesTotal : CatalogRules.maxPageSize
        if !(0...maxCount).contains(count) {
            check.add(.outOfRange, at: "\(path).count", "must be 0...\(maxCount), got \(count)")
        }
        if !(0...CatalogRules.maxGamesTotal).contains(total) {
            check.add(.outOfRange, at: "\(path).total", "must be 0...\(CatalogRules.maxGamesTotal), got \(total)")
        }
        if !Manifest.isDigest(sha256, prefix: "") {
            check.add(.malformed, at: "\(path).sha256", "must be 64 lowercase hex digits")
        }
        if !Manifest.isDigest(contentHash, prefix: CatalogRules.contentHashPrefix) {
            check.add(.malformed, at: "\(path).contentHash", "must be sha256: and 64 lowercase hex digits")
        }
    }
}
