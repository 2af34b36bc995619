import CasinoCatalog
import Foundation
import Gzip

/// What one disk tier file holds, before gzip: the entry plus what a reader checks before
/// trusting it.
struct DiskTierEnvelope: Codable, Sendable {
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
    var content: CatalogContent

    init(_ entry: CacheEntry, cacheVersion: Int) {
        key = entry.key.description
        schemaVersion = CatalogSchema.version
        self.cacheVersion = cacheVersion
        storedAt = entry.storedAt
        etag = entry.etag
        origin = entry.origin
        content = entry.content
    }

    /// The envelope's fields that every version of it carries, decoded when the whole envelope
    /// does not decode, to say why in the log.
    private struct Header: Decodable {
        var key: String
        var schemaVersion: Int
        var cacheVersion: Int
    }

    /// The global key a file's bytes say they hold, without checking the rest; `nil` when they
    /// do not inflate or decode, or hold another scope's key.
    static func storedGlobalKey(in data: Data, maxBytes: Int) -> CacheKey? {
        guard let json = try? Gzip.decompress(data, limit: maxBytes),
            let header = try? CatalogCoding.decoder().decode(Header.self, from: json)
        else { return nil }
        let prefix = "\(CacheScope.global)/"
        guard header.key.hasPrefix(prefix), let content = SnapshotKey(String(header.key.dropFirst(prefix.count))) else {
            return nil
        }
        return CacheKey(content)
    }

    /// Why a file's bytes are not an entry that may be served.
    struct Rejection: Error, Sendable, CustomStringConvertible {
        /// A short stable reason for the log (`"gzip: truncated"`, `"cache-version 1"`).
        var reason: String
        var description: String { reason }
    }

    /// The gzip'd JSON of `entry`.
    ///
    /// - Throws: ``Rejection`` when the JSON or its gzip is over `maxBytes`; encoding errors.
    static func encode(_ entry: CacheEntry, cacheVersion: Int, maxBytes: Int) throws -> Data {
        let json = try CatalogCoding.encoder().encode(DiskTierEnvelope(entry, cacheVersion: cacheVersion))
        guard json.count <= maxBytes else {
            throw Rejection(reason: "entry of \(json.count) JSON bytes is over maxEntryBytes \(maxBytes)")
        }
        let packed = try Gzip.compress(json, level: Gzip.fastLevel)
        guard packed.count <= maxBytes else {
            throw Rejection(reason: "entry of \(packed.count) gzip bytes is over maxEntryBytes \(maxBytes)")
        }
        return packed
    }

    /// The entry for `key` in a file's bytes.
    ///
    /// - Throws: ``Rejection`` naming what is wrong: size, gzip, JSON, schema or cache version,
    ///   stored key, kind, or content that breaks the schema's rules.
    static func decode(
        _ data: Data, for key: CacheKey, cacheVersion: Int, maxBytes: Int
    ) throws(Rejection) -> CacheEntry {
        try entry(from: envelope(in: data, cacheVersion: cacheVersion, maxBytes: maxBytes), for: key)
    }

    /// The entry in a file's bytes whose key is not known beforehand (a scan of the directory):
    /// the global key its envelope names, with every check of ``decode(_:for:cacheVersion:maxBytes:)``.
    static func decodeGlobal(_ data: Data, cacheVersion: Int, maxBytes: Int) throws(Rejection) -> CacheEntry {
        let envelope = try envelope(in: data, cacheVersion: cacheVersion, maxBytes: maxBytes)
        let prefix = "\(CacheScope.global)/"
        guard envelope.key.hasPrefix(prefix), let content = SnapshotKey(String(envelope.key.dropFirst(prefix.count)))
        else {
            throw Rejection(reason: "not a global key")
        }
        return try entry(from: envelope, for: CacheKey(content))
    }

    /// The envelope in a file's bytes, of this schema and cache version.
    private static func envelope(in data: Data, cacheVersion: Int, maxBytes: Int) throws(Rejection) -> DiskTierEnvelope
    {
        guard data.count <= maxBytes else { throw Rejection(reason: "file is over maxEntryBytes \(maxBytes)") }
        let json: Data
        do {
            json = try Gzip.decompress(data, limit: maxBytes)
        } catch {
            throw Rejection(reason: "gzip: \(error.code)")
        }
        let decoder = CatalogCoding.decoder()
        let envelope: DiskTierEnvelope
        do {
            envelope = try decoder.decode(DiskTierEnvelope.self, from: json)
        } catch {
            // Say which version wrote the file when its header still reads.
            if let header = try? decoder.decode(Header.self, from: json) {
                if header.schemaVersion != CatalogSchema.version {
                    throw Rejection(reason: "schema-version \(header.schemaVersion)")
                }
                if header.cacheVersion != cacheVersion {
                    throw Rejection(reason: "cache-version \(header.cacheVersion)")
                }
            }
            throw Rejection(reason: "undecodable JSON")
        }
        guard envelope.schemaVersion == CatalogSchema.version else {
            throw Rejection(reason: "schema-version \(envelope.schemaVersion)")
        }
        guard envelope.cacheVersion == cacheVersion else {
            throw Rejection(reason: "cache-version \(envelope.cacheVersion)")
        }
        return envelope
    }

    /// The envelope's entry, if it holds `key` and content that keeps the rules.
    private static func entry(from envelope: DiskTierEnvelope, for key: CacheKey) throws(Rejection) -> CacheEntry {
        guard envelope.key == key.description else { throw Rejection(reason: "stored key differs") }
        // The content must be what the key names before any rule runs on its numbers.
        switch (key.content, envelope.content) {
        case (.categories, .categories): break
        case (.gamesPage(_, let categoryId, let offset), .gamesPage(let page)):
            guard page.categoryId == categoryId, page.offset == offset else {
                throw Rejection(reason: "page differs from the key's category or offset")
            }
        default: throw Rejection(reason: "content kind differs from the key's")
        }
        if let list = key.playerList, case .gamesPage(let page) = envelope.content {
            // A player list may be empty, unlike a catalogue page: its own rules.
            if let problem = page.playerListProblem(list, limit: nil) {
                throw Rejection(reason: "player list: \(problem)")
            }
        } else {
            let violations = envelope.content.violations()
            guard violations.isEmpty else {
                throw Rejection(reason: "content breaks \(violations.count) schema rule(s)")
            }
        }
        return CacheEntry(
            key: key, content: envelope.content, storedAt: envelope.storedAt, etag: envelope.etag,
            origin: envelope.origin)
    }
}
