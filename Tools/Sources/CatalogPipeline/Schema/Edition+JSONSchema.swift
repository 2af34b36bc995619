@_spi(CatalogTools) import CasinoCatalog

extension Edition: JSONSchemaDescribable {
    /// `language-platform`: the language tag ``isLanguageTag(_:)`` accepts, a `-`, and a ``Platform``.
    static var jsonSchema: JSONValue {
        [
            "description": "An edition: a language tag and a platform (en-iPhone, pt-BR-Android).",
            "type": "string", "pattern": .string("^\(idPattern)$"),
        ]
    }

    static var jsonSchemaExample: JSONValue { "en-iPhone" }

    /// The unanchored regular expression of an edition id, for patterns that embed one (snapshot keys).
    ///
    /// Exactly ``init(id:)``: a platform has no `-`, so the last `-` is the one before it.
    static var idPattern: String {
        let primary = "[a-z]{\(primarySubtagLength.lowerBound),\(primarySubtagLength.upperBound)}"
        let subtag = "-[A-Za-z0-9]{\(subtagLength.lowerBound),\(subtagLength.upperBound)}"
        let platforms = Platform.allCases.map(\.rawValue).joined(separator: "|")
        return "\(primary)(\(subtag))*-(\(platforms))"
    }
}
