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

    /// A game's place in one category, and the platforms it runs on (empty: everywhere).
    private struct Member: Sendable {
        var position: Int
        var index: Int
        var platforms: [Platform]

        /// Whether the game belongs in `edition`: it names no platform, or the edition's.
        func isListed(in edition: Edition) -> Bool {
            platforms.isEmpty || platforms.contains(edition.platform)
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
        members = Self.members(of: feed)
    }

    private static func members(of feed: XMLFeed) -> [String: [Member]] {
        var members: [String: [Member]] = [:]
        for (index, game) in feed.games.enumerated() {
            let platforms = game.record.platform?.values.compactMap { Platform(lenient: $0) } ?? []
            var seen = Set<String>()
            // A game listing a category twice is placed by its first listing.
            for membership in game.memberships where seen.insert(membership.categoryId).inserted {
                members[membership.categoryId, default: []].append(
                    Member(position: membership.position ?? Int.max, index: index, platforms: platforms))
            }
        }
        return members.mapValues { list in list.sorted { ($0.position, $0.index) < ($1.position, $1.index) } }
    }

    public var description: String { "XML feed \(file) (provider \(feed.provider))" }

    public var fetchedAt: Date? { feed.generatedAt }

    public func editions() throws(PipelineError) -> [SourceEdition] {
        editionList().map { edition in
            let categories = feed.categories.enumerated()
                .sorted { ($0.element.position ?? Int.max, $0.offset) < ($1.element.position ?? Int.max, $1.offset) }
                .map { _, category in sourceCategory(category, edition: edition) }
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
        // Built straight from the feed's games, without an intermediate array of them: copying
        // the games (their strings' retains) was most of reading a large feed's pages.
        var records: [SourceRecord] = []
        records.reserveCapacity(members[categoryId]?.count ?? 0)
        for member in members[categoryId] ?? [] where member.isListed(in: edition) {
            let game = feed.games[member.index]
            records.append(
                SourceRecord(
                    game: Lossy(game.record), location: "line \(game.line) (game \(game.record.bestID ?? "?"))",
                    position: records.count))
        }
        return SourcePage(location: file, offset: 0, total: records.count, records: records)
    }

    private func editionList() -> [Edition] {
        if !requestedEditions.isEmpty { return requestedEditions.sorted() }
        let languages = Set(feed.categories.flatMap(\.names.keys)).filter(Edition.isLanguageTag)
        let platforms = Set(
            feed.games.flatMap { $0.record.platform?.values.compactMap { Platform(lenient: $0) } ?? [] })
        return languages.flatMap { language in
            platforms.compactMap { try? Edition(language: language, platform: $0) }
        }.sorted()
    }

    private func sourceCategory(_ category: XMLFeed.Category, edition: Edition) -> SourceCategory {
        let name =
            category.names[edition.language] ?? category.names["en"]
            ?? category.names.sorted { $0.key < $1.key }.first?.value
        let total = (members[category.id] ?? []).count { $0.isListed(in: edition) }
        let record = ProviderCategory(
            id: .string(category.id), name: name, games: ProviderCollection(count: 0, total: total, items: []))
        let reference = SourcePageReference(location: file, offset: 0, sourceKey: "\(edition.id)/\(category.id)")
        return SourceCategory(
            record: Lossy(record), recordLocation: "line \(category.line) (category \(category.id))",
            pages: total > 0 ? [reference] : [], pagesLocation: file)
    }
}
