public import CasinoCatalog
public import Foundation
public import ProviderAPI

/// Where the pipeline reads the provider's catalogue from: a recorded provider directory, an
/// XML feed, or (later) the live API.
///
/// A source lists editions, their categories and where each category's pages are, cheaply;
/// ``page(_:)`` reads one page when the normalizer needs it, so a recording with far more
/// pages than are bundled costs only what is bundled.
public protocol CatalogSource: Sendable {
    /// A human description for the manifest (`recorded provider directory data/provider`).
    var description: String { get }
    /// When the data was fetched, if the source knows.
    var fetchedAt: Date? { get }
    /// The editions with their categories, in provider order.
    func editions() throws(PipelineError) -> [SourceEdition]
    /// Reads one page of game records.
    func page(_ reference: SourcePageReference) throws(PipelineError) -> SourcePage
}

/// One edition as a source has it.
public struct SourceEdition: Sendable {
    public var edition: Edition
    /// Where the categories came from (a file).
    public var location: String
    /// The categories, in provider order.
    public var categories: [SourceCategory]

    public init(edition: Edition, location: String, categories: [SourceCategory]) {
        self.edition = edition
        self.location = location
        self.categories = categories
    }
}

/// One category record and where its pages are.
public struct SourceCategory: Sendable {
    /// The record, or why it did not decode.
    public var record: Lossy<ProviderCategory>
    /// Where the record is (`items[3]`).
    public var recordLocation: String
    /// The category's pages, by ascending offset.
    public var pages: [SourcePageReference]
    /// Where the pages were looked for, for error messages.
    public var pagesLocation: String

    public init(
        record: Lossy<ProviderCategory>, recordLocation: String, pages: [SourcePageReference], pagesLocation: String
    ) {
        self.record = record
        self.recordLocation = recordLocation
        self.pages = pages
        self.pagesLocation = pagesLocation
    }
}

/// Where one page of game records is.
public struct SourcePageReference: Sendable, Hashable {
    /// The file (or feed) holding the page.
    public var location: String
    /// The offset of the page's first record in the category.
    public var offset: Int
    /// What the source needs to find the page again; opaque to everybody else.
    public var sourceKey: String

    public init(location: String, offset: Int, sourceKey: String = "") {
        self.location = location
        self.offset = offset
        self.sourceKey = sourceKey
    }
}

/// One page of game records, as read.
public struct SourcePage: Sendable {
    /// The file (or feed) it was read from.
    public var location: String
    /// The offset of its first record.
    public var offset: Int
    /// The category total the page reports, if any.
    public var total: Int?
    /// The records in provider order.
    public var records: [SourceRecord]

    public init(location: String, offset: Int, total: Int?, records: [SourceRecord]) {
        self.location = location
        self.offset = offset
        self.total = total
        self.records = records
    }
}

/// One game record and where it is.
public struct SourceRecord: Sendable {
    /// The record, or why it did not decode.
    public var game: Lossy<ProviderGame>
    /// Where it is inside its page (`items[3]`, `line 120`).
    public var location: String
    /// Its position in the category (provider order).
    public var position: Int

    public init(game: Lossy<ProviderGame>, location: String, position: Int) {
        self.game = game
        self.location = location
        self.position = position
    }
}
