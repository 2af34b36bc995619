@_spi(CatalogTools) import CasinoCatalog

extension SnapshotKey: JSONSchemaDescribable {
    /// `edition/categories`, or `edition/games/<percent-escaped category id>/<offset>`.
    ///
    /// Exactly ``init(_:)`` but for one check: that the unescaped category id is valid UTF-8.
    static var jsonSchema: JSONValue {
        [
            "description": .string(
                "What a snapshot file holds: edition/categories, or edition/games/<category id, "
                    + "percent-escaped>/<offset>."),
            "type": "string", "pattern": .string("^\(Edition.idPattern)/(categories|\(gamesPagePattern))$"),
        ]
    }

    static var jsonSchemaExample: JSONValue { "en-iPhone/games/VIDEOSLOTS/10" }

    /// What follows the edition in a games page's key: `games/`, the escaped id (``escape(_:)``'s
    /// unreserved bytes or `%XX`, either case), `/`, and a canonical offset (no sign, no leading zero).
    static var gamesPagePattern: String {
        "games/([A-Za-z0-9._~-]|%[0-9A-Fa-f]{2})+/(0|[1-9][0-9]{0,\(maxOffsetDigits - 1)})"
    }

    /// The pattern of the key of one kind of content, for an envelope that must hold that kind.
    static func pattern(of kind: SnapshotKind) -> String {
        switch kind {
        case .categories: "^[^/]+/categories$"
        case .gamesPage: "^[^/]+/\(gamesPagePattern)$"
        }
    }
}
