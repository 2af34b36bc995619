@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
public import Foundation

/// The bytes of one player's offline mutation queue file: a one-line JSON header, then the
/// mutations as a JSON array whose exact bytes the header's SHA-256 covers.
///
/// ```
/// {"bytes":812,"count":2,"format":"casinocache-player-mutations","player":"42","sha256":"9f…","version":1}
/// [{"createdAt":"2026-11-20T10:00:00Z","edition":"en-iPhone","gameId":"34795","game":{…},…},…]
/// ```
///
/// The file is hostile input on read (a crash, a full disk, another app version, a person with a
/// file manager): ``decode(_:player:)`` refuses, as a whole, a file that is over the size cap,
/// truncated, padded, of another format or version, of another player, whose body does not hash
/// to its header's digest, or that holds a mutation breaking the rules (another player's, a game
/// id over 128 bytes, an add without a valid game, an id twice). A refused file is never replayed
/// in part: replaying half a queue, or a mutation with a flipped byte, would change the server
/// wrongly. SPI `Tiers`: for the fuzzer and tools that look inside.
@_spi(CatalogTools) public enum PlayerMutationQueueFile {
    /// The format name in the header.
    public static let format = "casinocache-player-mutations"
    /// The format version this code reads and writes: 1.
    public static let version = 1
    /// The largest file read: 4 MiB (a queue is at most a few hundred mutations of about 2 KiB).
    public static let maxFileBytes = 4 << 20
    /// The most mutations one file may hold: 10,000, whatever the queue's configured bound.
    public static let maxCount = 10_000
    /// The longest header line: 4 KiB (a 256-byte player id, fully `\u`-escaped, fits).
    static let maxHeaderBytes = 4 << 10

    private struct Header: Codable {
        var format: String
        var version: Int
        var player: String
        var count: Int
        var bytes: Int
        var sha256: String
    }

    /// Why a file's bytes are not a queue to replay.
    public struct Rejection: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, short and stable enough for a log (`"sha256 differs"`).
        public var reason: String
        public var description: String { reason }
    }

    /// The file's bytes for `mutations` of `player`.
    ///
    /// - Throws: an `EncodingError` (not expected for values that passed the cache's checks).
    public static func encode(_ mutations: [PlayerMutation], player: String) throws -> Data {
        let body = try CatalogCoding.encoder().encode(mutations)
        let header = Header(
            format: format, version: version, player: player, count: mutations.count, bytes: body.count,
            sha256: SHA256Digest.hex(body))
        var data = try CatalogCoding.encoder().encode(header)
        data.append(UInt8(ascii: "\n"))
        data.append(body)
        return data
    }

    /// The mutations in a file's bytes, in queue order, when every check passes.
    ///
    /// - Throws: ``Rejection`` naming the first check that failed.
    public static func decode(_ data: Data, player: String) throws(Rejection) -> [PlayerMutation] {
        guard data.count <= maxFileBytes else {
            throw Rejection(reason: "file of \(data.count) bytes is over \(maxFileBytes)")
        }
        let (header, newline) = try readHeader(data)
        guard header.format == format else { throw Rejection(reason: "format \(header.format.prefix(40))") }
        guard header.version == version else { throw Rejection(reason: "version \(header.version)") }
        guard header.player == player else { throw Rejection(reason: "the file belongs to another player") }
        let body = data[(newline + 1)...]
        guard header.bytes == body.count else {
            throw Rejection(reason: "body of \(body.count) bytes, header says \(header.bytes): truncated or padded")
        }
        guard (0...maxCount).contains(header.count) else {
            throw Rejection(reason: "count \(header.count) is over \(maxCount)")
        }
        guard SHA256Digest.hex(Data(body)) == header.sha256 else { throw Rejection(reason: "sha256 differs") }
        let mutations: [PlayerMutation]
        do {
            mutations = try CatalogCoding.decoder().decode([PlayerMutation].self, from: body)
        } catch {
            throw Rejection(reason: "body is not a list of mutations")
        }
        guard mutations.count == header.count else {
            throw Rejection(reason: "\(mutations.count) mutations, header says \(header.count)")
        }
        var ids = Set<UUID>()
        for (index, mutation) in mutations.enumerated() {
            if let problem = mutation.problem(expectedPlayer: player) {
                throw Rejection(reason: "mutation \(index): \(problem)")
            }
            guard ids.insert(mutation.id).inserted else {
                throw Rejection(reason: "mutation \(index): its id is repeated")
            }
        }
        return mutations
    }

    /// The file name for `player`'s queue: the hex SHA-256 of the id's UTF-8 and `.mutations`, so
    /// `/`, `..`, NUL or emoji in an id never reach the file system, and two ids never share a file.
    public static func fileName(for player: String) -> String {
        SHA256Digest.hex(Data(player.utf8)) + fileSuffix
    }

    /// What every queue file's name ends with.
    static let fileSuffix = ".mutations"

    /// The player a file's header names, or `nil` when it has no header of this format: to find whose
    /// file it is before ``decode(_:player:)`` checks it whole (a directory read offline).
    static func player(in data: Data) -> String? {
        try? readHeader(data).header.player
    }

    /// The header line of a file's bytes, and where it ends.
    private static func readHeader(_ data: Data) throws(Rejection) -> (header: Header, newline: Data.Index) {
        guard let newline = data.prefix(maxHeaderBytes + 1).firstIndex(of: UInt8(ascii: "\n")) else {
            throw Rejection(reason: "no header line within \(maxHeaderBytes) bytes")
        }
        guard let header = try? CatalogCoding.decoder().decode(Header.self, from: data[data.startIndex..<newline])
        else {
            throw Rejection(reason: "header is not JSON of this format")
        }
        return (header, newline)
    }
}
