import CatalogSupport

/// The identity of one piece of bundled or cached content: an edition's category list, or one
/// page of a category.
///
/// Its string form is stable and unambiguous (category ids are percent-escaped), so the
/// runtime cache can use it as a key and the manifest can name content by it:
///
/// ```swift
/// SnapshotKey.categories(en).description                          // "en-iPhone/categories"
/// SnapshotKey.gamesPage(en, categoryId: "A/B", offset: 10).description // "en-iPhone/games/A%2FB/10"
/// ```
public enum SnapshotKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    case categories(Edition)
    case gamesPage(Edition, categoryId: String, offset: Int)

    /// The edition the content belongs to.
    public var edition: Edition {
        switch self {
        case .categories(let edition), .gamesPage(let edition, _, _): edition
        }
    }

    /// The kind of content.
    public var kind: SnapshotKind {
        switch self {
        case .categories: .categories
        case .gamesPage: .gamesPage
        }
    }

    public var description: String {
        switch self {
        case .categories(let edition):
            "\(edition.id)/categories"
        case .gamesPage(let edition, let categoryId, let offset):
            "\(edition.id)/games/\(SnapshotKey.escape(categoryId))/\(offset)"
        }
    }

    /// Parses the string form; `nil` when it is not one.
    ///
    /// Byte-level: every manifest entry's key is parsed at each app launch.
    public init?(_ text: String) {
        let parts = text.utf8.split(separator: UInt8(ascii: "/"), maxSplits: 4, omittingEmptySubsequences: false)
        guard let first = parts.first, let edition = try? Edition(id: String(Substring(first))) else { return nil }
        switch parts.count {
        case 2 where parts[1].elementsEqual("categories".utf8):
            self = .categories(edition)
        case 4 where parts[1].elementsEqual("games".utf8):
            guard let categoryId = SnapshotKey.unescape(parts[2]), !categoryId.isEmpty,
                let offset = CanonicalDecimal.value(of: parts[3], maxDigits: SnapshotKey.maxOffsetDigits)
            else { return nil }
            self = .gamesPage(edition, categoryId: categoryId, offset: offset)
        default:
            return nil
        }
    }

    /// The most digits a page offset may have: 18, so that parsing one can never overflow `Int`. SPI
    /// `ContractRules`: the contract's JSON Schema (the tools' `SnapshotContractSchema`) states it.
    @_spi(CatalogTools) public static let maxOffsetDigits = 18

    public static func < (lhs: SnapshotKey, rhs: SnapshotKey) -> Bool {
        switch (lhs, rhs) {
        case (.categories(let l), .categories(let r)): l < r
        case (.categories(let l), .gamesPage(let r, _, _)): l <= r
        case (.gamesPage(let l, _, _), .categories(let r)): l < r
        case (.gamesPage(let l, let lc, let lo), .gamesPage(let r, let rc, let ro)):
            (l.id, lc, lo) < (r.id, rc, ro)
        }
    }

    /// Percent-escapes every UTF-8 byte outside `A-Z a-z 0-9 - . _ ~`.
    package static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result +=
                    "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return result
    }

    static func unescape(_ text: String) -> String? {
        unescape(Substring(text).utf8)
    }

    package static func unescape(_ text: Substring.UTF8View) -> String? {
        if !text.contains(UInt8(ascii: "%")) {  // nothing escaped: the common case, no byte copy
            return text.allSatisfy(isUnreserved) ? String(Substring(text)) : nil
        }
        var bytes: [UInt8] = []
        var iterator = text.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            } else if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                return nil
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}

extension SnapshotKey: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let key = SnapshotKey(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "invalid snapshot key '\(text)'")
        }
        self = key
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
