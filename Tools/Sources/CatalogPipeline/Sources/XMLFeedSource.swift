public import CasinoCatalog
public import Foundation
import ProviderAPI
public import XMLGameFeed

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
    /// Category id → the games listing it, by position then document order: built once, so
    /// answering every category of every edition reads each game once, not once per category.
    private let members: [String: [Member]]
    /// Every platform a game names: with the category names' languages, the feed's editions.
    private let platforms: PlatformSet
    /// The indices of `feed.categories` by position, then document order: the order of every edition.
    private let categoryOrder: [Int]

    /// A game's place in one category, with the platforms it runs on inline: a page checks them for
    /// every member, and a separate array per game cost a cache miss each on a large feed.
    private struct Member: Sendable {
        var index: Int
        var platforms: PlatformSet
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
        var readerLimits = XMLFeedReader.Limits.default
        readerLimits.maxBytes = limits.maxFeedBytes
        readerLimits.maxGames = limits.maxRecordsPerFile
        do {
            feed = try XMLFeedReader.read(contentsOf: url, limits: readerLimits)
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
        (members, platforms) = Self.index(feed)
        let categories = feed.categories
        categoryOrder = categories.indices.sorted { left, right in
            (categories[left].position ?? Int.max, left) < (categories[right].position ?? Int.max, right)
        }
    }

    /// Each category's members sorted by position then document order, and every platform named.
    private static func index(_ feed: XMLFeed) -> (members: [String: [Member]], platforms: PlatformSet) {
        var platforms = PlatformSet()
        var listings: [String: [(position: Int, member: Member)]] = [:]
        var seen = Set<String>()
        for (index, game) in feed.games.enumerated() {
            let gamePlatforms = PlatformSet(
                game.record.platform?.values.lazy.compactMap { Platform(lenient: $0) } ?? [])
            platforms.formUnion(gamePlatforms)
            seen.removeAll(keepingCapacity: true)
            // A game listing a category twice is placed by its first listing.
            for membership in game.memberships where seen.insert(membership.categoryId).inserted {
                listings[membership.categoryId, default: []].append(
                    (membership.position ?? Int.max, Member(index: index, platforms: gamePlatforms)))
            }
        }
        let members = listings.mapValues { list in
            list.sorted { ($0.position, $0.member.index) < ($1.position, $1.member.index) }.map(\.member)
        }
        return (members, platforms)
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
        // Built straight from the feed's games, without an intermediate array of them.
        var records: [SourceRecord] = []
        records.reserveCapacity(members[categoryId]?.count ?? 0)
        for member in members[categoryId] ?? [] where member.platforms.isListed(in: edition) {
            let line = feed.games[member.index].line
            let record = feed.games[member.index].record
            records.append(
                SourceRecord(
                    game: Lossy(record), location: "line \(line) (game \(record.bestID ?? "?"))",
                    position: records.count))
        }
        return SourcePage(location: file, offset: 0, total: records.count, records: records)
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
        let total = (members[category.id] ?? []).count { $0.platforms.isListed(in: edition) }
        let record = ProviderCategory(
            id: .string(category.id), name: name, games: ProviderCollection(count: 0, total: total, items: []))
        let reference = SourcePageReference(location: file, offset: 0, sourceKey: "\(edition.id)/\(category.id)")
        return SourceCategory(
            record: Lossy(record), recordLocation: "line \(category.line) (category \(category.id))",
            pages: total > 0 ? [reference] : [], pagesLocation: file)
    }
}
