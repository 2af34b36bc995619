@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation
@_spi(CatalogTools) import Gzip

/// What the disk tier's files are: how each is named, and its bytes, an ASCII header then the gzip
/// of the content's canonical JSON.
///
/// **Names** are `<scope>_<readable>_<hash>.json.gz`: `scope` is `g` for ``CacheScope/global``, or
/// `u` and the 16 hex digits of the 64-bit FNV-1a hash of the user id (a user's files are found by
/// name, and the name does not show the id); `readable` is up to 40 bytes of the key's content
/// reduced to `A-Z a-z 0-9 -` (`en-iPhone-games-VIDEOSLOTS-10`); `hash` is the FNV-1a hash of the key's
/// full ``CacheKey/description``. Names are short ASCII whatever the key holds (`/`, `..`, NUL), so
/// they never leave the directory; the full key is stored inside and checked on read, so a hash
/// collision or a renamed file is a miss, never wrong content.
///
/// **The header** is ASCII lines, each field in this order (`etag` only when there is one), then an
/// empty line:
///
/// ```
/// casinocache-entry 2
/// key global/en-iPhone/games/SLOTS/0
/// schema 1
/// cache 1
/// stored 1800000000
/// origin network
/// hash sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
/// etag %22v7%22
///
/// ```
///
/// `stored` is whole seconds since 1970; `etag` is percent-escaped as keys are. `hash` is the SHA-256
/// of the canonical JSON the gzip holds: bulk validation reads it without inflating the content.
/// The parser takes nothing on trust: a missing, repeated, reordered or unknown field, a byte that is
/// not printable ASCII, an integer out of range are each a named rejection.
enum DiskTierFormat {
    /// Why a file's bytes are not an entry that may be served.
    struct Rejection: Error, Sendable, CustomStringConvertible {
        /// A short stable reason for the log (`"gzip: truncated"`, `"cache-version 1"`).
        var reason: String
        var description: String { reason }
    }

    // MARK: - Names

    /// What every entry file name ends with.
    static let suffix = ".json.gz"
    private static let readableLimit = 40

    /// The file name of the entry for `key`.
    static func name(for key: CacheKey) -> String {
        // The hash of the key's description is that of its scope, a `/`, and its content's.
        let content = key.content.description
        let hash = fnv1a(content, continuing: fnv1a("/", continuing: fnv1a(key.scope.description)))
        return "\(prefix(for: key.scope))\(readable(content))_\(hex(hash))\(suffix)"
    }

    /// The start of the name of every entry of `scope`.
    static func prefix(for scope: CacheScope) -> String {
        switch scope {
        case .global: "g_"
        case .user(let id): "u\(hex(fnv1a(id)))_"
        }
    }

    /// Whether `name` is an entry file name this tier could have written.
    static func isEntry(_ name: String) -> Bool {
        guard name.hasSuffix(suffix) else { return false }
        let parts = name.utf8.dropLast(suffix.utf8.count).split(
            separator: UInt8(ascii: "_"), omittingEmptySubsequences: false)
        guard parts.count == 3 else { return false }
        let (scope, readable, hash) = (parts[0], parts[1], parts[2])
        let isScope = scope.elementsEqual("g".utf8) || (scope.first == UInt8(ascii: "u") && isHex(scope.dropFirst()))
        return isScope && isHex(hash) && readable.count <= readableLimit && readable.allSatisfy(isReadable)
    }

