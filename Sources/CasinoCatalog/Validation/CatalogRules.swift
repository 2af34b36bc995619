import Foundation

/// The schema's rules on single values, shared by the pipeline (which refuses to write
/// content that breaks them) and the runtime (which refuses to serve it).
@_spi(CatalogTools) public enum CatalogRules {
    /// Longest id accepted: 128 characters.
    public static let maxIDLength = 128
    /// Longest name accepted: 256 characters.
    public static let maxNameLength = 256
    /// Longest description accepted: 4,096 characters.
    public static let maxDescriptionLength = 4096
    /// Longest URL accepted: 2,048 bytes.
    public static let maxURLLength = 2048
    /// The largest page size (`limit`) accepted: 1,000 games, the provider's own maximum.
    public static let maxPageSize = 1000
    /// The most games a category may report (`total`), and so the largest page offset:
    /// 100,000,000. Far above any real catalogue, and far enough below `Int.max` that
    /// `offset + limit` can never overflow for a page within the rules.
    public static let maxGamesTotal = 100_000_000
    /// Longest snapshot file path accepted in a manifest: 1,024 bytes.
    public static let maxPathLength = 1024
    /// Longest component of such a path: 255 bytes, the usual file-name limit.
    public static let maxPathComponentLength = 255
    /// The number of lowercase hex digits of a SHA-256 digest: 64.
    public static let sha256HexLength = 64
    /// What a content hash starts with, before the hex SHA-256 of the content: `sha256:`.
    public static let contentHashPrefix = "sha256:"

    /// Whether `text` is an absolute `https` URL with a host, made of URL-safe ASCII only.
    ///
    /// Rejects `http:`, protocol-relative `//host/x` (normalize it first), relative paths,
    /// `javascript:` and anything with spaces, quotes, angle brackets or control characters.
    public static func isAbsoluteHTTPS(_ text: String) -> Bool {
        // Byte-level on purpose: Foundation's `hasPrefix`/`contains` bridge through NSString on
        // Linux and made this check 10 % of a 10,000-game pipeline run; and over the string's own
        // UTF-8 buffer, so checking a URL allocates nothing.
        var text = text
        return text.withUTF8(isAbsoluteHTTPS)
    }

    private static func isAbsoluteHTTPS(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let scheme: StaticString = "https://"
        let schemeLength = scheme.utf8CodeUnitCount
        guard bytes.count <= maxURLLength, bytes.count > schemeLength,
            UnsafeBufferPointer(start: scheme.utf8Start, count: schemeLength).elementsEqual(bytes.prefix(schemeLength)),
            bytes.allSatisfy(isURLByte)
        else { return false }
        let authority = bytes[schemeLength...].prefix {
            $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#")
        }
        guard !authority.contains(UInt8(ascii: "@")) else { return false }
        let colon = authority.firstIndex(of: UInt8(ascii: ":"))
        let host = authority[..<(colon ?? authority.endIndex)]
        guard let first = host.first, first != UInt8(ascii: "."), first != UInt8(ascii: "-"),
            host.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") })
        else { return false }
        if let colon {
            let digits = authority[(colon + 1)...]
            guard (1...5).contains(digits.count), digits.allSatisfy({ (48...57).contains($0) }) else { return false }
            let port = digits.reduce(0) { $0 * 10 + Int($1 - 48) }
            guard (1...65535).contains(port) else { return false }
        }
        return true
    }

