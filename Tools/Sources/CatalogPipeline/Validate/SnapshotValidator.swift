@_spi(CatalogTools) public import CasinoCatalog
public import Foundation
@_spi(CatalogTools) import Gzip

/// Checks a snapshot directory end to end and reports **every** problem, each named by file
/// and record.
///
/// It reads the directory with ``SnapshotReader``, the reader the app's bundled tier uses, under
/// the same ``SnapshotLimits``, so what it accepts an app serves. On top it checks what needs
/// SHA-256 or the whole directory: every file's SHA-256 against the manifest, the manifest's
/// content hash, that each file lies where its key belongs; referential integrity (each edition
/// has its categories, every category its pages from offset 0, totals agree, no game id twice in a
/// category); each bundled image (size, SHA-256, sniffed type, named by a game of the snapshot);
/// that the index (``SnapshotIndex``), when there is one, is the one the manifest gives; and that
/// no file is unlisted. A broken rule of the manifest is reported, and the
/// files it lists are still checked one by one.
///
/// ```swift
/// let report = SnapshotValidator().validate(directory: URL(fileURLWithPath: "out"))
/// report.problems.forEach { print($0) }
/// ```
public struct SnapshotValidator: Sendable {
    /// The snapshot contract's caps, as the app applies them.
    public var limits: SnapshotLimits
    /// Where the count of files checked is shown: nowhere by default.
    public var progress: ProgressLine
    /// The provider's withdrawals (`--withdrawals`): a page that still shows a withdrawn game as it
    /// is is a problem (``WithdrawalLookup/problems(in:)``). None by default.
    @_spi(CatalogTools) public var withdrawals: WithdrawalLookup?

    @_spi(CatalogTools) public init(
        limits: SnapshotLimits = .default, progress: ProgressLine = .disabled, withdrawals: WithdrawalLookup? = nil
    ) {
        self.limits = limits
        self.progress = progress
        self.withdrawals = withdrawals
    }

