@_spi(Internals) import CasinoCatalog
import CatalogSupport
import Foundation
import Gzip

/// What one disk tier file holds: a header line, then the content.
///
/// ```
/// {"cacheVersion":1,"contentHash":"sha256:…","key":"global/en-iPhone/games/SLOTS/0","origin":"network",…}\n
/// <gzip of the content's canonical JSON>
/// ```
///
/// The header is plain JSON on the first line (at most ``maxHeaderBytes``): what a reader checks
/// before trusting the file, and what bulk validation needs (the key, when it was stored, the ETag
/// and the content hash) without inflating or decoding the content. Renewing an entry writes a new
/// header before the same compressed bytes. The hash is the SHA-256 of exactly the bytes the gzip
/// holds, computed once when the entry is written.
///
/// Files of the first format (one gzip'd JSON object with the content inside, no hash) are still
/// read; bulk validation hashes such an entry once and writes it again in this format.
struct DiskTierEnvelope: Sendable {
    /// The header line's fields.
    struct Header: Codable, Sendable {
        /// The key's full ``CacheKey/description``; a file whose stored key differs is a miss.
        var key: String
        /// ``CatalogSchema/version`` when the file was written.
        var schemaVersion: Int
        /// ``DiskTier/Configuration/cacheVersion`` when the file was written.
        var cacheVersion: Int
        /// ISO 8601 in UTC (``CatalogCoding``), so whole seconds.
        var storedAt: Date
        var etag: String?
        var origin: CacheOrigin
        /// `sha256:` and the hex SHA-256 of the content's canonical JSON (the compressed bytes);
        /// absent in files of the first format.
        var contentHash: String?
        /// The first format's content, inside the same object; absent in a header line.
        var content: CatalogContent?

        init(_ entry: CacheEntry, cacheVersion: Int, contentHash: String) {
            key = entry.key.description
            schemaVersion = CatalogSchema.version
            self.cacheVersion = cacheVersion
            storedAt = entry.storedAt
            etag = entry.etag
            origin = entry.origin
            self.contentHash = contentHash
        }
    }

    /// The most bytes of a header line, its newline included.
    static let maxHeaderBytes = 16 << 10

    /// Why a file's bytes are not an entry that may be served.
    struct Rejection: Error, Sendable, CustomStringConvertible {
        /// A short stable reason for the log (`"gzip: truncated"`, `"cache-version 1"`).
        var reason: String
        var description: String { reason }
    }

    /// A file's header, where its compressed content starts (`nil` for the first format, whose
    /// content is in the header), and when the entry was stored or last renewed.
    struct Parsed: Sendable {
        var header: Header
        var payloadStart: Int?
        /// The header's `storedAt`, or the file's modification time when that is later: a renewal
        /// moves only the modification time (``DiskTier/renew(_:at:etag:)``).
        var storedAt: Date
    }

    // MARK: - Writing

    /// The file bytes of `entry`, and its content hash.
    ///
    /// - Throws: ``Rejection`` when the JSON, its gzip or the header is over `maxBytes`, or the
    ///   header is over ``maxHeaderBytes``; encoding errors.
    static func encode(
        _ entry: CacheEntry, cacheVersion: Int, maxBytes: Int
    ) throws -> (data: Data, contentHash: String) {
        let json =
            switch entry.content {
            case .categories(let list): try CanonicalJSON.encode(list)
            case .gamesPage(let page): try CanonicalJSON.encode(page)
            }
        guard json.count <= maxBytes else {
            throw Rejection(reason: "entry of \(json.count) JSON bytes is over maxEntryBytes \(maxBytes)")
        }
        let contentHash = CatalogRules.contentHashPrefix + SHA256Digest.hex(json)
        let packed = try Gzip.compress(json, level: Gzip.fastLevel)
        let header = Header(entry, cacheVersion: cacheVersion, contentHash: contentHash)
        return (try bytes(header, payload: packed, maxBytes: maxBytes), contentHash)
    }

    /// `header`'s line followed by `payload`.
    static func bytes(_ header: Header, payload: some DataProtocol, maxBytes: Int) throws -> Data {
        var data = try CatalogCoding.encoder().encode(header)
        guard data.count < maxHeaderBytes else {
            throw Rejection(reason: "header of \(data.count) bytes is over \(maxHeaderBytes) (an ETag that long?)")
        }
        data.append(UInt8(ascii: "\n"))
        data.append(contentsOf: payload)
        guard data.count <= maxBytes else {
            throw Rejection(reason: "entry of \(data.count) file bytes is over maxEntryBytes \(maxBytes)")
        }
        return data
    }

    /// The bytes of `data` (a file of this format holding `contentHash`) with `storedAt`, `etag`
    /// and `origin` in its header, and the compressed content as it is; `nil` when `data` is not
    /// such a file.
    static func renewed(
        _ file: DiskTierFiles.Contents, key: CacheKey, contentHash: String, storedAt: Date, etag: String?,
        origin: CacheOrigin, cacheVersion: Int, maxBytes: Int
    ) -> Data? {
        let data = file.data
        guard let parsed = try? parse(file, cacheVersion: cacheVersion, maxBytes: maxBytes),
            let payloadStart = parsed.payloadStart, parsed.header.key == key.description,
            parsed.header.contentHash == contentHash
        else { return nil }
        var header = parsed.header
        header.storedAt = storedAt
        header.etag = etag
        header.origin = origin
        return try? bytes(header, payload: data[payloadStart...], maxBytes: maxBytes)
    }

