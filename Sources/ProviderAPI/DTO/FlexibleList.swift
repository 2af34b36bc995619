@_spi(CatalogTools) import CasinoCatalog
import Foundation

/// A list the provider gives either as a JSON array or as one delimited string
/// (`["iPhone", "Android"]` or `"iPhone,Android"`, `"AF AD CA-ON"`).
@_spi(CatalogTools) public enum FlexibleList: Codable, Sendable, Hashable {
    case array([String])
    case string(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self = .string(text)
        } else {
            self = .array(try container.decode([FlexibleValue].self).map(\.text))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .array(let values): try container.encode(values)
        case .string(let value): try container.encode(value)
        }
    }

    /// The elements, trimmed, without empty ones; a string is split at commas, semicolons and
    /// whitespace.
    public var values: [String] {
        let raw: [String] =
            switch self {
            case .array(let values): values
            case .string(let text):
                text.split(whereSeparator: { $0 == "," || $0 == ";" || $0.isWhitespace }).map(String.init)
            }
        return raw.map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
    }
}
