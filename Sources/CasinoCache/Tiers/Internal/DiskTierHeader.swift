@_spi(CatalogTools) import CasinoCatalog
import Foundation

/// The header at the start of a disk tier file: what a reader checks before trusting the file,
/// and all that bulk validation needs, readable without inflating or decoding the content.
///
/// ASCII lines, each field on its own line in this order, `etag` only when there is one, and an
/// empty line at the end:
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
/// `stored` is whole seconds since 1970; `etag` is percent-escaped as keys are (every byte outside
/// `A-Z a-z 0-9 - . _ ~`). A line-per-field text parses in a pass over a few hundred bytes with
/// nothing to allocate but the values: a JSON header made `JSONDecoder` half of a bulk validation
/// scan. The parser takes nothing on trust: unknown, missing, repeated or reordered fields, a
/// non-ASCII byte, an integer out of range are each a named rejection.
struct DiskTierHeader: Sendable, Equatable {
    /// The key's full ``CacheKey/description``; a file whose stored key differs is a miss.
    var key: String
    /// ``CatalogSchema/version`` when the file was written.
    var schemaVersion: Int
    /// ``DiskTier/Configuration/cacheVersion`` when the file was written.
    var cacheVersion: Int
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

    init(_ entry: CacheEntry, cacheVersion: Int, contentHash: String) {
        key = entry.key.description
        schemaVersion = CatalogSchema.version
        self.cacheVersion = cacheVersion
        storedAt = entry.storedAt
        etag = entry.etag
        origin = entry.origin
        self.contentHash = contentHash
    }

    /// Whether `data` starts as a header does (else it is a file of the first format, or not the tier's).
    static func begins(_ data: Data) -> Bool {
        data.starts(with: "casinocache-entry ".utf8)
    }

    /// The header's bytes, its empty last line included.
    ///
    /// - Throws: ``DiskTierEnvelope/Rejection`` when `storedAt` is not a time a file can say, or
    ///   the header is over ``maxBytes`` (an ETag that long).
    func encoded() throws(DiskTierEnvelope.Rejection) -> Data {
        let seconds = storedAt.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, abs(seconds) < 1e15 else {
            throw DiskTierEnvelope.Rejection(reason: "storedAt \(storedAt) cannot be written")
        }
        var text = "\(Self.magic)\nkey \(key)\nschema \(schemaVersion)\ncache \(cacheVersion)\n"
        text += "stored \(Int64(seconds))\norigin \(origin.rawValue)\nhash \(contentHash)\n"
        if let etag { text += "etag \(SnapshotKey.escape(etag))\n" }
        text += "\n"
        guard text.utf8.count <= Self.maxBytes else {
            throw DiskTierEnvelope.Rejection(
                reason: "header of \(text.utf8.count) bytes is over \(Self.maxBytes) (an ETag that long?)")
        }
        return Data(text.utf8)
    }

    /// The header at the start of `data`, of this schema and `cacheVersion`, and where the bytes
    /// after it start.
    ///
    /// - Throws: ``DiskTierEnvelope/Rejection`` naming the first thing wrong.
    static func parse(_ data: Data, cacheVersion: Int) throws(DiskTierEnvelope.Rejection) -> (Self, end: Int) {
        let parsed = data.prefix(maxBytes).withUnsafeBytes { bytes in
            Result { () throws(DiskTierEnvelope.Rejection) in try parse(bytes, cacheVersion: cacheVersion) }
        }
        let (header, end) = try parsed.get()
        return (header, data.startIndex + end)
    }

