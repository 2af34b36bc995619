@_spi(CatalogTools) public import CasinoCatalog
import Foundation

/// The one mapping from provider records to schema values, with all quirk handling.
///
/// The pipeline's normalizer and the app's HTTP upstream both call it, so live data looks
/// exactly like bundled data.
///
/// ```swift
/// let mapped = try ProviderMapping.game(from: record)
/// mapped.value     // a Game with https URLs, plain-text description, RTP as a fraction
/// mapped.notes     // what was dropped on the way, for the log
/// ```
@_spi(CatalogTools) public enum ProviderMapping {
    /// Maps a provider game to a ``Game``.
    ///
    /// Required: an id (`id`, `gId` or `gameId`), a name, an https `launchUrl` and an https
    /// thumbnail (`thumbnail` or `defaultThumbnail`). A missing slug is derived from the name.
    /// Optional fields that are malformed are dropped with a note.
    ///
    /// - Throws: ``RecordError`` naming the first required field that is missing or invalid.
    public static func game(from record: ProviderGame) throws(RecordError) -> Mapped<Game> {
        var notes: [String] = []
        guard let id = record.bestID else {
            throw RecordError(.missingField, field: "id", "the record has no id, gId or gameId")
        }
        try requireLength(id, field: "id", max: CatalogRules.maxIDLength)
        let name = try requiredName(record.name, of: "game \(id)")
        let launchUrl = try requiredURL(record.launchUrl, field: "launchUrl")
        let thumbnail = try requiredURL(record.thumbnail ?? record.defaultThumbnail, field: "thumbnail")

        var slug = TextCleaning.line(record.slug ?? "")
        if slug.isEmpty {
            slug = derivedSlug(from: name, id: id)
            notes.append("slug: missing, derived '\(slug)' from the name")
        }
        try requireLength(slug, field: "slug", max: CatalogRules.maxNameLength)

        var game = Game(id: id, name: name, slug: slug, launchUrl: launchUrl, thumbnail: thumbnail)
        game.backgroundImageUrl = optionalURL(record.backgroundImageUrl, field: "backgroundImageUrl", notes: &notes)
        game.description = description(record.description, notes: &notes)
        game.hasFunMode = flag(record.hasFunMode, field: "hasFunMode", notes: &notes)
        game.hasAnonymousFunMode = flag(record.hasAnonymousFunMode, field: "hasAnonymousFunMode", notes: &notes)
        game.isNew = flag(record.isNew, field: "isNew", notes: &notes)
        game.platforms = platforms(record.platform, notes: &notes)
        game.popularity = popularity(record.popularity, notes: &notes)
        game.vendor = vendor(record.vendor, notes: &notes)
        game.tags = tags(record.tags)
        game.rtp = rtp(record.theoreticalPayOut, notes: &notes)
        game.restrictedTerritories = territories(record.restrictedTerritories, notes: &notes)
        return Mapped(value: game, notes: notes)
    }

    /// Maps a provider category to a ``Category``; `gamesTotal` comes from the embedded
    /// games envelope (0 when absent).
    ///
    /// - Throws: ``RecordError`` for a missing id or name.
    public static func category(from record: ProviderCategory) throws(RecordError) -> Mapped<CasinoCatalog.Category> {
        var notes: [String] = []
        guard let id = record.id.map({ $0.text.trimmingWhitespace() }), !id.isEmpty else {
            throw RecordError(.missingField, field: "id", "the category has no id")
        }
        try requireLength(id, field: "id", max: CatalogRules.maxIDLength)
        let name = try requiredName(record.name, of: "category \(id)")
        let href = optionalURL(record.href, field: "href", notes: &notes)
        let total = max(record.games?.total ?? 0, 0)
        return Mapped(value: Category(id: id, name: name, href: href, gamesTotal: total), notes: notes)
    }

    // MARK: - Fields

    /// A cleaned, non-empty display name within the schema's length.
    private static func requiredName(_ text: String?, of owner: String) throws(RecordError) -> String {
        let name = TextCleaning.line(text ?? "")
        guard !name.isEmpty else {
            throw RecordError(.missingField, field: "name", "\(owner) has no name")
        }
        try requireLength(name, field: "name", max: CatalogRules.maxNameLength)
        return name
    }

    private static func requireLength(_ text: String, field: String, max: Int) throws(RecordError) {
        if text.count > max {
            throw RecordError(.invalidValue, field: field, "longer than \(max) characters (\(text.count))")
        }
    }

    private static func requiredURL(_ text: String?, field: String) throws(RecordError) -> String {
        guard let text, !text.trimmingWhitespace().isEmpty else {
            throw RecordError(.missingField, field: field, "missing; the lobby cannot show the game without it")
        }
        guard let url = URLCleaning.https(text) else {
            throw RecordError(
                .invalidURL, field: field, "not an absolute https URL: '\(text.prefix(120))' (only https is bundled)")
        }
        return url
    }