    /// Whether `path` is a relative, `/`-separated path that stays inside its directory: no
    /// empty, `.` or `..` components, no backslashes, no NUL or control characters, and every
    /// component made of `A-Z a-z 0-9 . _ -` only.
    public static func isSafeRelativePath(_ path: String) -> Bool {
        // One pass over the bytes (every app launch checks every manifest path): the allowed bytes
        // are ASCII, so a component's length in bytes is its length in characters.
        guard !path.isEmpty, path.utf8.count <= maxPathLength else { return false }
        var length = 0
        var dots = 0
        func endsSafeComponent() -> Bool {
            length > 0 && length <= maxPathComponentLength && !(dots == length && length <= 2)
        }
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "/"):
                guard endsSafeComponent() else { return false }
                length = 0
                dots = 0
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                length += 1
            case UInt8(ascii: "."):
                length += 1
                dots += 1
            default:
                return false
            }
        }
        return endsSafeComponent()
    }

    /// Whether `code` looks like an ISO 3166-1 alpha-2 code, optionally with a subdivision
    /// (`FR`, `CA-ON`, `GB-ENG`).
    public static func isTerritoryCode(_ code: String) -> Bool {
        // One pass over the bytes, no array of parts: every restricted code of every game a page
        // holds is checked when the page is read.
        let bytes = code.utf8
        guard (2...6).contains(bytes.count) else { return false }
        var index = 0
        var subdivisionLength = -1  // -1 before the `-`
        for byte in bytes {
            let isUpper = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            if index < 2 {
                guard isUpper else { return false }
            } else if index == 2 {
                guard byte == UInt8(ascii: "-") else { return false }
                subdivisionLength = 0
            } else {
                guard isUpper || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return false }
                subdivisionLength += 1
            }
            index += 1
        }
        return subdivisionLength == -1 || (1...3).contains(subdivisionLength)
    }

    /// `code` with ASCII letters in upper case, if it is then a territory code (`ca-on`: `CA-ON`);
    /// only ASCII is folded, so no other script's letter can pass for one.
    public static func territoryCode(_ code: String) -> String? {
        let bytes = code.utf8.map { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) ? $0 - 32 : $0 }
        let upper = String(decoding: bytes, as: UTF8.self)
        return isTerritoryCode(upper) ? upper : nil
    }

    /// Whether a game restricted in `codes` is withheld in `territory` (a territory code, upper case):
    /// when a code names it, or the country it lies in (a game restricted in `CA` is withheld in
    /// `CA-ON`; one restricted in `CA-ON` only there). A malformed code withholds the game: it cannot
    /// be shown not to name the territory, and a malformed code must never show more.
    public static func isRestricted(byAnyOf codes: [String], in territory: String) -> Bool {
        let country = territory.prefix(2)
        return codes.contains { restricted in
            guard let restricted = territoryCode(restricted) else { return true }
            return restricted == territory || restricted == country
        }
    }

    /// Whether `text` holds a control character (other than none: tabs and newlines count too).
    static func hasControlCharacters(_ text: String) -> Bool {
        if isPrintableASCII(text) { return false }  // the common case
        return text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// Whether `byte` may stand unescaped in a URL: printable ASCII but the space, the double
    /// quote, angle brackets, backslash, caret, backtick, braces and the vertical bar. Read from a
    /// bitmap of the 128 ASCII bytes (bit `b` of `low` for bytes 0...63, bit `b - 64` of `high` for
    /// 64...127): a page's check tests every byte of every URL, and a `switch` per byte was a third
    /// of it.
    @inline(__always)
    private static func isURLByte(_ byte: UInt8) -> Bool {
        let low: UInt64 = 0xAFFF_FFFA_0000_0000
        let high: UInt64 = 0x47FF_FFFE_AFFF_FFFF
        // One select, not a branch: letters and `/ . -` alternate, and a branch per byte mispredicts.
        let word = byte < 64 ? low : high
        return byte < 128 && (word >> (byte & 63)) & 1 == 1
    }

    /// Whether `text` is printable ASCII only (`0x20...0x7E`): the common case of every field a page
    /// holds, read over the string's own buffer.
    static func isPrintableASCII(_ text: String) -> Bool {
        let isPrintable = { (byte: UInt8) in byte >= 0x20 && byte < 0x7F }
        return text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isPrintable) }
            ?? text.utf8.allSatisfy(isPrintable)
    }
}

/// Collects violations while checking one record.
struct ViolationCollector {
    private(set) var violations: [Violation] = []

    mutating func add(_ code: Violation.Code, at path: String, _ message: String) {
        violations.append(Violation(code, at: path, message))
    }

    /// Adds `others` as violations of the field `parent` (built only when there are some).
    mutating func add(contentsOf others: [Violation], under parent: @autoclosure () -> String) {
        guard !others.isEmpty else { return }
        let parent = parent()
        violations += others.map { $0.nested(under: parent) }
    }

    /// Requires non-blank text of at most `maxLength` characters without control characters.
    /// (`path` is built only for a violation: checking a page must not format a path per field.)
    mutating func requireText(_ text: String, at path: @autoclosure () -> String, maxLength: Int) {
        let utf8 = text.utf8
        if CatalogRules.isPrintableASCII(text) {
            // Printable ASCII, the common case: one character per byte, and a space is the only
            // whitespace, so no grapheme counting and no trimming.
            if utf8.allSatisfy({ $0 == 0x20 }) {
                add(.emptyField, at: path(), "must not be empty")
            } else if utf8.count > maxLength {
                add(.tooLong, at: path(), "longer than \(maxLength) characters (\(utf8.count))")
            }
            return
        }
        if text.trimmingWhitespace().isEmpty {
            add(.emptyField, at: path(), "must not be empty")
        } else if text.count > maxLength {
            add(.tooLong, at: path(), "longer than \(maxLength) characters (\(text.count))")
        } else if CatalogRules.hasControlCharacters(text) {
            add(.malformed, at: path(), "holds control characters")
        }
    }

    mutating func requireHTTPS(_ url: String?, at path: String) {
        guard let url else { return }
        if !CatalogRules.isAbsoluteHTTPS(url) {
            add(.invalidURL, at: path, "not an absolute https URL: '\(url.prefix(120))'")
        }
    }

    mutating func requireUniqueIDs(_ ids: [String], at path: String) {
        var seen = Set<String>(minimumCapacity: ids.count)
        guard !ids.allSatisfy({ seen.insert($0).inserted }) else { return }
        var first: [String: Int] = [:]
        for (index, id) in ids.enumerated() {
            if let earlier = first[id] {
                add(.duplicateID, at: "\(path)[\(index)].id", "id '\(id)' already used by \(path)[\(earlier)]")
            } else {
                first[id] = index
            }
        }
    }
}
