@_spi(CatalogTools) public import CasinoCatalog
public import Foundation
public import Logging
@_spi(CatalogTools) import ProviderAPI

/// Turns what a source delivers into a `Catalog`: the lobby-ready categories and the first
/// pages of each, every record mapped by the shared `ProviderMapping`.
///
/// Per edition it drops categories with no games, maps and validates every game record, skips
/// invalid records and duplicates (first wins) with a named warning, keeps provider order, and
/// cuts the first ``PipelineConfiguration/maxPagesPerCategory`` pages of
/// ``PipelineConfiguration/pageSize``. It fails when more than
/// ``PipelineConfiguration/maxInvalidShare`` of a category's records are invalid, or when a
/// category or edition comes out empty.
///
/// ```swift
/// let source = try RecordedProviderSource(directory: URL(fileURLWithPath: "data/provider"))
/// let result = try Normalizer(configuration: .default, logger: logger).normalize(source)
/// result.warnings.forEach { print($0) }
/// ```
public struct Normalizer: Sendable {
    /// How to cut and filter.
    public var configuration: PipelineConfiguration
    /// Where progress is logged (at `.info` and below).
    public var logger: Logger
    /// Where the count of categories cut is shown: nowhere by default.
    public var progress: ProgressLine = .disabled

    public init(configuration: PipelineConfiguration, logger: Logger, progress: ProgressLine = .disabled) {
        self.configuration = configuration
        self.logger = logger
        self.progress = progress
    }

    /// The normalized catalogue and everything that was skipped on the way.
    public struct Result: Sendable {
        @_spi(CatalogTools) public var catalog: Catalog
        public var warnings: [PipelineWarning]
        /// Game records read from the source.
        public var recordsRead: Int
    }

    /// What normalizing into a sink skipped, and how much it read.
    public struct Summary: Sendable {
        public var warnings: [PipelineWarning] = []
        /// Game records read from the source.
        public var recordsRead = 0
    }

    /// Normalizes `source` into a whole `Catalog`: for tests and small catalogues.
    /// ``normalize(_:generatedAt:into:)`` holds only a few categories at a time.
    ///
    /// - Throws: ``PipelineError`` naming the file and record that stopped the build.
    public func normalize(_ source: any CatalogSource, generatedAt: Date? = nil) throws(PipelineError) -> Result {
        var collector = CatalogCollector()
        let summary = try normalize(source, generatedAt: generatedAt, into: &collector)
        return Result(catalog: collector.catalog!, warnings: summary.warnings, recordsRead: summary.recordsRead)
    }

    /// Normalizes `source` into `sink`, edition by edition and a few categories at a time (as many
    /// as there are cores, read in parallel), so memory grows with the largest category, not with
    /// the catalogue.
    ///
    /// - Parameters:
    ///   - source: Where to read the catalogue from.
    ///   - generatedAt: The time to stamp (from `SOURCE_DATE_EPOCH`); the source's fetch time
    ///     when `nil`.
    ///   - sink: Receives the catalogue in the ``CatalogSink`` order; `finish()` only on success.
    /// - Throws: ``PipelineError`` naming the file and record that stopped the build.
    public func normalize(
        _ source: any CatalogSource, generatedAt: Date? = nil, into sink: inout some CatalogSink
    ) throws(PipelineError) -> Summary {
        try configuration.check()
        guard let stamp = generatedAt ?? source.fetchedAt else {
            throw PipelineError(
                .invalidContent,
                "the source does not say when it was fetched; set SOURCE_DATE_EPOCH (seconds since 1970) or add recording.json",
                file: source.description)
        }
        var available = try source.editions()
        if !configuration.editions.isEmpty {
            for wanted in configuration.editions where !available.contains(where: { $0.edition == wanted }) {
                throw PipelineError(
                    .missingInput,
                    "edition \(wanted) is configured but the source has no such edition (it has: \(available.map(\.edition.id).joined(separator: ", ")))",
                    file: source.description)
            }
            available = available.filter { configuration.editions.contains($0.edition) }
        }
        available.sort { $0.edition < $1.edition }
        guard let firstEdition = available.first?.edition else {
            throw PipelineError(.invalidContent, "the source holds no edition", file: source.description)
        }
        let defaultEdition = configuration.defaultEdition ?? firstEdition
        guard available.contains(where: { $0.edition == defaultEdition }) else {
            throw PipelineError(
                .invalidConfiguration, "defaultEdition \(defaultEdition) is not among the built editions",
                file: source.description)
        }
        try sink.begin(
            CatalogHeader(
                generatedAt: stamp, source: source.description, pageSize: configuration.pageSize,
                defaultEdition: defaultEdition, editions: available.map(\.edition)))
        var summary = Summary()
        for sourceEdition in available {
            try normalize(sourceEdition, from: source, into: &sink, summary: &summary)
        }
        try sink.finish()
        logger.info(
            "normalized catalogue",
            metadata: [
                "pipeline.source": "\(source.description)", "pipeline.editions": "\(available.count)",
                "pipeline.records": "\(summary.recordsRead)", "pipeline.warnings": "\(summary.warnings.count)",
            ])
        return summary
    }