    private static func optionalURL(_ text: String?, field: String, notes: inout [String]) -> String? {
        guard let text, !text.trimmingWhitespace().isEmpty else { return nil }
        guard let url = URLCleaning.https(text) else {
            notes.append("\(field): dropped, not an absolute https URL: '\(text.prefix(120))'")
            return nil
        }
        return url
    }

    private static func description(_ text: String?, notes: inout [String]) -> String? {
        guard let text else { return nil }
        var plain = TextCleaning.plainText(fromHTML: text)
        if plain.count > CatalogRules.maxDescriptionLength {
            plain = String(plain.prefix(CatalogRules.maxDescriptionLength - 1)) + "…"
            notes.append("description: cut to \(CatalogRules.maxDescriptionLength) characters")
        }
        return plain.isEmpty ? nil : plain
    }

    private static func flag(_ value: FlexibleValue?, field: String, notes: inout [String]) -> Bool {
        guard let value else { return false }
        guard let bool = value.bool else {
            notes.append("\(field): '\(value.text.prefix(20))' is not a boolean, taken as false")
            return false
        }
        return bool
    }

    private static func platforms(_ list: FlexibleList?, notes: inout [String]) -> [Platform] {
        var result = Set<Platform>()
        for text in list?.values ?? [] {
            if let platform = Platform(lenient: text) {
                result.insert(platform)
            } else {
                notes.append("platform: unknown value '\(text.prefix(20))' ignored")
            }
        }
        return result.sorted()
    }

    private static func popularity(_ value: FlexibleValue?, notes: inout [String]) -> Double {
        guard let value else { return 0 }
        guard let number = value.double, number.isFinite else {
            notes.append("popularity: '\(value.text.prefix(20))' is not a number, taken as 0")
            return 0
        }
        return number
    }

    private static func vendor(_ record: ProviderVendor?, notes: inout [String]) -> Vendor? {
        guard let record else { return nil }
        let id =
            record.id.map { TextCleaning.line($0.text) }.flatMap { $0.isEmpty ? nil : $0 }
            ?? record.href.flatMap(URLCleaning.lastPathComponent)
        guard let id, id.count <= CatalogRules.maxIDLength else {
            notes.append("vendor: dropped, it has no id")
            return nil
        }
        let name =
            [record.displayName, record.name].compactMap { $0.map(TextCleaning.line) }.first { !$0.isEmpty } ?? id
        let logo = optionalURL(record.logo ?? record.image, field: "vendor.logo", notes: &notes)
        return Vendor(id: id, name: String(name.prefix(CatalogRules.maxNameLength)), logo: logo)
    }

    private static func tags(_ collection: ProviderCollection<ProviderReference>?) -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        for reference in collection?.items ?? [] {
            let name =
                reference.name.map(TextCleaning.line).flatMap { $0.isEmpty ? nil : $0 }
                ?? reference.id.map { TextCleaning.line($0.text) }.flatMap { $0.isEmpty ? nil : $0 }
                ?? reference.href.flatMap(URLCleaning.lastPathComponent)
            if let name, name.count <= CatalogRules.maxNameLength, seen.insert(name).inserted {
                result.append(name)
            }
        }
        return result
    }

    /// RTP as a fraction: a fraction stays, a percent (above 1, up to 100) is divided by 100;
    /// rounded to 6 decimals so `96.21` becomes exactly `0.9621`.
    private static func rtp(_ value: FlexibleValue?, notes: inout [String]) -> Double? {
        guard let value else { return nil }
        guard let number = value.double, number.isFinite, number > 0, number <= 100 else {
            notes.append("theoreticalPayOut: '\(value.text.prefix(20))' is not an RTP, dropped")
            return nil
        }
        let fraction = number > 1 ? number / 100 : number
        return (fraction * 1_000_000).rounded() / 1_000_000
    }

    private static func territories(_ list: FlexibleList?, notes: inout [String]) -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        for text in list?.values ?? [] {
            let code = text.uppercased()
            guard CatalogRules.isTerritoryCode(code) else {
                notes.append("restrictedTerritories: '\(text.prefix(20))' is not an ISO 3166 code, ignored")
                continue
            }
            if seen.insert(code).inserted { result.append(code) }
        }
        return result
    }

    /// `"Lara Jones is Cleopatra"` → `"lara-jones-is-cleopatra"`; the id when nothing is left.
    private static func derivedSlug(from name: String, id: String) -> String {
        var slug = ""
        var pendingDash = false
        for scalar in name.decomposedStringWithCanonicalMapping.unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                if pendingDash && !slug.isEmpty { slug.append("-") }
                pendingDash = false
                slug.unicodeScalars.append(
                    Unicode.Scalar(UInt8(scalar.value)).properties.lowercaseMapping.unicodeScalars.first!)
            } else if !scalar.properties.isDiacritic && scalar.properties.generalCategory != .nonspacingMark {
                pendingDash = true
            }
        }
        return slug.isEmpty ? id : slug
    }
}
