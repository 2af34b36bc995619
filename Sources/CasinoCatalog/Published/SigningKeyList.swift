public import Foundation

/// The online keys allowed to sign published sets, signed by a *root* key the app pins: the smallest
/// version of The Update Framework's root/online split.
///
/// Root keys stay offline (a spare beside the one in use); they only sign key lists. Online keys sign
/// sets in CI. A set carries its list inside its `SignedManifest` (`SignedManifest/keyList`), and
/// the manifest's `SignedManifest/keyId` names the listed key that signed it. An app accepts the
/// manifest only when a pinned root key verifies the list, the list has not expired, its version is
/// not below the list of the installed generation, and the named key is on it. Revoking a leaked
/// online key is publishing a higher list without it.
///
/// ```json
/// {"expiresAt":"2027-06-01T00:00:00Z","format":"casinocache-key-list-1",
///  "keys":[{"id":"3f…","publicKey":"nXy3…="}],"version":2}
/// ```
@_spi(CatalogTools) public struct SigningKeyList: Codable, Sendable, Hashable {
    /// The value of ``format`` this build writes and reads.
    public static let currentFormat = "casinocache-key-list-1"
    /// The most keys a list may name.
    public static let maxKeys = 64

    /// One online key: its id (`SignedManifest/keyId` of what it signs) and its 32 raw public
    /// bytes in base64.
    public struct Key: Codable, Sendable, Hashable {
        public var id: String
        public var publicKey: String

        public init(id: String, publicKey: String) {
            self.id = id
            self.publicKey = publicKey
        }

        /// The key's 32 raw bytes, or `nil` when ``publicKey`` is not base64 of 32 bytes.
        public var publicKeyBytes: Data? {
            guard let bytes = Data(base64Encoded: publicKey), bytes.count == 32 else { return nil }
            return bytes
        }
    }

    /// ``currentFormat``; a reader refuses any other.
    public var format: String
    /// Raised by each list the root signs; an app never accepts a list below the one it installed with.
    public var version: Int
    /// After this, the list (and every set signed under it) is refused: re-sign it before.
    public var expiresAt: Date
    /// The online keys.
    public var keys: [Key]

    public init(version: Int, expiresAt: Date, keys: [Key]) {
        format = Self.currentFormat
        self.version = version
        self.expiresAt = expiresAt
        self.keys = keys
    }

    /// The first problem of a decoded list (format, version, keys), or `nil`.
    public var problem: String? {
        guard format == Self.currentFormat else {
            return "key list format '\(format.prefix(80))', this build reads \(Self.currentFormat)"
        }
        guard version >= 1 else { return "key list version \(version) is not positive" }
        guard !keys.isEmpty, keys.count <= Self.maxKeys else {
            return "the key list names \(keys.count) keys; 1...\(Self.maxKeys) are allowed"
        }
        if let bad = keys.first(where: { $0.publicKeyBytes == nil || $0.id.isEmpty || $0.id.count > 64 }) {
            return "key '\(bad.id.prefix(64))' is not an id and base64 of 32 bytes"
        }
        return nil
    }
}

/// A `SigningKeyList`'s exact JSON bytes in base64 and their Ed25519 signature by a root key,
/// as `SignedManifest` carries a published manifest.
@_spi(CatalogTools) public struct SignedKeyList: Codable, Sendable, Hashable {
    /// The first 16 hex digits of the SHA-256 of the root key's public bytes: for people and logs.
    public var keyId: String
    /// Base64 of the `SigningKeyList` JSON bytes that were signed.
    public var payload: String
    /// Base64 of the 64-byte Ed25519 signature of the payload's bytes.
    public var signature: String

    public init(keyId: String, payload: Data, signature: Data) {
        self.keyId = keyId
        self.payload = payload.base64EncodedString()
        self.signature = signature.base64EncodedString()
    }

    /// The signed bytes, or `nil` when ``payload`` is not base64.
    public var payloadBytes: Data? { Data(base64Encoded: payload) }

    /// The signature's bytes, or `nil` when ``signature`` is not base64 of 64 bytes.
    public var signatureBytes: Data? {
        guard let bytes = Data(base64Encoded: signature), bytes.count == 64 else { return nil }
        return bytes
    }

    /// The list the payload holds, decoded (not verified: check the signature first).
    public func decodedList() throws -> SigningKeyList {
        guard let bytes = payloadBytes else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "payload is not base64"))
        }
        return try CatalogCoding.decoder().decode(SigningKeyList.self, from: bytes)
    }

    /// The compact JSON of the signed list (sorted keys), as `catalog sign-keys` writes it.
    public func encoded() throws -> Data {
        try CatalogCoding.encoder().encode(self) + Data("\n".utf8)
    }
}