    /// Validates the snapshot directory at `directory`.
    public func validate(directory: URL) -> ValidationReport {
        var report = ValidationReport()
        let reader = SnapshotReader(
            directory: directory, limits: limits, requiresCanonicalBytes: true, sha256Hex: FileNaming.hexSHA256)
        let manifest: Manifest
        do {
            manifest = try reader.decodedManifest()
        } catch {
            report.add(error)
            return report
        }
        report.manifest = manifest
        let manifestViolations = manifest.violations(limits: limits)
        for violation in manifestViolations {
            report.add(
                Manifest.fileName, violation.path.isEmpty ? nil : violation.path,
                "\(violation.message) (\(violation.code))")
        }
        // A manifest over the file-count cap is not read further: its length is the attack.
        guard manifest.files.count <= limits.maxFileCount else { return report }
        checkLayout(manifest, into: &report)

        // Every file is verified on its own, on every core; the outcomes merge in manifest order.
        // A page is kept only as what the checks across files need (``PageSummary``), so memory
        // grows with the number of games, not with their records.
        let imageURLs = Set((manifest.images ?? []).prefix(limits.maxImageCount).map(\.url))
        progress.expect(manifest.files.count)
        let outcomes =
            (try? ParallelMap.map(count: manifest.files.count) { index throws(PipelineError) -> FileOutcome in
                defer { progress.advance() }
                return checkFile(manifest.files[index], reader: reader, manifest: manifest, imageURLs: imageURLs)
            }) ?? []
        var categoryLists: [Edition: (path: String, list: CategoryList)] = [:]
        var pages: [Edition: [String: [(path: String, page: PageSummary)]]] = [:]
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
                report.gamesChecked += page.gameIds.count
                pages[entry.edition, default: [:]][page.categoryId, default: []].append((entry.path, page))
            }
        }
        checkReferences(manifest, categoryLists, pages, into: &report)
        checkImages(manifest, reader: reader, pages: pages, into: &report)
        let indexFiles = checkIndex(manifest, in: directory, reader: reader, into: &report)
        checkUnlistedFiles(in: directory, manifest: manifest, index: indexFiles, into: &report)
        return report
    }

    /// Reads and checks the manifest of a snapshot directory as the app does (size cap, schema
    /// version, the contract's rules), for commands that only summarize or compare manifests.
    ///
    /// - Throws: ``PipelineError``: `.missingInput` when there is none, `.malformedInput` when it
    ///   does not decode, follows another schema version or breaks a rule, `.inputTooLarge`
    ///   over the cap.
    @_spi(CatalogTools) public static func readManifest(
        in directory: URL, limits: SnapshotLimits = .default
    ) throws(PipelineError) -> Manifest {
        do {
            return try SnapshotReader(directory: directory, limits: limits).manifest()
        } catch {
            throw PipelineError(error, in: directory)
        }
    }

    /// What checking one listed file found.
    private struct FileOutcome: Sendable {
        var problems: [ValidationReport.Problem] = []
        var isRead = false
        var list: CategoryList?
        var page: PageSummary?
    }

    /// What the checks across files need of a page: its place, its game ids, and the bundled
    /// images its games name.
    struct PageSummary: Sendable {
        var categoryId: String
        var offset: Int
        var limit: Int
        var total: Int
        var gameIds: [String]
        var namedImages: [String]

        init(_ page: GamesPage, imageURLs: Set<String>) {
            (categoryId, offset, limit, total) = (page.categoryId, page.offset, page.limit, page.total)
            gameIds = page.items.map(\.id)
            namedImages =
                imageURLs.isEmpty
                ? []
                : page.items.flatMap { [$0.thumbnail, $0.backgroundImageUrl] }
                    .compactMap { $0 }.filter(imageURLs.contains)
        }
    }

    /// Reads, verifies, decodes and checks one listed file: every check is the reader's.
    private func checkFile(
        _ entry: Manifest.Entry, reader: SnapshotReader, manifest: Manifest, imageURLs: Set<String>
    ) -> FileOutcome {
        var outcome = FileOutcome()
        var report = ValidationReport()
        do {
            let packed = try reader.packedBytes(of: entry)
            outcome.isRead = true
            switch entry.kind {
            case .categories: outcome.list = try reader.categories(of: entry, in: manifest, packed: packed)
            case .gamesPage:
                let page = try reader.gamesPage(of: entry, in: manifest, packed: packed)
                for (index, problem) in withdrawals?.problems(in: page) ?? [] {
                    report.add(entry.path, "payload.items[\(index)]", "\(problem); rebuild with --withdrawals")
                }
                outcome.page = PageSummary(page, imageURLs: imageURLs)
            }
        } catch {
            report.add(error)
        }
        outcome.problems = report.problems
        return outcome
    }

    // MARK: - Manifest

    /// What the app's reader does not check: each file where its key belongs (the pipeline's
    /// naming, SHA-256 of ids), and the manifest's content hash.
    private func checkLayout(_ manifest: Manifest, into report: inout ValidationReport) {
        for (index, entry) in manifest.files.enumerated() where entry.path != SnapshotLayout.path(for: entry.key) {
            report.add(
                Manifest.fileName, "files[\(index)]",
                "path \(entry.path.prefix(200)) is not where key \(entry.key) belongs (\(SnapshotLayout.path(for: entry.key)))"
            )
        }
        if let violation = manifest.contentHashViolation() {
            report.add(Manifest.fileName, violation.path, violation.message)
        }
    }

    // MARK: - References

    private func checkReferences(
        _ manifest: Manifest, _ categoryLists: [Edition: (path: String, list: CategoryList)],
        _ pages: [Edition: [String: [(path: String, page: PageSummary)]]], into report: inout ValidationReport
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
                    // Both are within the schema's rules (the reader checked), so this cannot overflow.
                    expectedOffset = page.offset + page.limit
                    if page.total != category.gamesTotal {
                        report.add(
                            path, "payload.total",
                            "is \(page.total), category \(category.id) says gamesTotal \(category.gamesTotal)")
                    }
                    for (itemIndex, id) in page.gameIds.enumerated() {
                        if let first = seenGames[id], first != path {
                            report.add(
                                path, "payload.items[\(itemIndex)].id",
                                "duplicate game id \(id) in category \(category.id), also in \(first)")
                        }
                        seenGames[id] = seenGames[id] ?? path
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

    private func checkUnlistedFiles(
        in directory: URL, manifest: Manifest, index: Set<String>, into report: inout ValidationReport
    ) {
        let listed = Set(manifest.files.map(\.path)).union(manifest.imageFiles.map(\.path))
            .union([Manifest.fileName, SnapshotLayout.readmeName]).union(index)
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
