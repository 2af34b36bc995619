@_spi(CatalogTools) public import CasinoCatalog
public import Foundation
@_spi(CatalogTools) import ProviderAPI
@_spi(CatalogTools) public import XMLGameFeed

/// An XML game feed (see docs/PROVIDER_API.md) read as a catalogue source.
///
/// Editions are the feed's languages (from category names) × platforms: the configured editions
/// when there are any, else every language with every platform a game names. A category's
/// games for an edition are the games that list it and run on the edition's platform (a game
/// listing no platform runs everywhere), ordered by their position in the category, then by
/// document order.
public struct XMLFeedSource: CatalogSource {
    /// The parsed feed.
    public let feed: XMLFeed
    private let file: String
    private let requestedEditions: [Edition]
    /// Every category's games, by position then document order, in one array: built once, so
    /// answering every category of every edition reads each game once, not once per category.
    private let members: Members
    /// Every platform a game names: with the category names' languages, the feed's editions.
    private let platforms: PlatformSet
    /// The indices of `feed.categories` by position, then document order: the order of every edition.
    private let categoryOrder: [Int]
    /// The feed's games as records, once: every page points into this array.
    private let records: [Lossy<ProviderGame>]

    /// A game's place in one category, with what a page needs of it inline (its platforms, checked
    /// for every member, and its line): a page reads nothing else of the game, which on a large feed
    /// is a cache miss each.
    private struct Member: Sendable {
        var index: Int
        /// Its position in the category, `Int.max` when the feed gives none.
        var position: Int
        /// The line of the game's start tag, for its record's location.
        var line: Int
        var platforms: PlatformSet
    }

    /// Category id → its members, as ranges of one array (not an array per category: on a feed of
    /// 30,000 categories, growing that many arrays one game at a time missed the cache at every append).
    private struct Members: Sendable {
        private var slots: [String: Int] = [:]
        private var ranges: [Range<Int>] = []
        private var members: [Member] = []

        subscript(categoryId: String) -> ArraySlice<Member> {
            guard let slot = slots[categoryId] else { return [] }
            return members[ranges[slot]]
        }

        /// Each category's members, sorted by position then document order; `platforms` is the
        /// game's platforms, by document index.
        init(_ feed: XMLFeed, platforms: [PlatformSet]) {
            for category in feed.categories where slots[category.id] == nil { slots[category.id] = slots.count }
            // A listing per (game, category), in document order; a category the feed does not
            // declare has no page, and a game listing a category twice is placed by its first listing.
            var listings: [(slot: Int, game: Int, position: Int)] = []
            var counts = [Int](repeating: 0, count: slots.count)
            var lastGame = [Int](repeating: -1, count: slots.count)
            for (index, game) in feed.games.enumerated() {
                for membership in game.memberships {
                    guard let slot = slots[membership.categoryId], lastGame[slot] != index else { continue }
                    lastGame[slot] = index
                    counts[slot] += 1
                    listings.append((slot, index, membership.position ?? Int.max))
                }
            }
            var start = 0
            ranges = counts.map { count in
                defer { start += count }
                return start..<start + count
            }
            var next = ranges.map(\.lowerBound)
            members = [Member](unsafeUninitializedCapacity: listings.count) { buffer, initialized in
                for listing in listings {
                    let game = listing.game
                    (buffer.baseAddress! + next[listing.slot]).initialize(
                        to: Member(
                            index: game, position: listing.position, line: feed.games[game].line,
                            platforms: platforms[game]))
                    next[listing.slot] += 1
                }
                initialized = listings.count
            }
            // Listed in document order already; sorted by position (a run already in order costs one pass).
            for range in ranges {
                members[range].sort { ($0.position, $0.index) < ($1.position, $1.index) }
            }
        }
    }

    /// A set of ``Platform``s as bits; empty when a game names none (it then runs everywhere).
    private struct PlatformSet: Sendable {
        private var bits: UInt8 = 0

        init() {}

        init(_ platforms: some Sequence<Platform>) {
            for platform in platforms { insert(platform) }
        }

        var isEmpty: Bool { bits == 0 }

        /// The platforms, in ``Platform/allCases`` order.
        var elements: [Platform] { Platform.allCases.filter(contains) }

        func contains(_ platform: Platform) -> Bool { bits & Self.bit(platform) != 0 }

        mutating func insert(_ platform: Platform) { bits |= Self.bit(platform) }

        mutating func formUnion(_ other: PlatformSet) { bits |= other.bits }

        /// Whether a game with these platforms belongs in `edition`: it names none, or the edition's.
        func isListed(in edition: Edition) -> Bool { isEmpty || contains(edition.platform) }

        /// A bit per platform, by an exhaustive switch: a new platform does not compile until it has
        /// one (and a page's check per member searches nothing).
        private static func bit(_ platform: Platform) -> UInt8 {
            switch platform {
            case .pc: 1 << 0
            case .iPad: 1 << 1
            case .iPhone: 1 << 2
            case .android: 1 << 3
            }
        }
    }

