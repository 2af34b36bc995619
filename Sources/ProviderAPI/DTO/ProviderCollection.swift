@_spi(CatalogTools) import CasinoCatalog
import Foundation

/// The provider's collection envelope, used at every level:
/// `{"count": 5, "total": 133, "items": [...], "pages": {...}}`.
@_spi(CatalogTools) public struct ProviderCollection<Item: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    /// Items in this response.
    public var count: Int?
    /// Items in the whole collection.
    public var total: Int?
    /// The items; absent in some nested envelopes.
    public var items: [Item]?
    /// Links to the neighbouring pages.
    public var pages: Pages?

    public init(count: Int? = nil, total: Int? = nil, items: [Item]? = nil, pages: Pages? = nil) {
        self.count = count
        self.total = total
        self.items = items
        self.pages = pages
    }

    /// The envelope's page links (absolute URLs or `null`).
    public struct Pages: Codable, Sendable, Hashable {
        public var first: String?
        public var next: String?
        public var previous: String?
        public var last: String?

        public init(first: String? = nil, next: String? = nil, previous: String? = nil, last: String? = nil) {
            self.first = first
            self.next = next
            self.previous = previous
            self.last = last
        }
    }
}

/// A collection item that failed to decode is kept as its error instead of failing the whole
/// response, so one bad record can be skipped and named.
@_spi(CatalogTools) public struct Lossy<Value: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    /// The decoded value, or `nil` when the item did not decode.
    public var value: Value?
    /// Why the item did not decode.
    public var failure: String?

    public init(_ value: Value) {
        self.value = value
        self.failure = nil
    }

    public init(from decoder: any Decoder) throws {
        do {
            value = try Value(from: decoder)
            failure = nil
        } catch {
            value = nil
            failure = DecodingFailure.describe(error)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
    }
}
