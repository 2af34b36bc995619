/// One published variant of the catalogue: a language on a platform (`en-iPhone`).
///
/// Editions are encoded as their ``id`` string so that manifests, snapshot envelopes and cache
/// keys all spell them the same way.
///
/// ```swift
/// let edition = try Edition(id: "fr-iPhone")
/// edition.language   // "fr"
/// edition.platform   // .iPhone
/// ```
public struct Edition: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// A BCP 47 language tag such as `en` or `pt-BR`.
    public let language: String
    /// The device platform.
    public let platform: Platform

    /// Creates an edition after checking that `language` is a plain language tag.
    ///
    /// - Throws: ``Edition/InvalidID`` when the language is not 2–3 lowercase letters
    ///   optionally followed by `-` and 2–8 letters or digits.
    public init(language: String, platform: Platform) throws(InvalidID) {
        guard Edition.isLanguageTag(language) else { throw InvalidID(text: "\(language)-\(platform.rawValue)") }
        self.language = language
        self.platform = platform
    }

    /// Parses `language-platform`, splitting at the last `-` (`pt-BR-Android`).
    ///
    /// - Throws: ``Edition/InvalidID`` for anything else.
    public init(id: String) throws(InvalidID) {
        // Bytes, not `Character`s: every key a launch reads names an edition.
        guard let dash = id.utf8.lastIndex(of: UInt8(ascii: "-")),
            let platform = Platform(rawValue: String(id[id.utf8.index(after: dash)...]))
        else { throw InvalidID(text: id) }
        try self.init(language: String(id[..<dash]), platform: platform)
    }

    /// The edition's identifier, `language-platform`; safe to use as a file name.
    public var id: String { "\(language)-\(platform.rawValue)" }

    public var description: String { id }

    public static func < (lhs: Edition, rhs: Edition) -> Bool { lhs.id < rhs.id }

    /// The length of a language tag's first subtag, lowercase letters only (`en`, `haw`). SPI
    /// `ContractRules`: the contract's JSON Schema (the tools' `SnapshotContractSchema`) states it.
    @_spi(CatalogTools) public static let primarySubtagLength = 2...3
    /// The length of each further subtag, letters or digits (`BR`, `Hant`, `419`).
    @_spi(CatalogTools) public static let subtagLength = 2...8

    /// Whether `text` is a language tag this schema accepts (`en`, `fr`, `pt-BR`, `zh-Hant`).
    public static func isLanguageTag(_ text: String) -> Bool {
        // One pass over the bytes, each subtag's length checked at the `-` or the end that closes it.
        var length = 0
        var isFirst = true
        for byte in text.utf8 {
            if byte == UInt8(ascii: "-") {
                guard (isFirst ? primarySubtagLength : subtagLength).contains(length) else { return false }
                isFirst = false
                length = 0
                continue
            }
            let isLower = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            let isAlphanumeric =
                isLower || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            guard isFirst ? isLower : isAlphanumeric else { return false }
            length += 1
        }
        return (isFirst ? primarySubtagLength : subtagLength).contains(length)
    }

    /// The error thrown for an edition identifier that is not `language-platform`.
    public struct InvalidID: Error, Sendable, Hashable, CustomStringConvertible {
        /// The rejected text.
        public let text: String
        public var description: String {
            "invalid edition '\(text)': expected language-platform, e.g. en-iPhone "
                + "(platforms: \(Platform.allCases.map(\.rawValue).joined(separator: ", ")))"
        }
    }
}

extension Edition: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(id: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(id)
    }
}