    /// Parses `file` with the hardened libxml2 reader.
    ///
    /// - Parameters:
    ///   - url: The feed file.
    ///   - editions: The editions to build; empty means every one the feed has.
    ///   - limits: Size caps; ``PipelineConfiguration/Limits/maxFeedBytes`` bounds the file.
    /// - Throws: ``PipelineError`` naming the file and line for malformed or hostile XML.
    public init(
        file url: URL, editions: [Edition] = [], limits: PipelineConfiguration.Limits = .default
    ) throws(PipelineError) {
        do {
            feed = try XMLFeedReader.read(contentsOf: url, limits: Self.readerLimits(limits))
        } catch {
            let code: PipelineError.Code =
                switch error.code {
                case .tooLarge, .tooManyGames: .inputTooLarge
                case .missingInput: .missingInput
                case .io: .io
                default: .malformedInput
                }
            throw PipelineError(
                code, error.message, file: url.relativePath, record: error.line.map { "line \($0)" }, cause: error)
        }
        file = url.relativePath
        requestedEditions = editions
        // One pass over the games' fields; after it only their indices are handled.
        var records: [Lossy<ProviderGame>] = []
        var gamePlatforms: [PlatformSet] = []
        records.reserveCapacity(feed.games.count)
        gamePlatforms.reserveCapacity(feed.games.count)
        var platforms = PlatformSet()
        for game in feed.games {
            let gamePlatform = PlatformSet(
                game.record.platform?.values.lazy.compactMap { Platform(lenient: $0) } ?? [])
            records.append(Lossy(game.record))
            gamePlatforms.append(gamePlatform)
            platforms.formUnion(gamePlatform)
        }
        self.records = records
        self.platforms = platforms
        members = Members(feed, platforms: gamePlatforms)
        let categories = feed.categories
        categoryOrder = categories.indices.sorted { left, right in
            (categories[left].position ?? Int.max, left) < (categories[right].position ?? Int.max, right)
        }
    }

    /// The reader's limits under the pipeline's: the defaults, with the feed's size and game count capped
    /// by ``PipelineConfiguration/Limits/maxFeedBytes`` and ``PipelineConfiguration/Limits/maxRecordsPerFile``.
    public static func readerLimits(_ limits: PipelineConfiguration.Limits) -> XMLFeedReader.Limits {
        var readerLimits = XMLFeedReader.Limits.default
        readerLimits.maxBytes = limits.maxFeedBytes
        readerLimits.maxGames = limits.maxRecordsPerFile
        return readerLimits
    }

    public var description: String { "XML feed \(file) (provider \(feed.provider))" }

    public var fetchedAt: Date? { feed.generatedAt }

    public func editions() throws(PipelineError) -> [SourceEdition] {
        editionList().map { edition in
            let categories = categoryOrder.map { sourceCategory(feed.categories[$0], edition: edition) }
            return SourceEdition(edition: edition, location: file, categories: categories)
        }
    }

    public func page(_ reference: SourcePageReference) throws(PipelineError) -> SourcePage {
        // The whole category is one page; its key is "<edition>/<category id>".
        let key = reference.sourceKey
        guard let slash = key.firstIndex(of: "/"), let edition = try? Edition(id: String(key[..<slash])) else {
            throw PipelineError(.invalidContent, "unknown page reference '\(key)'", file: file)
        }
        let categoryId = String(key[key.index(after: slash)...])
        // Indices into `records`: no game is touched, so a page costs the same on any size of feed.
        var entries: [SourceRecords.Entry] = []
        entries.reserveCapacity(members[categoryId].count)
        for member in members[categoryId] where member.platforms.isListed(in: edition) {
            entries.append(
                SourceRecords.Entry(game: member.index, position: entries.count, place: .line(member.line)))
        }
        return SourcePage(
            location: file, offset: 0, total: entries.count, records: SourceRecords(games: records, entries: entries))
    }

    private func editionList() -> [Edition] {
        if !requestedEditions.isEmpty { return requestedEditions.sorted() }
        let languages = Set(feed.categories.flatMap(\.names.keys)).filter(Edition.isLanguageTag)
        return languages.flatMap { language in
            platforms.elements.compactMap { try? Edition(language: language, platform: $0) }
        }.sorted()
    }

    private func sourceCategory(_ category: XMLFeed.Category, edition: Edition) -> SourceCategory {
        let name =
            category.names[edition.language] ?? category.names["en"]
            ?? category.names.sorted { $0.key < $1.key }.first?.value
        let total = members[category.id].count { $0.platforms.isListed(in: edition) }
        let record = ProviderCategory(
            id: .string(category.id), name: name, games: ProviderCollection(count: 0, total: total, items: []))
        let reference = SourcePageReference(location: file, offset: 0, sourceKey: "\(edition.id)/\(category.id)")
        return SourceCategory(
            record: Lossy(record), recordLocation: "line \(category.line) (category \(category.id))",
            pages: total > 0 ? [reference] : [], pagesLocation: file)
    }
}
