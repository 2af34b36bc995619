public import CasinoCatalog
public import Foundation
import Gzip

/// Checks a snapshot directory end to end and reports **every** problem, each named by file
/// and record.
///
/// It re-reads the manifest and every file with the schema types and checks: schema versions;
/// each file's size, SHA-256, gzip integrity and uncompressed size against the manifest; that
/// each envelope matches its manifest entry; the schema rules on every category and game;
/// referential integrity (each edition has its categories, every category its pages from
/// offset 0, totals agree, no game id twice in a category); and that no file is missing or
/// unlisted.
///
/// ```swift
/// let report = SnapshotValidator().validate(directory: URL(fileURLWithPath: "out"))
/// report.problems.forEach { print($0) }
/// ```
public struct SnapshotValidator: Sendable {
    /// Size caps for the files read.
    public var limits: PipelineConfiguration.Limits

    public init(limits: PipelineConfiguration.Limits = .default) {
        self.limits = limits
    }

    /// Validates the snapshot directory at `directory`.
    public func validate(directory: URL) -> ValidationReport {
        var report = ValidationReport()
        guard let manifest = readManifest(in: directory, into: &report) else { return report }
        report.manifest = manifest
        checkManifest(manifest, into: &report)

        // Every file is verified on its own, on every core; the outcomes merge in manifest order.
        let outcomes = (try? ParallelMap.map(count: manifest.files.count) { index throws(PipelineError) in
            checkFile(manifest.files[index], in: directory, manifest: manifest)
        }) ?? []
        var categoryLists: [Edition: (path: String, list: CategoryList)] = [:]
        var pages: [Edition: [String: [(path: String, page: GamesPage)]]] = [:]
        for (entry, outcome) in zip(manifest.files, outcomes) {
            report.problems += outcome.problems
            report.filesChecked += outcome.isRead ? 1 : 0
            if let list = outcome.list {
                if categoryLists[entry.edition] != nil {
                    report.add(entry.path, nil, "a second categories file for edition \(entry.edition)")
                }
                categoryLists[entry.edition] = (entry.path, list)
            }
            if let page = outcome.page {
                report.gamesChecked += page.items.count
                pages[entry.edition, default: [:]][page.categoryId, default: []].append((entry.path, page))
            }
        }
        checkReferences(manifest, categoryLists, pages, into: &report)
        checkUnlistedFiles(in: directory, manifest: manifest, into: &report)
        return report
    }

    /// What checking one listed file found.
    private struct FileOutcome: Sendable {
        var problems: [ValidationReport.Problem] = []
        var isRead = false
        var list: CategoryList?
        var page: GamesPage?
    }

    /// Reads, verifies, decodes and checks one listed file.
    private func checkFile(_ entry: Manifest.Entry, in directory: URL, manifest: Manifest) -> FileOutcome {
        var report = ValidationReport()
        var outcome = FileOutcome()
        guard CatalogRules.isSafeRelativePath(entry.path) else {
            report.add(Manifest.fileName, "files[\(entry.path)]", "unsafe path: it could leave the snapshot directory")
            outcome.problems = report.problems
            return outcome
        }
        guard let json = readFile(entry, in: directory, into: &report) else {
            outcome.problems = report.problems
            return outcome
        }
        outcome.isRead = true
        switch entry.kind {
        case .categories:
            if let snapshot = decode(Snapshot<CategoryList>.self, json, entry, manifest, into: &report) {
                check(snapshot.payload, entry, into: &report)
                outcome.list = snapshot.payload
            }
        case .gamesPage:
            if let snapshot = decode(Snapshot<GamesPage>.self, json, entry, manifest, into: &report) {
                check(snapshot.payload, entry, manifest, into: &report)
                outcome.page = snapshot.payload
            }
        }
        outcome.problems = report.problems
        return outcome
    }

    // MARK: - Manifest

    private func readManifest(in directory: URL, into report: inout ValidationReport) -> Manifest? {
        do {
            return try Self.readManifest(in: directory, limits: limits)
        } catch {
            report.add(Manifest.fileName, error.record, error.message)
            return nil
        }
    }

