@_spi(CatalogTools) public import CasinoCatalog
public import Foundation

/// What a normalized catalogue says before its first page: enough to start writing it.
public struct CatalogHeader: Codable, Sendable, Hashable {
    /// When the source data was fetched (or `SOURCE_DATE_EPOCH`), never the wall clock.
    public var generatedAt: Date
    /// A human description of where the data came from.
    public var source: String
    /// The page size the pages are cut with.
    public var pageSize: Int
    /// The edition an app falls back to when its own is not bundled; one of ``editions``.
    public var defaultEdition: Edition
    /// The editions, sorted by id: the order their parts follow.
    public var editions: [Edition]

    public init(generatedAt: Date, source: String, pageSize: Int, defaultEdition: Edition, editions: [Edition]) {
        self.generatedAt = generatedAt
        self.source = source
        self.pageSize = pageSize
        self.defaultEdition = defaultEdition
        self.editions = editions
    }

    /// The header of a whole catalogue.
    @_spi(CatalogTools) public init(of catalog: Catalog) {
        self.init(
            generatedAt: catalog.generatedAt, source: catalog.source, pageSize: catalog.pageSize,
            defaultEdition: catalog.defaultEdition, editions: catalog.editions.map(\.edition))
    }
}

/// Receives a normalized catalogue piece by piece, so no stage holds the whole of it: the
/// ``Normalizer`` produces it a few categories at a time, ``NormalizedCatalogFile`` writes and
/// reads it a line at a time, ``SnapshotWriter/Stream`` turns it into files as it arrives.
///
/// The order is fixed: ``begin(_:)`` once; then for each edition of the header, in its order,
/// ``categories(_:of:)`` once and ``pages(_:of:)`` zero or more times (the edition's pages by
/// category in lobby order, each category's by offset; a call may carry part of a category or
/// several); then ``finish()`` once. A sink may rely on it; a producer that reads the pieces from
/// a file checks it (``NormalizedCatalogFile``).
public protocol CatalogSink {
    mutating func begin(_ header: CatalogHeader) throws(PipelineError)
    mutating func categories(_ list: CategoryList, of edition: Edition) throws(PipelineError)
    mutating func pages(_ pages: [GamesPage], of edition: Edition) throws(PipelineError)
    mutating func finish() throws(PipelineError)
}

/// Collects what a ``CatalogSink`` receives into a whole `Catalog`: for tests and small
/// catalogues, where holding it all is fine.
public struct CatalogCollector: CatalogSink {
    private var header: CatalogHeader?
    private var editions: [EditionCatalog] = []
    /// The collected catalogue, once ``finish()`` was called.
    @_spi(CatalogTools) public private(set) var catalog: Catalog?

    public init() {}

    public mutating func begin(_ header: CatalogHeader) throws(PipelineError) {
        self.header = header
    }

    public mutating func categories(_ list: CategoryList, of edition: Edition) throws(PipelineError) {
        editions.append(EditionCatalog(edition: edition, categories: list, pages: []))
    }

    public mutating func pages(_ pages: [GamesPage], of edition: Edition) throws(PipelineError) {
        editions[editions.count - 1].pages += pages
    }

    public mutating func finish() throws(PipelineError) {
        guard let header else { return }
        catalog = Catalog(
            generatedAt: header.generatedAt, source: header.source, pageSize: header.pageSize,
            defaultEdition: header.defaultEdition, editions: editions)
    }
}

extension Catalog {
    /// Hands the catalogue to `sink` in the ``CatalogSink`` order.
    public func deliver(to sink: inout some CatalogSink) throws(PipelineError) {
        try sink.begin(CatalogHeader(of: self))
        for edition in editions {
            try sink.categories(edition.categories, of: edition.edition)
            if !edition.pages.isEmpty { try sink.pages(edition.pages, of: edition.edition) }
        }
        try sink.finish()
    }
}
