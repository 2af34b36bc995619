@_spi(CatalogTools) public import CasinoCatalog
public import Foundation

/// A request to the provider's casino API, built (by the pipeline's fetcher and the app's HTTP
/// upstream) and parsed (by the simulator) in one place.
///
/// ```swift
/// let request = ProviderRequest.gamesPage(edition, categoryId: "VIDEOSLOTS", offset: 10, limit: 10)
/// request.url(relativeTo: base)
/// // …/v1/casino/games?language=en&platform=iPhone&pagination=offset=10,limit=10&expand=vendor
/// //   &filter=categories(id=VIDEOSLOTS)&sortedField=popularity
/// ```
@_spi(CatalogTools) public enum ProviderRequest: Sendable, Hashable, CustomStringConvertible {
    /// An edition's categories with each category's game count (`games(offset=0,limit=0)`).
    case categories(Edition)
    /// One page of a category's games, most popular first, with the vendor expanded.
    case gamesPage(Edition, categoryId: String, offset: Int, limit: Int)

    /// `/v1/casino/categories`
    public static let categoriesPath = "/v1/casino/categories"
    /// `/v1/casino/games`
    public static let gamesPath = "/v1/casino/games"

    /// The edition asked for.
    public var edition: Edition {
        switch self {
        case .categories(let edition), .gamesPage(let edition, _, _, _): edition
        }
    }

    /// The path below the API's base URL.
    public var path: String {
        switch self {
        case .categories: Self.categoriesPath
        case .gamesPage: Self.gamesPath
        }
    }

    /// The query parameters, in the provider's order, not yet percent-encoded.
    public var parameters: [(name: String, value: String)] {
        let common = [("language", edition.language), ("platform", edition.platform.rawValue)]
        switch self {
        case .categories:
            return common + [
                ("pagination", "offset=0,games(offset=0,limit=0)"), ("fields", "id,name,href,games"),
            ]
        case .gamesPage(_, let categoryId, let offset, let limit):
            return common + [
                ("pagination", "offset=\(offset),limit=\(limit)"), ("expand", "vendor"),
                ("filter", "categories(id=\(categoryId))"), ("sortedField", "popularity"),
            ]
        }
    }

    /// The encoded query string (`language=en&platform=iPhone&…`); a category id is escaped so it
    /// can never break the `filter` syntax or the query (`&`, `=`, `)`, spaces, unicode).
    public var query: String {
        parameters.map { name, value in
            "\(name)=\(Self.encode(value, allowing: name == "filter" || name == "pagination" || name == "fields"))"
        }.joined(separator: "&")
    }

    /// The request's URL below `base` (which may carry a path prefix, e.g. `https://api.example.com/prod`).
    public func url(relativeTo base: URL) -> URL {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return URL(string: text + path + "?" + query)!
    }

    public var description: String { path + "?" + query }

    /// Parses a request the simulator received: `path` and the query parameters, decoded.
    ///
    /// - Throws: ``ParseError`` naming the parameter that is missing or malformed.
    public init(path: String, parameters: [String: String]) throws(ParseError) {
        guard let language = parameters["language"], let platformName = parameters["platform"] else {
            throw ParseError("language and platform are required")
        }
        guard let platform = Platform(lenient: platformName),
            let edition = try? Edition(language: language, platform: platform)
        else { throw ParseError("unknown edition \(language)-\(platformName)") }
        switch path {
        case Self.categoriesPath:
            self = .categories(edition)
        case Self.gamesPath:
            let pagination = Self.pagination(
                parameters["pagination"] ?? "offset=0,limit=\(CacheValidation.defaultPageSize)")
            guard let offset = pagination["offset"].flatMap(Int.init),
                (0...CatalogRules.maxGamesTotal).contains(offset),
                let limit = pagination["limit"].flatMap(Int.init), (1...CatalogRules.maxPageSize).contains(limit)
            else {
                throw ParseError(
                    "pagination must be offset=N,limit=M with N in 0...\(CatalogRules.maxGamesTotal) and M in 1...\(CatalogRules.maxPageSize)"
                )
            }
            guard let filter = parameters["filter"], filter.hasPrefix("categories(id="), filter.hasSuffix(")") else {
                throw ParseError("filter=categories(id=X) is required")
            }
            let categoryId = String(filter.dropFirst("categories(id=".count).dropLast())
            guard !categoryId.isEmpty else { throw ParseError("the category id is empty") }
            self = .gamesPage(edition, categoryId: categoryId, offset: offset, limit: limit)
        default:
            throw ParseError("unknown path \(path)")
        }
    }

    /// Why a request could not be parsed.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// `offset=0,limit=10` (nested `games(…)` groups are skipped) as a dictionary.
    private static func pagination(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var depth = 0
        var current = ""
        for character in text + "," {
            switch character {
            case "(":
                depth += 1
                current.append(character)
            case ")":
                depth -= 1
                current.append(character)
            case "," where depth == 0:
                let parts = current.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2, !parts[0].contains("(") { result[parts[0]] = parts[1] }
                current = ""
            default: current.append(character)
            }
        }
        return result
    }

    /// Percent-encodes everything outside `A-Z a-z 0-9 - . _ ~`, and also keeps `, ( ) =` when
    /// `structural` (the provider's mini-syntax inside `pagination` and `filter`). A category id
    /// inside `filter` is encoded fully first, so its `)` or `=` cannot end the syntax early.
    private static func encode(_ value: String, allowing structural: Bool) -> String {
        if structural, value.hasPrefix("categories(id="), value.hasSuffix(")") {
            let id = String(value.dropFirst("categories(id=".count).dropLast())
            return "categories(id=" + SnapshotKey.escape(id) + ")"
        }
        var result = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: ","), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "="):
                if structural {
                    result.unicodeScalars.append(Unicode.Scalar(byte))
                } else {
                    result += "%" + String(byte, radix: 16, uppercase: true)
                }
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                result += byte < 16 ? "%0" + hex : "%" + hex
            }
        }
        return result
    }
}