    /// Reads and decodes the manifest of a snapshot directory, capped at
    /// ``PipelineConfiguration/Limits/maxJSONFileBytes``.
    ///
    /// - Throws: ``PipelineError``: `.missingInput` when there is none, `.malformedInput` when it
    ///   does not decode or follows another schema version.
    public static func readManifest(
        in directory: URL, limits: PipelineConfiguration.Limits = .default
    ) throws(PipelineError) -> Manifest {
        let url = directory.appendingPathComponent(Manifest.fileName)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw PipelineError(
                .missingInput, "missing: \(directory.relativePath) is not a snapshot directory (run make snapshot)",
                file: Manifest.fileName)
        }
        let data = try FileInput.read(url, limit: limits.maxJSONFileBytes, what: "manifest")
        // Check the version before the shape, so a future manifest gets a clear message.
        if let versioned = try? CatalogCoding.decoder().decode(SchemaVersioned.self, from: data),
            versioned.schemaVersion != CatalogSchema.version
        {
            throw PipelineError(
                .malformedInput,
                "is \(versioned.schemaVersion), this build reads \(CatalogSchema.version); regenerate with this version of catalog",
                file: Manifest.fileName, record: "schemaVersion")
        }
        return try JSONInput.decode(Manifest.self, from: data, file: Manifest.fileName)
    }

    private func checkManifest(_ manifest: Manifest, into report: inout ValidationReport) {
        if manifest.editions.isEmpty {
            report.add(Manifest.fileName, "editions", "lists no edition")
        }
        if manifest.editions != manifest.editions.sorted() || Set(manifest.editions).count != manifest.editions.count {
            report.add(Manifest.fileName, "editions", "must be sorted and unique")
        }
        if !manifest.editions.contains(manifest.defaultEdition) {
            report.add(Manifest.fileName, "defaultEdition", "\(manifest.defaultEdition) is not one of the editions")
        }
        if manifest.pageSize <= 0 {
            report.add(Manifest.fileName, "pageSize", "must be greater than 0, got \(manifest.pageSize)")
        }
        var paths = Set<String>()
        var keys = Set<SnapshotKey>()
        for (index, entry) in manifest.files.enumerated() {
            let record = "files[\(index)]"
            if !paths.insert(entry.path).inserted {
                report.add(Manifest.fileName, record, "path \(entry.path) listed twice")
            }
            if !keys.insert(entry.key).inserted {
                report.add(Manifest.fileName, record, "key \(entry.key) listed twice")
            }
            if entry.path != SnapshotLayout.path(for: entry.key) {
                report.add(
                    Manifest.fileName, record,
                    "path \(entry.path) is not where key \(entry.key) belongs (\(SnapshotLayout.path(for: entry.key)))")
            }
            if !manifest.editions.contains(entry.edition) {
                report.add(Manifest.fileName, record, "edition \(entry.edition) is not listed in editions")
            }
        }
        if manifest.files.map(\.path) != manifest.files.map(\.path).sorted() {
            report.add(Manifest.fileName, "files", "must be sorted by path")
        }
        let expectedHash = SnapshotWriter.contentHash(of: manifest.files)
        if manifest.contentHash != expectedHash {
            report.add(
                Manifest.fileName, "contentHash",
                "is \(manifest.contentHash), the files' content hashes give \(expectedHash)")
        }
    }

    // MARK: - Files

    /// Reads, verifies and decompresses one listed file.
    private func readFile(_ entry: Manifest.Entry, in directory: URL, into report: inout ValidationReport) -> Data? {
        let url = directory.appendingPathComponent(entry.path)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else {
            report.add(entry.path, nil, "missing: listed in the manifest but not on disk")
            return nil
        }
        guard (attributes[.type] as? FileAttributeType) == .typeRegular else {
            report.add(entry.path, nil, "not a regular file (symbolic links are not allowed)")
            return nil
        }
        let data: Data
        do {
            data = try FileInput.read(url, limit: limits.maxSnapshotFileBytes, what: "snapshot file")
        } catch {
            report.add(entry.path, nil, error.message)
            return nil
        }
        var intact = true
        if data.count != entry.compressedBytes {
            report.add(
                entry.path, nil,
                "is \(data.count) bytes, the manifest says \(entry.compressedBytes) (truncated or replaced)")
            intact = false
        }
        let digest = FileNaming.hexSHA256(data)
        if digest != entry.sha256 {
            report.add(
                entry.path, nil,
                "SHA-256 \(digest) does not match the manifest's \(entry.sha256) (the file was changed)")
            intact = false
        }
        guard entry.uncompressedBytes <= limits.maxSnapshotFileBytes else {
            report.add(
                entry.path, nil,
                "uncompressed size \(entry.uncompressedBytes) is over the cap of \(limits.maxSnapshotFileBytes) bytes")
            return nil
        }
        do {
            return try Gzip.decompress(data, limit: entry.uncompressedBytes, expectedSize: entry.uncompressedBytes)
        } catch {
            // A changed file that still inflates is reported once, above.
            if intact || error.code != .sizeMismatch { report.add(entry.path, nil, "\(error)") }
            return nil
        }
    }

    private func decode<Payload>(
        _ type: Snapshot<Payload>.Type, _ json: Data, _ entry: Manifest.Entry, _ manifest: Manifest,
        into report: inout ValidationReport
    ) -> Snapshot<Payload>? {
        if let versioned = try? CatalogCoding.decoder().decode(SchemaVersioned.self, from: json),
            versioned.schemaVersion != CatalogSchema.version
        {
            report.add(entry.path, "schemaVersion", "is \(versioned.schemaVersion), expected \(CatalogSchema.version)")
            return nil
        }
        let snapshot: Snapshot<Payload>
        do {
            snapshot = try JSONInput.decode(type, from: json, file: entry.path)
        } catch {
            report.add(entry.path, nil, error.message)
            return nil
        }
        if snapshot.key != entry.key {
            report.add(entry.path, "key", "is \(snapshot.key), the manifest says \(entry.key)")
        }
        if snapshot.edition != entry.edition {
            report.add(entry.path, "edition", "is \(snapshot.edition), expected \(entry.edition)")
        }
        if snapshot.kind != entry.kind {
            report.add(entry.path, "kind", "is \(snapshot.kind.rawValue), expected \(entry.kind.rawValue)")
        }
        if snapshot.contentHash != entry.contentHash {
            report.add(entry.path, "contentHash", "is \(snapshot.contentHash), the manifest says \(entry.contentHash)")
        }
        if snapshot.generatedAt != manifest.generatedAt {
            report.add(entry.path, "generatedAt", "differs from the manifest's")
        }
        return snapshot
    }

    private func check(_ list: CategoryList, _ entry: Manifest.Entry, into report: inout ValidationReport) {
        for violation in list.violations() {
            report.add(entry.path, "payload." + violation.path, "\(violation.message) (\(violation.code))")
        }
        if entry.count != list.items.count || entry.total != list.items.count {
            report.add(
                entry.path, "payload.items",
                "holds \(list.items.count) categories, the manifest says count \(entry.count), total \(entry.total)")
        }
    }

    private func check(
        _ page: GamesPage, _ entry: Manifest.Entry, _ manifest: Manifest, into report: inout ValidationReport
    ) {
        for violation in page.violations() {
            report.add(entry.path, "payload." + violation.path, "\(violation.message) (\(violation.code))")
        }
        if case .gamesPage(_, let categoryId, let offset) = entry.key,
            categoryId != page.categoryId || offset != page.offset
        {
            report.add(
                entry.path, "payload", "is page \(page.categoryId)@\(page.offset), the key says \(categoryId)@\(offset)"
            )
        }
        if page.limit != manifest.pageSize {
            report.add(entry.path, "payload.limit", "is \(page.limit), the manifest's pageSize is \(manifest.pageSize)")
        }
        if entry.count != page.count || entry.total != page.total {
            report.add(
                entry.path, "payload",
                "count \(page.count) / total \(page.total) disagree with the manifest's \(entry.count) / \(entry.total)"
            )
        }
    }

    // MARK: - References

    private func checkReferences(
        _ manifest: Manifest, _ categoryLists: [Edition: (path: String, list: CategoryList)],
        _ pages: [Edition: [String: [(path: String, page: GamesPage)]]], into report: inout ValidationReport
    ) {
        for edition in manifest.editions {
            guard let (listPath, list) = categoryLists[edition] else {
                report.add(
                    SnapshotLayout.path(for: .categories(edition)), nil,
                    "edition \(edition) has no readable categories file")
                continue
            }
            let editionPages = pages[edition] ?? [:]
            for (index, category) in list.items.enumerated() {
                let categoryPages = (editionPages[category.id] ?? []).sorted { $0.page.offset < $1.page.offset }
                guard !categoryPages.isEmpty else {
                    report.add(listPath, "payload.items[\(index)]", "category \(category.id) has no bundled page")
                    continue
                }
                var expectedOffset = 0
                var seenGames: [String: String] = [:]
                for (path, page) in categoryPages {
                    if page.offset != expectedOffset {
                        report.add(
                            path, "payload.offset",
                            "is \(page.offset), expected \(expectedOffset): a page of \(category.id) is missing")
                    }
                    expectedOffset = page.offset + page.limit
                    if page.total != category.gamesTotal {
                        report.add(
                            path, "payload.total",
                            "is \(page.total), category \(category.id) says gamesTotal \(category.gamesTotal)")
                    }
                    for (itemIndex, game) in page.items.enumerated() {
                        if let first = seenGames[game.id], first != path {
                            report.add(
                                path, "payload.items[\(itemIndex)].id",
                                "duplicate game id \(game.id) in category \(category.id), also in \(first)")
                        }
                        seenGames[game.id] = seenGames[game.id] ?? path
                    }
                }
            }
            let listed = Set(list.items.map(\.id))
            for (categoryId, orphans) in editionPages where !listed.contains(categoryId) {
                for (path, _) in orphans {
                    report.add(
                        path, nil, "page of category \(categoryId), which the categories of \(edition) do not list")
                }
            }
        }
    }

    private func checkUnlistedFiles(in directory: URL, manifest: Manifest, into report: inout ValidationReport) {
        let listed = Set(manifest.files.map(\.path)).union([Manifest.fileName, SnapshotLayout.readmeName])
        guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { return }
        var unlisted: [String] = []
        while let path = enumerator.nextObject() as? String {
            let url = directory.appendingPathComponent(path)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
                continue
            }
            if !listed.contains(path) { unlisted.append(path) }
        }
        for path in unlisted.sorted() {
            report.add(path, nil, "not listed in the manifest: remove it or regenerate the directory")
        }
    }
}

/// Just the `schemaVersion` of a manifest or snapshot, read before the rest so that a file from
/// another schema gets a clear message instead of a decoding error.
private struct SchemaVersioned: Decodable {
    var schemaVersion: Int
}
