@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation
@_spi(CatalogTools) import Gzip

/// What one disk tier file holds: a ``DiskTierHeader``, then the gzip of the content's canonical
/// JSON, whose SHA-256 the header carries (computed once, when the entry is written).
///
/// Renewing an entry writes a new header before the same compressed bytes, or only moves the
/// file's modification time (``Parsed/storedAt``). Files of the first format (one gzip'd JSON
/// object with the content inside, no hash) are still read; a bulk validation scan hashes such an
/// entry once and writes it again in this format.
enum DiskTierEnvelope {
    /// Why a file's bytes are not an entry that may be served.
    struct Rejection: Error, Sendable, CustomStringConvertible {
        /// A short stable reason for the log (`"gzip: truncated"`, `"cache-version 1"`).
        var reason: String
        var description: String { reason }
    }

    /// A file's header, where its compressed content starts (`nil` for the first format, whose
    /// content came with the header: `firstFormatContent`), and when the entry was stored or last renewed.
    struct Parsed: Sendable {
        var header: Header
        var payloadStart: Int?
        var firstFormatContent: CatalogContent?
        /// The header's `storedAt`, or the file's modification time when that is later: a renewal
        /// moves only the modification time (``DiskTier/renew(_:at:etag:)``).
        var storedAt: Date
    }

    /// The fields every format's header has; `contentHash` is `nil` only in the first format.
    struct Header: Sendable {
        var key: String
        var etag: String?
        var origin: CacheOrigin
        var contentHash: String?
    }

    // MARK: - Writing

    /// The file bytes of `entry`, and its content hash.
    ///
    /// - Throws: ``Rejection`` when the JSON, its gzip or the file is over `maxBytes`, or the
    ///   header is over ``DiskTierHeader/maxBytes``; encoding errors.
    static func encode(
        _ entry: CacheEntry, cacheVersion: Int, maxBytes: Int
    ) throws -> (data: Data, contentHash: String) {
        let json = try entry.content.canonicalJSON()
        guard json.count <= maxBytes else {
            throw Rejection(reason: "entry of \(json.count) JSON bytes is over maxEntryBytes \(maxBytes)")
        }
        let contentHash = CatalogRules.contentHashPrefix + SHA256Digest.hex(json)
        let packed = try Gzip.compress(json, level: Gzip.fastLevel)
        let header = DiskTierHeader(entry, cacheVersion: cacheVersion, contentHash: contentHash)
        return (try bytes(header, payload: packed, maxBytes: maxBytes), contentHash)
    }

    /// `header` followed by `payload`.
    private static func bytes(
        _ header: DiskTierHeader, payload: some DataProtocol, maxBytes: Int
    ) throws(Rejection)
        -> Data
    {
        var data = try header.encoded()
        data.append(contentsOf: payload)
        guard data.count <= maxBytes else {
            throw Rejection(reason: "entry of \(data.count) file bytes is over maxEntryBytes \(maxBytes)")
        }
        return data
    }

    /// The bytes of `file` (of this format, holding `contentHash` for `key`) with `storedAt`, `etag`
    /// and `origin` in its header and the compressed content as it is; `nil` when `file` is not
    /// such a file.
    static func renewed(
        _ file: DiskTierFiles.Contents, key: CacheKey, contentHash: String, storedAt: Date, etag: String?,
        origin: CacheOrigin, cacheVersion: Int, maxBytes: Int
    ) -> Data? {
        guard DiskTierHeader.begins(file.data),
            let (parsed, end) = try? DiskTierHeader.parse(file.data, cacheVersion: cacheVersion),
            parsed.key == key.description, parsed.contentHash == contentHash
        else { return nil }
        var header = parsed
        header.storedAt = storedAt
        header.etag = etag
        header.origin = origin
        return try? bytes(header, payload: file.data[end...], maxBytes: maxBytes)
    }

    // MARK: - Reading

    /// The header of a file's bytes, of this schema and cache version, without inflating the
    /// content (a file of the first format is inflated and decoded whole: its header is inside).
    ///
    /// - Throws: ``Rejection`` naming what is wrong: size, header, gzip, JSON, schema or cache version.
    static func parse(_ file: DiskTierFiles.Contents, cacheVersion: Int, maxBytes: Int) throws(Rejection) -> Parsed {
        let data = file.data
        guard data.count <= maxBytes else { throw Rejection(reason: "file is over maxEntryBytes \(maxBytes)") }
        if DiskTierHeader.begins(data) {
            let (header, end) = try DiskTierHeader.parse(data, cacheVersion: cacheVersion)
            let renewedAt = Date(timeIntervalSince1970: TimeInterval(file.modifiedSeconds))
            return Parsed(
                header: Header(
                    key: header.key, etag: header.etag, origin: header.origin, contentHash: header.contentHash),
                payloadStart: end, storedAt: max(header.storedAt, renewedAt))
        }
        let envelope = try FirstFormat.decode(inflate(data, maxBytes: maxBytes), cacheVersion: cacheVersion)
        return Parsed(
            header: Header(key: envelope.key, etag: envelope.etag, origin: envelope.origin, contentHash: nil),
            firstFormatContent: envelope.content, storedAt: envelope.storedAt)
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
        } else if let firstFormatContent = parsed.firstFormatContent {
            content = firstFormatContent
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

    /// A file of the first format, after gunzip: one JSON object with the content inside.
    private struct FirstFormat: Decodable {
        var key: String
        var schemaVersion: Int
        var cacheVersion: Int
        /// ISO 8601 in UTC (`CatalogCoding`), so whole seconds.
        var storedAt: Date
        var etag: String?
        var origin: CacheOrigin
        var content: CatalogContent

        /// The fields every version of it carries, decoded when the whole object does not decode,
        /// to say why in the log.
        private struct Versions: Decodable {
            var schemaVersion: Int
            var cacheVersion: Int
        }

        static func decode(_ json: Data, cacheVersion: Int) throws(Rejection) -> FirstFormat {
            let decoder = CatalogCoding.decoder()
            let decoded: FirstFormat
            do {
                decoded = try decoder.decode(FirstFormat.self, from: json)
            } catch {
                if let versions = try? decoder.decode(Versions.self, from: json) {
                    try check(versions.schemaVersion, versions.cacheVersion, cacheVersion: cacheVersion)
                }
                throw Rejection(reason: "undecodable JSON")
            }
            try check(decoded.schemaVersion, decoded.cacheVersion, cacheVersion: cacheVersion)
            return decoded
        }

        private static func check(_ schemaVersion: Int, _ fileCacheVersion: Int, cacheVersion: Int) throws(Rejection) {
            guard schemaVersion == CatalogSchema.version else {
                throw Rejection(reason: "schema-version \(schemaVersion)")
            }
            guard fileCacheVersion == cacheVersion else { throw Rejection(reason: "cache-version \(fileCacheVersion)") }
        }
    }
}
