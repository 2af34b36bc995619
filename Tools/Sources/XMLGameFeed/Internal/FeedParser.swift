@_spi(CatalogTools) import CasinoCatalog
import Foundation
@_spi(CatalogTools) import ProviderAPI

/// Builds an ``XMLFeed`` from a ``XMLCursor``: the `<feed>` header, then `<categories>` and
/// `<games>` sections in any number and order; anything else is skipped.
struct FeedParser {
    let cursor: XMLCursor
    private let scratch = Scratch()

    /// Lists reused from game to game: a game's memberships and child texts are gathered here,
    /// then copied out at their exact size, one allocation each rather than one per doubling.
    private final class Scratch {
        var memberships: [XMLFeed.Membership] = []
        var texts: [String] = []
    }

    /// Reads `input` as a feed with a fresh libxml2 parser, freed on every path.
    static func parse(_ input: FeedInput, file: String, limits: XMLFeedReader.Limits) throws(XMLFeedError) -> XMLFeed {
        try FeedParser(cursor: XMLCursor(input: input, file: file, limits: limits)).feed()
    }

    // MARK: - Feed

    private func feed() throws(XMLFeedError) -> XMLFeed {
        repeat {
            guard try cursor.advance() else {
                throw cursor.error(.malformed, "the feed has no root element; expected <feed>")
            }
        } while cursor.kind != .element
        guard cursor.name == "feed" else {
            throw cursor.error(
                .malformed,
                "the root element is <\(cursor.name.prefix(60))>, expected <feed>; is this an XML game feed?",
                line: cursor.line)
        }
        let line = cursor.line
        var provider: String?
        var generated: String?
        var version: String?
        try cursor.forEachAttribute { name, value in
            switch name {
            case .provider: provider = value.string
            case .generated: generated = value.string
            case .version: version = value.string
            default: break
            }
        }
        guard let provider, !provider.trimmingWhitespace().isEmpty else {
            throw cursor.error(
                .invalidValue,
                "<feed> has no provider attribute; the feed must name its provider (<feed provider=\"acme\">)",
                line: line)
        }
        var feed = XMLFeed(
            provider: provider,
            generatedAt: try generated.map { text throws(XMLFeedError) in try date(text, line: line) },
            version: version)

        try cursor.forEachChild { name throws(XMLFeedError) in
            switch name {
            case .categories:
                try cursor.forEachChild { name throws(XMLFeedError) in
                    if name == .category { feed.categories.append(try category()) }
                }
            case .games:
                try cursor.forEachChild { name throws(XMLFeedError) in
                    guard name == .game else { return }
                    guard feed.games.count < cursor.limits.maxGames else {
                        throw cursor.error(
                            .tooManyGames,
                            "the feed lists more than \(cursor.limits.maxGames) games; raise Limits.maxGames if it really is that large",
                            line: cursor.line)
                    }
                    feed.games.append(try game())
                }
            default:
                break
            }
        }
        // Read to the end: trailing content after </feed> must still be well-formed.
        while try cursor.advance() {}
        return feed
    }

    private func date(_ text: String, line: Int) throws(XMLFeedError) -> Date {
        let trimmed = text.trimmingWhitespace()
        if let date = try? Date(trimmed, strategy: .iso8601) { return date }
        if let date = try? Date(trimmed, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
            return date
        }
        throw cursor.error(
            .invalidValue,
            "generated=\"\(text.prefix(40))\" is not an ISO 8601 date-time (like 2026-11-20T10:00:00Z); fix it at the source",
            line: line)
    }

    /// `element` names the position's owner in an error, and is built only for one; `line` is
    /// the owner's, or `nil` while the cursor is still on the owner.
    private func position(
        _ text: String?, of element: @autoclosure () -> String, line: Int?
    ) throws(XMLFeedError) -> Int? {
        guard let text else { return nil }
        guard let value = Int(text.trimmingWhitespace()) else {
            throw cursor.error(
                .invalidValue, "\(element()): position=\"\(text.prefix(40))\" is not an integer",
                line: line ?? cursor.line)
        }
        return value
    }

    // MARK: - Categories