    /// The 64-bit FNV-1a hash of the UTF-8 of `text` (not cryptographic: the key stored inside the
    /// file guards against collisions).
    private static func fnv1a(_ text: String, continuing hash: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = hash
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// `text` reduced to `A-Z a-z 0-9 -`, runs of anything else as one `-`, at most 40 bytes.
    private static func readable(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(readableLimit)
        for byte in text.utf8 {
            guard bytes.count < readableLimit else { break }
            if isReadable(byte) && byte != UInt8(ascii: "-") {
                bytes.append(byte)
            } else if bytes.last != UInt8(ascii: "-") {
                bytes.append(UInt8(ascii: "-"))
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `value` as 16 lowercase hex digits.
    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    private static func isHex(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.count == 16
            && bytes.allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            }
    }

    private static func isReadable(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    // MARK: - Header

    /// A file's header: what a reader checks before trusting the file, and all bulk validation needs.
    struct Header: Sendable, Equatable {
        /// The key's full ``CacheKey/description``; a file whose stored key differs is a miss.
        var key: String
        /// Whole seconds.
        var storedAt: Date
        var etag: String?
        var origin: CacheOrigin
        /// `sha256:` and the hex SHA-256 of the content's canonical JSON: the bytes the gzip holds.
        var contentHash: String

        /// The first line: the format and its version.
        static let magic = "casinocache-entry 2"
        /// The most bytes of a header, its empty last line included.
        static let maxBytes = 16 << 10

        /// The header's bytes for `cacheVersion`, its empty last line included.
        ///
        /// - Throws: ``Rejection`` when `storedAt` is not a time a file can say, or the header is over
        ///   ``maxBytes`` (an ETag that long).
        func encoded(cacheVersion: Int) throws(Rejection) -> Data {
            let seconds = storedAt.timeIntervalSince1970.rounded(.down)
            guard seconds.isFinite, abs(seconds) < 1e15 else {
                throw Rejection(reason: "storedAt \(storedAt) cannot be written")
            }
            var text = "\(Self.magic)\nkey \(key)\nschema \(CatalogSchema.version)\ncache \(cacheVersion)\n"
            text += "stored \(Int64(seconds))\norigin \(origin.rawValue)\nhash \(contentHash)\n"
            if let etag { text += "etag \(SnapshotKey.escape(etag))\n" }
            text += "\n"
            guard text.utf8.count <= Self.maxBytes else {
                throw Rejection(
                    reason: "header of \(text.utf8.count) bytes is over \(Self.maxBytes) (an ETag that long?)")
            }
            return Data(text.utf8)
        }

        /// The header at the start of `data`, of this schema and `cacheVersion`, and the index in
        /// `data` where the compressed content starts.
        ///
        /// - Throws: ``Rejection`` naming the first thing wrong.
        static func parse(_ data: Data, cacheVersion: Int) throws(Rejection) -> (header: Header, contentStart: Int) {
            // The empty line that ends the header, within `maxBytes`, every byte before it printable ASCII.
            let length = data.prefix(maxBytes).withUnsafeBytes { bytes -> Int? in
                for index in bytes.indices {
                    let byte = bytes[index]
                    if byte == UInt8(ascii: "\n") {
                        if index > 0 && bytes[index - 1] == UInt8(ascii: "\n") { return index - 1 }
                    } else if byte < 0x20 || byte > 0x7E {
                        return -1 - index
                    }
                }
                return nil
            }
            guard let length else {
                throw Rejection(reason: "header: no empty line ending it within \(maxBytes) bytes")
            }
            guard length >= 0 else {
                throw Rejection(reason: "header: a byte that is not printable ASCII at \(-1 - length)")
            }
            // Bytes, not a `String`: splitting a `String` walks grapheme clusters, a third of a scan.
            let lines = [UInt8](data[data.startIndex..<data.startIndex + length])
                .split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            guard lines[0].elementsEqual(magic.utf8) else { throw Rejection(reason: "header: not \(magic)") }
            // Each line is the next field, `name value`; `etag` alone may be left out.
            let names = ["key", "schema", "cache", "stored", "origin", "hash", "etag"]
            guard lines.count <= names.count + 1 else { throw Rejection(reason: "header: a line after the last field") }
            var values: [String] = []
            for (line, name) in zip(lines.dropFirst(), names) {
                let label = name.utf8.count
                guard line.starts(with: name.utf8), line.count > label,
                    line[line.startIndex + label] == UInt8(ascii: " ")
                else { throw Rejection(reason: "header: \(name) expected") }
                values.append(String(decoding: line.dropFirst(label + 1), as: UTF8.self))
            }
            guard values.count >= 6 else { throw Rejection(reason: "header: no \(names[values.count])") }
            let key = values[0]
            guard let schemaVersion = Int64(values[1]), let fileCacheVersion = Int64(values[2]),
                let stored = Int64(values[3])
            else { throw Rejection(reason: "header: schema, cache or stored is not an integer") }
            guard schemaVersion == CatalogSchema.version else {
                throw Rejection(reason: "schema-version \(schemaVersion)")
            }
            guard fileCacheVersion == cacheVersion else { throw Rejection(reason: "cache-version \(fileCacheVersion)") }
            guard (-999_999_999_999_999...999_999_999_999_999).contains(stored) else {
                throw Rejection(reason: "header: stored out of range")
            }
            guard let origin = CacheOrigin(rawValue: values[4]) else {
                throw Rejection(reason: "header: unknown origin")
            }
            let contentHash = values[5]
            guard Manifest.isDigest(contentHash, prefix: CatalogRules.contentHashPrefix) else {
                throw Rejection(reason: "header: hash is not sha256: and 64 lowercase hex digits")
            }
            var etag: String?
            if values.count == 7 {
                guard let unescaped = SnapshotKey.unescape(values[6][...].utf8) else {
                    throw Rejection(reason: "header: etag is not percent-escaped")
                }
                etag = unescaped
            }
            let header = Header(
                key: key, storedAt: Date(timeIntervalSince1970: TimeInterval(stored)), etag: etag, origin: origin,
                contentHash: contentHash)
            return (header, data.startIndex + length + 2)
        }
    }

    // MARK: - Entries

    /// The file bytes of `entry`.
    ///
    /// - Throws: ``Rejection`` when the JSON or the file is over `maxBytes`, or the header cannot be
    ///   written; encoding errors.
    static func encode(_ entry: CacheEntry, cacheVersion: Int, maxBytes: Int) throws -> Data {
        let json = try entry.content.canonicalJSON()
        guard json.count <= maxBytes else {
            throw Rejection(reason: "entry of \(json.count) JSON bytes is over maxEntryBytes \(maxBytes)")
        }
        let header = Header(
            key: entry.key.description, storedAt: entry.storedAt, etag: entry.etag, origin: entry.origin,
            contentHash: CatalogRules.contentHashPrefix + SHA256Digest.hex(json))
        var data = try header.encoded(cacheVersion: cacheVersion)
        data.append(try Gzip.compress(json, level: Gzip.fastLevel))
        guard data.count <= maxBytes else {
            throw Rejection(reason: "entry of \(data.count) file bytes is over maxEntryBytes \(maxBytes)")
        }
        return data
    }

    /// The entry for `key` in a file: its header, its content inflated, decoded and checked against
    /// the key and the schema's rules. Its age is the later of the header's `stored` and the file's
    /// modification time, which a renewal moves.
    ///
    /// - Throws: ``Rejection`` naming what is wrong: header, stored key, gzip, JSON, kind, or content
    ///   that breaks the schema's rules.
    static func decode(
        _ file: DiskTierFiles.Contents, for key: CacheKey, cacheVersion: Int, maxBytes: Int
    ) throws(Rejection) -> CacheEntry {
        let (header, contentStart) = try Header.parse(file.data, cacheVersion: cacheVersion)
        guard header.key == key.description else { throw Rejection(reason: "stored key differs") }
        let json: Data
        do {
            json = try Gzip.decompress(file.data[contentStart...], limit: maxBytes)
        } catch {
            throw Rejection(reason: "gzip: \(error.code)")
        }
        let content: CatalogContent
        do {
            let decoder = CatalogCoding.decoder()
            content =
                switch key.content {
                case .categories: .categories(try decoder.decode(CategoryList.self, from: json))
                case .gamesPage: .gamesPage(try decoder.decode(GamesPage.self, from: json))
                }
        } catch {
            throw Rejection(reason: "undecodable content JSON")
        }
        // The content must be what the key names before any rule runs on its numbers.
        if case .gamesPage(_, let categoryId, let offset) = key.content, case .gamesPage(let page) = content,
            page.categoryId != categoryId || page.offset != offset
        {
            throw Rejection(reason: "page differs from the key's category or offset")
        }
        if let list = key.playerList, case .gamesPage(let page) = content {
            // A player list may be empty, unlike a catalogue page: its own rules.
            if let problem = page.playerListProblem(list, limit: nil) {
                throw Rejection(reason: "player list: \(problem)")
            }
        } else {
            let violations = content.violations()
            guard violations.isEmpty else {
                throw Rejection(reason: "content breaks \(violations.count) schema rule(s)")
            }
        }
        let renewedAt = Date(timeIntervalSince1970: TimeInterval(file.modifiedSeconds))
        var entry = CacheEntry(
            key: key, content: content, storedAt: max(header.storedAt, renewedAt), etag: header.etag,
            origin: header.origin)
        entry.knownContentHash = header.contentHash
        return entry
    }
}
