@_spi(CatalogTools) public import CasinoCatalog
public import Foundation
@_spi(CatalogTools) public import ProviderAPI

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
    @_spi(CatalogTools) public var record: Lossy<ProviderCategory>
    /// Where the record is (`items[3]`).
    public var recordLocation: String
    /// The category's pages, by ascending offset.
    public var pages: [SourcePageReference]
    /// Where the pages were looked for, for error messages.
    public var pagesLocation: String

    @_spi(CatalogTools) public init(
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
    public var records: SourceRecords

    public init(location: String, offset: Int, total: Int?, records: [SourceRecord]) {
        self.init(location: location, offset: offset, total: total, records: SourceRecords(records))
    }

    public init(location: String, offset: Int, total: Int?, records: SourceRecords) {
        self.location = location
        self.offset = offset
        self.total = total
        self.records = records
    }
}

/// A page's records: places in a table of games the source already holds, each made a
/// ``SourceRecord`` when it is read.
///
/// A source that has every game parsed (an XML feed) lists a category's page as indices into its
/// games, not as copies: a copy takes a reference to each game, which on a feed larger than the CPU's
/// cache is a cache miss per record, paid again in every edition that lists the game.
public struct SourceRecords: RandomAccessCollection, Sendable {
    /// One record: which game of the table, its position in the category and where it is.
    struct Entry: Sendable {
        var game: Int
        var position: Int
        var place: SourceRecord.Place
    }

    private let games: [Lossy<ProviderGame>]
    private let entries: [Entry]

    /// Records given one by one.
    public init(_ records: [SourceRecord]) {
        games = records.map(\.game)
        entries = records.indices.map { Entry(game: $0, position: records[$0].position, place: records[$0].place) }
    }

    /// The records `entries` point at in `games` (an array shared with the source, not copied).
    init(games: [Lossy<ProviderGame>], entries: [Entry]) {
        self.games = games
        self.entries = entries
    }

    public var startIndex: Int { entries.startIndex }

    public var endIndex: Int { entries.endIndex }

    public subscript(index: Int) -> SourceRecord {
        let entry = entries[index]
        return SourceRecord(game: games[entry.game], place: entry.place, position: entry.position)
    }
}

/// One game record and where it is.
public struct SourceRecord: Sendable {
    /// The record, or why it did not decode.
    @_spi(CatalogTools) public var game: Lossy<ProviderGame>
    /// Its position in the category (provider order).
    public var position: Int
    /// Where it is, kept as numbers until someone reads ``location``.
    var place: Place

    /// Where a record is inside its page: most sources know it as a number, and spelling it out
    /// for every record (most never appear in an error or a log line) cost a string each.
    enum Place: Sendable {
        /// `items[3]`: an element of a JSON page's `items` array.
        case item(Int)
        /// `line 120 (game 34795)`: a game of an XML feed, by the line its start tag ends on.
        case line(Int)
        /// As given.
        case text(String)
    }

    /// Where it is inside its page (`items[3]`, `line 120 (game 34795)`).
    public var location: String {
        switch place {
        case .item(let index): "items[\(index)]"
        case .line(let line): "line \(line) (game \(game.value?.bestID ?? "?"))"
        case .text(let text): text
        }
    }

    @_spi(CatalogTools) public init(game: Lossy<ProviderGame>, location: String, position: Int) {
        self.init(game: game, place: .text(location), position: position)
    }

    init(game: Lossy<ProviderGame>, place: Place, position: Int) {
        self.game = game
        self.place = place
        self.position = position
    }
}
