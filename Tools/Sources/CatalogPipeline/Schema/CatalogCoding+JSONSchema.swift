@_spi(CatalogTools) import CasinoCatalog

extension CatalogCoding {
    /// A `Date` as ``encoder()`` writes it (`.iso8601`): RFC 3339 in UTC, whole seconds, `Z`.
    ///
    /// The contract is this form. Foundation's `.iso8601` decoding is more lenient in places (it
    /// takes offsets and fractional seconds on Linux), which no other reader should count on.
    static var dateSchema: JSONValue {
        [
            "description": "When the source data was fetched: RFC 3339 in UTC, whole seconds.",
            "type": "string", "format": "date-time",
            "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$",
        ]
    }

    /// A date in that form.
    static var dateExample: JSONValue { "2026-11-20T10:00:00Z" }
}