    /// How many categories are read and cut at once: one per core, at least two.
    private static let categoriesAtOnce = max(2, ProcessInfo.processInfo.activeProcessorCount)

    private func normalize(
        _ sourceEdition: SourceEdition, from source: any CatalogSource, into sink: inout some CatalogSink,
        summary: inout Summary
    ) throws(PipelineError) {
        let edition = sourceEdition.edition
        var categories: [CasinoCatalog.Category] = []
        var sourceCategories: [SourceCategory] = []
        var seenCategories = Set<String>()
        for sourceCategory in sourceEdition.categories {
            let location = "\(sourceCategory.recordLocation)"
            // The one rule for which categories a lobby shows, as the app's upstream applies it to
            // live data; where ids repeat, the first usable one wins.
            let category: CasinoCatalog.Category
            switch ProviderMapping.usableCategory(from: sourceCategory.record) {
            case .failure(let error):
                summary.warnings.append(
                    PipelineWarning(
                        file: sourceEdition.location, record: location, message: "category skipped: \(error)"))
                continue
            case .success(nil):
                logger.debug(
                    "dropped empty category",
                    metadata: ["pipeline.record": "\(location)", "pipeline.edition": "\(edition)"])
                continue
            case .success(let mapped?):
                category = mapped.value
            }
            guard seenCategories.insert(category.id).inserted else {
                summary.warnings.append(
                    PipelineWarning(
                        file: sourceEdition.location, record: "\(location) (category \(category.id))",
                        message: "duplicate category id skipped; the first one wins"))
                continue
            }
            categories.append(category)
            sourceCategories.append(sourceCategory)
        }
        guard !categories.isEmpty else {
            throw PipelineError(
                .invalidContent, "edition \(edition) has no category with games; check the recording or the feed",
                file: sourceEdition.location)
        }
        let list = CategoryList(items: categories)
        if let violation = list.violations().first {
            throw PipelineError(.invalidContent, "categories of \(edition): \(violation)", file: sourceEdition.location)
        }
        try sink.categories(list, of: edition)
        // A window of categories is read, mapped and cut on every core; the results go to the
        // sink in lobby order, so output and warnings stay deterministic, and are then dropped.
        progress.expect(categories.count)
        for window in stride(from: 0, to: categories.count, by: Self.categoriesAtOnce) {
            let indices = window..<min(window + Self.categoriesAtOnce, categories.count)
            let cuts = try ParallelMap.map(count: indices.count) { offset throws(PipelineError) in
                let index = indices.lowerBound + offset
                var local = Summary()
                let pages = try cutPages(
                    for: categories[index], edition: edition, sourceCategory: sourceCategories[index], from: source,
                    summary: &local)
                progress.advance()
                return (pages: pages, summary: local)
            }
            for cut in cuts {
                summary.warnings += cut.summary.warnings
                summary.recordsRead += cut.summary.recordsRead
                if !cut.pages.isEmpty { try sink.pages(cut.pages, of: edition) }
            }
        }
    }

