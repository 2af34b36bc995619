public import Foundation

/// The file a published snapshot set is fetched through (`<set>/manifest.json`): a
/// `PublishedManifest`'s exact JSON bytes, embedded in base64, and an Ed25519 signature of those
/// bytes.
///
/// The signature covers bytes, not a value: a reader verifies the embedded bytes as they are and
/// only then decodes them, so no JSON canonicalisation is needed and nothing unsigned is parsed
/// beyond these four fields.
///
/// ```json
/// {"format":"casinocache-signed-manifest-1","keyId":"3f…","payload":"eyJ…","signature":"q8…"}
/// ```
@_spi(CatalogTools) public struct SignedManifest: Codable, Sendable, Hashable {
    /// The name of the signed manifest in a published set, and of its copy in an installed generation.
    public static let fileName = "manifest.json"
    /// The value of ``format`` this build writes and reads.
    public static let currentFormat = "casinocache-signed-manifest-1"
    /// The largest signed manifest a reader accepts by default, and the most the publisher writes:
    /// 8 MiB (a 10,000-file snapshot signs to about 2 MiB).
    public static let defaultMaxBytes = 8 << 20

    /// ``currentFormat``; a reader refuses any other.
    public var format: String
    /// The first 16 hex digits of the SHA-256 of the signing key's 32 raw public bytes: tells
    /// people (and logs) which key signed, never trusted for anything.
    public var keyId: String
    /// Base64 of the `PublishedManifest` JSON bytes that were signed.
    public var payload: String
    /// Base64 of the 64-byte Ed25519 signature of the payload's bytes.
    public var signature: String
    /// The online keys allowed to sign, signed by a root key the app pins, or `nil` for a set
    /// signed by a pinned key itself. With a list, ``keyId`` names the listed key that signed.
    public var keyList: SignedKeyList?

    public init(keyId: String, payload: Data, signature: Data, keyList: SignedKeyList? = nil) {
        format = Self.currentFormat
        self.keyId = keyId
        self.payload = payload.base64EncodedString()
        self.signature = signature.base64EncodedString()
        self.keyList = keyList
    }

    /// The signed bytes, or `nil` when ``payload`` is not base64.
    public var payloadBytes: Data? { Data(base64Encoded: payload) }

    /// The signature's bytes, or `nil` when ``signature`` is not base64 of 64 bytes.
    public var signatureBytes: Data? {
        guard let bytes = Data(base64Encoded: signature), bytes.count == 64 else { return nil }
        return bytes
    }

    /// The compact JSON of the signed manifest (sorted keys), as the publisher writes it.
    public func encoded() throws -> Data {
        try CatalogCoding.encoder().encode(self) + Data("\n".utf8)
    }
}