    // MARK: - Reading

    /// The header of a file's bytes, of this schema and cache version, without inflating the
    /// content (a file of the first format is inflated: its header is inside).
    ///
    /// - Throws: ``Rejection`` naming what is wrong: size, header, gzip, JSON, schema or cache version.
    static func parse(_ file: DiskTierFiles.Contents, cacheVersion: Int, maxBytes: Int) throws(Rejection) -> Parsed {
        let data = file.data
        guard data.count <= maxBytes else { throw Rejection(reason: "file is over maxEntryBytes \(maxBytes)") }
        let decoder = CatalogCoding.decoder()
        let parsed: Parsed
        if data.first == UInt8(ascii: "{") {
            let end = data.prefix(maxHeaderBytes).firstIndex(of: UInt8(ascii: "\n"))
            guard let end else { throw Rejection(reason: "no header line within \(maxHeaderBytes) bytes") }
            let header = try decodeHeader(data[data.startIndex..<end], with: decoder, cacheVersion: cacheVersion)
            guard header.content == nil, let hash = header.contentHash,
                Manifest.isDigest(hash, prefix: CatalogRules.contentHashPrefix)
            else {
                throw Rejection(reason: "header without a content hash, or with content")
            }
            let renewedAt = Date(timeIntervalSince1970: TimeInterval(file.modifiedSeconds))
            parsed = Parsed(header: header, payloadStart: end + 1, storedAt: max(header.storedAt, renewedAt))
        } else {
            let json = try inflate(data, maxBytes: maxBytes)
            let header = try decodeHeader(json, with: decoder, cacheVersion: cacheVersion)
            guard header.content != nil else { throw Rejection(reason: "first-format file without content") }
            parsed = Parsed(header: header, payloadStart: nil, storedAt: header.storedAt)
        }
        return parsed
    }

    /// The entry for `key` in a file's bytes.
    ///
    /// - Throws: ``Rejection`` naming what is wrong: size, header, gzip, JSON, schema or cache
    ///   version, stored key, kind, or content that breaks the schema's rules.
    static func decode(
        _ file: DiskTierFiles.Contents, for key: CacheKey, cacheVersion: Int, maxBytes: Int
    )
        throws(Rejection) -> CacheEntry
    {
        try entry(
            in: file.data, parse(file, cacheVersion: cacheVersion, maxBytes: maxBytes), for: key, maxBytes: maxBytes)
    }

    /// The global key `header` names; `nil` for another scope's or a malformed key.
    static func globalKey(of header: Header) -> CacheKey? {
        let prefix = "\(CacheScope.global)/"
        guard header.key.hasPrefix(prefix), let content = SnapshotKey(String(header.key.dropFirst(prefix.count))) else {
            return nil
        }
        return CacheKey(content)
    }

    /// The entry in `data`, whose header `parsed` is, if it holds `key` and content that keeps the rules.
    static func entry(
        in data: Data, _ parsed: Parsed, for key: CacheKey, maxBytes: Int
    ) throws(Rejection)
        -> CacheEntry
    {
        let header = parsed.header
        guard header.key == key.description else { throw Rejection(reason: "stored key differs") }
        let content: CatalogContent
        if let payloadStart = parsed.payloadStart {
            let json = try inflate(data[payloadStart...], maxBytes: maxBytes)
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
        } else if let inside = header.content {
            content = inside
        } else {
            throw Rejection(reason: "no content")
        }
        // The content must be what the key names before any rule runs on its numbers.
        switch (key.content, content) {
        case (.categories, .categories): break
        case (.gamesPage(_, let categoryId, let offset), .gamesPage(let page)):
            guard page.categoryId == categoryId, page.offset == offset else {
                throw Rejection(reason: "page differs from the key's category or offset")
            }
        default: throw Rejection(reason: "content kind differs from the key's")
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
        var entry = CacheEntry(
            key: key, content: content, storedAt: parsed.storedAt, etag: header.etag, origin: header.origin)
        entry.knownContentHash = header.contentHash
        return entry
    }

    private static func inflate(_ data: Data, maxBytes: Int) throws(Rejection) -> Data {
        do {
            return try Gzip.decompress(data, limit: maxBytes)
        } catch {
            throw Rejection(reason: "gzip: \(error.code)")
        }
    }

    /// The header in `json`, of this schema and cache version.
    private static func decodeHeader(
        _ json: Data, with decoder: JSONDecoder, cacheVersion: Int
    ) throws(Rejection)
        -> Header
    {
        let header: Header
        do {
            header = try decoder.decode(Header.self, from: json)
        } catch {
            // Say which version wrote the file when its version fields still read.
            if let versions = try? decoder.decode(Versions.self, from: json) {
                try check(versions.schemaVersion, versions.cacheVersion, cacheVersion: cacheVersion)
            }
            throw Rejection(reason: "undecodable JSON")
        }
        try check(header.schemaVersion, header.cacheVersion, cacheVersion: cacheVersion)
        return header
    }

    private static func check(_ schemaVersion: Int, _ fileCacheVersion: Int, cacheVersion: Int) throws(Rejection) {
        guard schemaVersion == CatalogSchema.version else { throw Rejection(reason: "schema-version \(schemaVersion)") }
        guard fileCacheVersion == cacheVersion else { throw Rejection(reason: "cache-version \(fileCacheVersion)") }
    }

    /// The fields every version of a header carries.
    private struct Versions: Decodable {
        var schemaVersion: Int
        var cacheVersion: Int
    }
}