    /// Reads a category's records up to the last bundled position and cuts them into pages at
    /// the provider's positions: page `k` holds the usable records at positions
    /// `k * pageSize ..< (k + 1) * pageSize`. Refused records leave holes instead of shifting later
    /// records, so bundled pages line up with pages fetched live for the same offsets.
    private func cutPages(
        for category: CasinoCatalog.Category, edition: Edition, sourceCategory: SourceCategory,
        from source: any CatalogSource, summary state: inout Summary
    ) throws(PipelineError) -> [GamesPage] {
        let size = configuration.pageSize
        let total = category.gamesTotal
        let wantedEnd = min(size * configuration.maxPagesPerCategory, total)
        var games: [(position: Int, game: Game)] = []
        var seen = Set<String>()
        var invalid: [PipelineWarning] = []
        var read = 0
        var covered = 0  // positions 0 ..< covered have been read
        var expectedOffset = 0
        for (pageIndex, reference) in sourceCategory.pages.enumerated() where covered < wantedEnd {
            guard reference.offset == expectedOffset else {
                let previous =
                    pageIndex == 0
                    ? "the first page must be at offset 0" : "the previous page ends at offset \(expectedOffset)"
                throw PipelineError(
                    .invalidContent,
                    "category \(category.id) (\(edition)): page at offset \(reference.offset) does not continue the list: \(previous); re-record the missing page",
                    file: reference.location)
            }
            let page = try source.page(reference)
            if page.records.isEmpty { break }
            expectedOffset = reference.offset + page.records.count
            if let pageTotal = page.total, pageTotal != total {
                state.warnings.append(
                    PipelineWarning(
                        file: page.location, record: "",
                        message:
                            "page total \(pageTotal) differs from the category's games total \(total); using \(total)"))
            }
            for record in page.records where record.position < wantedEnd {
                read += 1
                covered = max(covered, record.position + 1)
                switch map(record) {
                case .failure(let error):
                    invalid.append(
                        PipelineWarning(
                            file: page.location, record: record.location, message: "game skipped: \(error.message)"))
                case .success(let game):
                    guard seen.insert(game.id).inserted else {
                        state.warnings.append(
                            PipelineWarning(
                                file: page.location, record: "\(record.location) (game \(game.id))",
                                message: "duplicate of an earlier game in category \(category.id); the first one wins"))
                        continue
                    }
                    games.append((record.position, game))
                }
            }
        }
        state.recordsRead += read
        state.warnings += invalid
        if read > 0, Double(invalid.count) / Double(read) > configuration.maxInvalidShare {
            let examples = invalid.prefix(3).map(\.description).joined(separator: "; ")
            let allowed = String(format: "%g", configuration.maxInvalidShare * 100)
            throw PipelineError(
                .invalidContent,
                "category \(category.id) (\(edition)): \(invalid.count) of \(read) records are invalid, more than the allowed \(allowed) %; fix the source or raise maxInvalidShare. First: \(examples)",
                file: sourceCategory.pagesLocation)
        }
        guard !games.isEmpty else {
            throw PipelineError(
                .invalidContent,
                "category \(category.id) (\(edition)) has \(total) games at the provider but none usable was found (\(read) records read); record its pages",
                file: sourceCategory.pagesLocation)
        }
        // Bundle the pages whose positions were all read (the last one may end at the total).
        let pageCount = (0..<configuration.maxPagesPerCategory).prefix { index in
            index * size < total && min((index + 1) * size, total) <= covered
        }.count
        if covered > pageCount * size {  // records of a page that was not recorded to its end
            guard pageCount > 0 else {
                throw PipelineError(
                    .invalidContent,
                    "category \(category.id) (\(edition)): only positions 0..<\(covered) of \(total) were recorded; record at least one full page of \(size)",
                    file: sourceCategory.pagesLocation)
            }
            state.warnings.append(
                PipelineWarning(
                    file: sourceCategory.pagesLocation, record: "",
                    message:
                        "category \(category.id) (\(edition)): the recording ends mid-page (positions 0..<\(covered) of \(total)); bundling the \(pageCount) complete pages"
                ))
        }
        // Provider order, then id: stable for sources that give equal positions.
        games.sort { ($0.position, $0.game.id) < ($1.position, $1.game.id) }
        // `games` is sorted by position: walk it once, page by page (a filter per page was
        // quadratic in the category's size).
        var pages: [GamesPage] = []
        var cursor = 0
        for index in 0..<pageCount {
            let range = index * size..<(index + 1) * size
            while cursor < games.count, games[cursor].position < range.lowerBound { cursor += 1 }
            var items: [Game] = []
            while cursor < games.count, games[cursor].position < range.upperBound {
                items.append(games[cursor].game)
                cursor += 1
            }
            pages.append(
                GamesPage(categoryId: category.id, offset: range.lowerBound, limit: size, total: total, items: items))
        }
        return pages
    }

    private func map(_ record: SourceRecord) -> Swift.Result<Game, RecordError> {
        ProviderMapping.usableGame(from: record.game).map { mapped in
            for note in mapped.notes {
                logger.debug(
                    "repaired record", metadata: ["pipeline.record": "\(record.location)", "pipeline.note": "\(note)"])
            }
            return mapped.value
        }
    }
}
