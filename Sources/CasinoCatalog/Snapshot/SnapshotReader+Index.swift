import Foundation

extension SnapshotReader {
    /// Reads and checks `index.json` (``SnapshotIndex``); `nil` when the directory has none, so
    /// the caller reads ``manifest()`` instead.
    ///
    /// - Throws: ``SnapshotReadError`` as ``manifest()`` does: the index is a link, over
    ///   ``SnapshotLimits/maxManifestBytes``, not JSON of an index, of another schema version, or
    ///   breaks a rule (``SnapshotIndex/violations(limits:)``).
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
        guard index.schemaVersion == CatalogSchema.version else { throw foreignSchema(index.schemaVersion, file: file) }
        try require(index.violations(limits: limits), file: file)
        return index
    }

    /// The manifest without its entries and images, for what needs only its head (when it was
    /// generated, its editions): the index's ``SnapshotIndex/head``, or without an index the
    /// manifest, read and checked whole, its `files` and `images` then emptied.
    ///
    /// - Throws: ``SnapshotReadError`` as ``index()`` or ``manifest()`` does.
    public func head() throws(SnapshotReadError) -> Manifest {
        if let index = try index() { return index.head }
        var manifest = try manifest()
        manifest.files = []
        manifest.images = nil
        return manifest
    }

    /// The manifest of one edition: `index`'s head with the entries of the edition's part (an
    /// ``EditionTable`` of exactly the size and count `index` gives), which must keep the
    /// manifest's rules and all be of `edition`.
    ///
    /// - Throws: ``SnapshotReadError``: `.notFound` when `index` has no part for `edition`,
    ///   `.sizeMismatch` for a part changed since the index was written, `.undecodable` for one
    ///   that is not a table (its line named), else as ``manifest()`` does.
    public func manifest(of edition: Edition, in index: SnapshotIndex) throws(SnapshotReadError) -> Manifest {
        guard let part = index.editions.first(where: { $0.edition == edition }) else {
            throw SnapshotReadError(.notFound, file: SnapshotIndex.fileName, "lists no part for edition \(edition)")
        }
        let bytes = try partBytes(part)
        let entries: [Manifest.Entry]
        do {
            entries = try EditionTable.parse(bytes)
        } catch {
            throw SnapshotReadError(.undecodable, file: part.path, "is not an edition's table: \(error)")
        }
        var manifest = index.head
        manifest.files = entries
        var violations = manifest.violations(limits: limits)
        if entries.count != part.count {
            violations.append(
                Violation(.malformed, at: "", "lists \(entries.count) entries; index.json says \(part.count)"))
        }
        for (position, entry) in entries.enumerated() where entry.edition != edition {
            violations.append(Violation(.malformed, at: "files[\(position)].key", "is not of edition \(edition)"))
        }
        try require(violations, file: part.path)
        return manifest
    }

    /// The images the index's image list names, checked as a manifest's are; `nil` when it has none.
    ///
    /// - Throws: ``SnapshotReadError`` as ``manifest(of:in:)`` does.
    public func images(in index: SnapshotIndex) throws(SnapshotReadError) -> [Manifest.Image]? {
        guard let part = index.images else { return nil }
        let file = part.path
        let list = try decoded(
            SnapshotIndex.ImageList.self, from: try partBytes(part), file: file, what: "an image list")
        guard list.schemaVersion == CatalogSchema.version else { throw foreignSchema(list.schemaVersion, file: file) }
        var manifest = index.head
        manifest.images = list.images
        var violations = manifest.violations(limits: limits)
        if list.images.count != part.count {
            violations.append(
                Violation(.malformed, at: "images", "lists \(list.images.count); index.json says \(part.count)"))
        }
        try require(violations, file: file)
        return list.images
    }

    // MARK: - Reading

    /// A part's bytes, exactly as many as `index.json` gives, within ``SnapshotLimits/maxManifestBytes``.
    private func partBytes(_ part: SnapshotIndex.Part) throws(SnapshotReadError) -> Data {
        try checkLimits(file: part.path)
        guard (0...limits.maxManifestBytes).contains(part.bytes) else {
            throw SnapshotReadError(
                .tooLarge, file: part.path,
                "index.json gives it \(part.bytes) bytes; the cap (maxManifestBytes) is 0...\(limits.maxManifestBytes)")
        }
        return try ContainedFileReader.contents(
            of: part.path, in: directory, maxBytes: limits.maxManifestBytes, expectedBytes: part.bytes)
    }

    private func decoded<Value: Decodable>(
        _ type: Value.Type, from data: Data, file: String, what: String
    ) throws(SnapshotReadError) -> Value {
        let decoder = CatalogCoding.decoder()
        do {
            return try decoder.decode(type, from: data)
        } catch {
            if let version = try? decoder.decode(SchemaVersionProbe.self, from: data).schemaVersion,
                version != CatalogSchema.version
            {
                throw foreignSchema(version, file: file)
            }
            throw SnapshotReadError(
                .undecodable, file: file, "is not \(what): \(DecodingFailure.describe(error).prefix(300))")
        }
    }

    private func require(_ violations: [Violation], file: String) throws(SnapshotReadError) {
        guard violations.isEmpty else {
            throw SnapshotReadError(
                .invalidManifest, file: file, "breaks \(violations.count) rule(s) of the snapshot contract",
                violations: violations)
        }
    }
}

extension SnapshotIndex {
    /// Every rule of the snapshot contract the index breaks, for a reader with `limits`: the
    /// manifest's rules for its head (``Manifest/violations(limits:)``), then each part: an edition
    /// part per edition, sorted; the image list without one; sizes and counts within range.
    public func violations(limits: SnapshotLimits) -> [Violation] {
        var violations = head.violations(limits: limits)
        func add(_ path: String, _ message: String, _ code: Violation.Code = .malformed) {
            violations.append(Violation(code, at: path, message))
        }
        func check(_ part: Part, at record: String, maxCount: Int) {
            if !(0...limits.maxManifestBytes).contains(part.bytes) {
                add(
                    "\(record).bytes", "must be 0...\(limits.maxManifestBytes) (maxManifestBytes), got \(part.bytes)",
                    .outOfRange)
            }
            if !(0...maxCount).contains(part.count) {
                add("\(record).count", "must be 0...\(maxCount), got \(part.count)", .outOfRange)
            }
        }
        for (position, part) in editions.enumerated() {
            if part.edition == nil { add("editions[\(position)].edition", "is missing") }
            check(part, at: "editions[\(position)]", maxCount: limits.maxFileCount)
        }
        if let images {
            if images.edition != nil { add("images.edition", "must be absent") }
            check(images, at: "images", maxCount: limits.maxImageCount)
        }
        return violations
    }
}