    private func category() throws(XMLFeedError) -> XMLFeed.Category {
        let line = cursor.line
        var id: String?
        var position: String?
        try cursor.forEachAttribute { name, value in
            switch name {
            case .id: id = value.string
            case .position: position = value.string
            default: break
            }
        }
        guard let id, !id.trimmingWhitespace().isEmpty else {
            throw cursor.error(.invalidValue, "<category> has no id attribute; every category needs one", line: line)
        }
        var category = XMLFeed.Category(
            id: id, position: try self.position(position, of: "category \(id)", line: line), line: line)
        try cursor.forEachChild { name throws(XMLFeedError) in
            guard name == .name else { return }
            var language = ""
            try cursor.forEachAttribute { name, value in
                if name == .lang { language = value.string }
            }
            let text = try cursor.text()
            if category.names[language] == nil { category.names[language] = text }
        }
        return category
    }

    // MARK: - Games

    private func game() throws(XMLFeedError) -> XMLFeed.Game {
        let line = cursor.line
        var record = ProviderGame.Fields()
        var id: String?
        try cursor.forEachAttribute { name, value in
            switch name {
            case .id:
                id = value.string
                record.id = id.map(FlexibleValue.string)
            case .slug: record.slug = value.string
            case .funMode: record.hasFunMode = .string(value.string)
            case .anonymousFunMode: record.hasAnonymousFunMode = .string(value.string)
            case .isNew: record.isNew = .string(value.string)
            default: break
            }
        }
        scratch.memberships.removeAll(keepingCapacity: true)
        try cursor.forEachChild { name throws(XMLFeedError) in
            switch name {
            case .name: record.name = try cursor.text()
            case .vendor:
                var id: String?
                try cursor.forEachAttribute { name, value in
                    if name == .id { id = value.string }
                }
                record.vendor = ProviderVendor(id: id.map(FlexibleValue.string), name: try cursor.text())
            case .description: record.description = try cursor.text()
            case .thumbnail: record.thumbnail = try cursor.text()
            case .background: record.backgroundImageUrl = try cursor.text()
            case .launchUrl: record.launchUrl = try cursor.text()
            case .platforms:
                try gatherTexts(of: .platform)
                record.platform = .array(scratch.texts.withUnsafeBufferPointer { Array($0) })
            case .categories: try gatherMemberships(ofGame: id, line: line)
            case .popularity: record.popularity = .string(try cursor.text())
            case .rtp: record.theoreticalPayOut = .string(try cursor.text())
            case .tags:
                try gatherTexts(of: .tag)
                record.tags = ProviderCollection(items: scratch.texts.map { ProviderReference(name: $0) })
            case .restrictedTerritories: record.restrictedTerritories = .string(try cursor.text())
            default: break
            }
        }
        let memberships = scratch.memberships.withUnsafeBufferPointer { Array($0) }
        // Moved out, not copied: the closures above captured `record`, so passing it would copy
        // the fields (a retain of every string) and then release the original.
        var fields = ProviderGame.Fields()
        swap(&fields, &record)
        return XMLFeed.Game(record: ProviderGame(fields), memberships: memberships, line: line)
    }

    /// Replaces `scratch.texts` with the texts of the current element's `<child>` elements, in order.
    private func gatherTexts(of child: XMLCursor.Name) throws(XMLFeedError) {
        scratch.texts.removeAll(keepingCapacity: true)
        try cursor.forEachChild { name throws(XMLFeedError) in
            if name == child { scratch.texts.append(try cursor.text()) }
        }
    }

    /// Appends a game's `<categories><category ref="…" position="…"/></categories>` to
    /// `scratch.memberships`.
    ///
    /// `id` and `line` are the game's, to name it in an error.
    private func gatherMemberships(ofGame id: String?, line: Int) throws(XMLFeedError) {
        func label() -> String { id.map { "game \($0.prefix(40))" } ?? "game at line \(line)" }
        try cursor.forEachChild { name throws(XMLFeedError) in
            guard name == .category else { return }
            var ref: String?
            var position: String?
            try cursor.forEachAttribute { name, value in
                switch name {
                case .ref: ref = value.string
                case .position: position = value.string
                default: break
                }
            }
            // The cursor is still on the <category>: its line is read only for an error.
            guard let ref, !ref.trimmingWhitespace().isEmpty else {
                throw cursor.error(
                    .invalidValue, "\(label()): <category> has no ref attribute; it must name a category id",
                    line: cursor.line)
            }
            scratch.memberships.append(
                XMLFeed.Membership(
                    categoryId: ref, position: try self.position(position, of: "\(label()) in \(ref)", line: nil)))
        }
    }
}