    /// ``parse(_:cacheVersion:)`` over the file's first bytes; `end` is an offset into `bytes`.
    /// Fields are compared and read in place: only the values become strings.
    private static func parse(
        _ bytes: UnsafeRawBufferPointer, cacheVersion: Int
    ) throws(DiskTierEnvelope.Rejection) -> (Self, end: Int) {
        typealias Rejection = DiskTierEnvelope.Rejection
        var lineStart = 0
        var next = bytes.startIndex
        /// The next line (without its newline), `nil` at the empty line that ends the header.
        func line() throws(Rejection) -> UnsafeRawBufferPointer? {
            var index = next
            while index < bytes.endIndex {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\n") {
                    lineStart = next
                    next = index + 1
                    return index == lineStart ? nil : UnsafeRawBufferPointer(rebasing: bytes[lineStart..<index])
                }
                guard byte >= 0x20, byte <= 0x7E else {
                    throw Rejection(reason: "header: a byte that is not printable ASCII at \(index)")
                }
                index += 1
            }
            throw Rejection(reason: "header: no empty line ending it within \(maxBytes) bytes")
        }
        /// The value of the next line, which must be the field `name`; `nil` at the end of the header.
        func optionalField(_ name: StaticString) throws(Rejection) -> UnsafeRawBufferPointer? {
            guard let text = try line() else { return nil }
            let label = UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
            guard text.count > label.count, text.starts(with: label), text[label.count] == UInt8(ascii: " ") else {
                throw Rejection(reason: "header: \(name) expected")
            }
            return UnsafeRawBufferPointer(rebasing: text[(label.count + 1)...])
        }
        func field(_ name: StaticString) throws(Rejection) -> UnsafeRawBufferPointer {
            guard let value = try optionalField(name) else { throw Rejection(reason: "header: no \(name)") }
            return value
        }
        func integer(_ name: StaticString) throws(Rejection) -> Int64 {
            guard let value = Int64(String(decoding: try field(name), as: UTF8.self)) else {
                throw Rejection(reason: "header: \(name) is not an integer")
            }
            return value
        }

        guard let first = try line(), first.elementsEqual(magic.utf8) else {
            throw Rejection(reason: "header: not \(magic)")
        }
        let key = String(decoding: try field("key"), as: UTF8.self)
        let schemaVersion = try integer("schema")
        guard schemaVersion == CatalogSchema.version else { throw Rejection(reason: "schema-version \(schemaVersion)") }
        let fileCacheVersion = try integer("cache")
        guard fileCacheVersion == cacheVersion else { throw Rejection(reason: "cache-version \(fileCacheVersion)") }
        let stored = try integer("stored")
        guard (-999_999_999_999_999...999_999_999_999_999).contains(stored) else {
            throw Rejection(reason: "header: stored out of range")
        }
        guard let origin = CacheOrigin(rawValue: String(decoding: try field("origin"), as: UTF8.self)) else {
            throw Rejection(reason: "header: unknown origin")
        }
        let contentHash = String(decoding: try field("hash"), as: UTF8.self)
        guard Manifest.isDigest(contentHash, prefix: CatalogRules.contentHashPrefix) else {
            throw Rejection(reason: "header: hash is not sha256: and 64 lowercase hex digits")
        }
        var etag: String?
        if let escaped = try optionalField("etag") {
            guard let unescaped = SnapshotKey.unescape(Substring(decoding: escaped, as: UTF8.self).utf8) else {
                throw Rejection(reason: "header: etag is not percent-escaped")
            }
            etag = unescaped
            guard try line() == nil else { throw Rejection(reason: "header: a line after the last field") }
        }
        let header = DiskTierHeader(
            key: key, schemaVersion: Int(schemaVersion), cacheVersion: Int(fileCacheVersion),
            storedAt: Date(timeIntervalSince1970: TimeInterval(stored)), etag: etag, origin: origin,
            contentHash: contentHash)
        return (header, next)
    }

    private init(
        key: String, schemaVersion: Int, cacheVersion: Int, storedAt: Date, etag: String?, origin: CacheOrigin,
        contentHash: String
    ) {
        self.key = key
        self.schemaVersion = schemaVersion
        self.cacheVersion = cacheVersion
        self.storedAt = storedAt
        self.etag = etag
        self.origin = origin
        self.contentHash = contentHash
    }
}
