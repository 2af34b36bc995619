public import Foundation

/// The one JSON configuration every reader and writer of catalogue files uses.
///
/// Keys are sorted and slashes are not escaped, so the same value always encodes to the same
/// bytes on one platform; dates are ISO 8601 in UTC.
public enum CatalogCoding {
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

    /// The matching decoder.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
