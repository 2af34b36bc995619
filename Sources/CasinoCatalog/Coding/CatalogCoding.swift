import CatalogSupport
public import Foundation

/// The one JSON configuration every reader and writer of catalogue files uses.
///
/// Keys are sorted and slashes are not escaped, so the same value always encodes to the same
/// bytes on one platform; dates are ISO 8601 in UTC. Snapshot files and content hashes take the
/// canonical form of this encoder's output (`CanonicalJSON`), the same on every platform.
@_spi(CatalogTools) public enum CatalogCoding {
    /// A compact encoder with sorted keys, for snapshot files.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601  // the contract schema's Timestamp: keep `dateSchema` in step
        return encoder
    }

    /// A pretty-printing encoder with sorted keys, for files people read (the manifest).
    public static func prettyEncoder() -> JSONEncoder {
        let encoder = encoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        return encoder
    }

    /// The content hash of a payload (a ``CategoryList`` or a ``GamesPage``), as in a snapshot
    /// envelope: `sha256:` and the hex SHA-256 of the payload's canonical JSON
    /// (`CanonicalJSON/encode(_:)`). Equal content gives equal hashes on every platform, which is
    /// what bulk validation compares between an app and a server.
    public static func contentHash(of payload: some Encodable) throws -> String {
        CatalogRules.contentHashPrefix + SHA256Digest.hex(try CanonicalJSON.encode(payload))
    }

    /// The matching decoder.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
