@_spi(CatalogTools) import CasinoCatalog

/// Where the player is, as a licence sees it: an ISO 3166-1 alpha-2 country code, optionally with
/// an ISO 3166-2 subdivision (`GB`, `CA-ON`). Tell the cache with ``CatalogCache/setTerritory(_:)``.
///
/// Codes compare case-insensitively (`ca-on` is `CA-ON`); only ASCII letters are folded, so no
/// other script's letter can pass for one.
///
/// ```swift
/// let ontario = Territory("ca-on")!          // CA-ON
/// ontario.isRestricted(byAnyOf: ["CA"])      // true: restricted in the whole country
/// ontario.isRestricted(byAnyOf: ["CA-QC"])   // false: another province
/// ```
public struct Territory: Sendable, Hashable, CustomStringConvertible {
    /// The code, upper case: `GB`, `CA-ON`.
    public let code: String

    /// The territory `code` names, or `nil` when it is not a country code with an optional
    /// subdivision (`GB`, `CA-ON`; any case).
    public init?(_ code: String) {
        guard let canonical = CatalogRules.territoryCode(code) else { return nil }
        self.code = canonical
    }

    /// The country: the code's first two letters.
    public var country: String { String(code.prefix(2)) }

    public var description: String { code }

    /// Whether a game restricted in `codes` is withheld here: when a code names this territory,
    /// or the country it lies in (`CatalogRules/isRestricted(byAnyOf:in:)`). A malformed code
    /// withholds the game.
    public func isRestricted(byAnyOf codes: [String]) -> Bool {
        CatalogRules.isRestricted(byAnyOf: codes, in: code)
    }
}
