public import Foundation

#if canImport(CryptoKit)
import CryptoKit
#endif

/// Ed25519 signature checks against a pinned public key: the verifier an app gives
/// ``SnapshotUpdater``.
///
/// The key is the 32 raw bytes `catalog keygen` prints in base64 (and writes to
/// `catalog-signing.pub`). The arithmetic comes from a ``Backend``: CryptoKit on Apple platforms,
/// which comes with the OS (``init(publicKey:)`` and ``init(base64PublicKey:)`` use it); on Linux
/// the package's `CatalogSigning` product (declared only off Apple platforms, so an iOS app never
/// resolves swift-crypto) adds the same two initializers over swift-crypto. One type, one API.
///
/// ```swift
/// #if canImport(CatalogSigning)
/// import CatalogSigning  // Linux: .product(name: "CatalogSigning", package: "CasinoCache")
/// #endif
/// let verifier = try Ed25519SignatureVerifier(base64PublicKey: "nXy3…=")
/// ```
public struct Ed25519SignatureVerifier: SnapshotSignatureVerifier {
    /// The Ed25519 implementation: whether 32 bytes are a public key, and whether a signature of
    /// a message verifies with a key.
    public struct Backend: Sendable {
        public var isValidKey: @Sendable (_ publicKey: Data) -> Bool
        public var isValidSignature: @Sendable (_ signature: Data, _ message: Data, _ publicKey: Data) -> Bool

        public init(
            isValidKey: @escaping @Sendable (Data) -> Bool,
            isValidSignature: @escaping @Sendable (Data, Data, Data) -> Bool
        ) {
            self.isValidKey = isValidKey
            self.isValidSignature = isValidSignature
        }
    }

    /// The pinned key's 32 raw bytes.
    public let publicKey: Data
    private let backend: Backend

    /// - Parameters:
    ///   - publicKey: The key's 32 raw bytes.
    ///   - backend: The Ed25519 implementation.
    /// - Throws: ``SnapshotUpdateError/Code/invalidPublicKey`` when they are not an Ed25519 key.
    public init(publicKey: Data, backend: Backend) throws(SnapshotUpdateError) {
        guard publicKey.count == 32, backend.isValidKey(publicKey) else {
            throw .invalidPublicKey(byteCount: publicKey.count)
        }
        self.publicKey = publicKey
        self.backend = backend
    }

    /// - Parameters:
    ///   - base64PublicKey: The key as `catalog keygen` prints it: base64 of 32 bytes.
    ///   - backend: The Ed25519 implementation.
    /// - Throws: ``SnapshotUpdateError/Code/invalidPublicKey`` when it is not base64 of an Ed25519 key.
    public init(base64PublicKey: String, backend: Backend) throws(SnapshotUpdateError) {
        guard let data = Data(base64Encoded: base64PublicKey.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw .invalidPublicKey(byteCount: nil)
        }
        try self.init(publicKey: data, backend: backend)
    }

    public func isValidSignature(_ signature: Data, for message: Data) -> Bool {
        backend.isValidSignature(signature, message, publicKey)
    }

    /// A verifier over the same Ed25519 implementation for a listed online key.
    public func verifier(forListedKey publicKey: Data) -> (any SnapshotSignatureVerifier)? {
        try? Ed25519SignatureVerifier(publicKey: publicKey, backend: backend)
    }
}

#if canImport(CryptoKit)
extension Ed25519SignatureVerifier.Backend {
    /// CryptoKit's Curve25519 signing keys.
    public static let cryptoKit = Ed25519SignatureVerifier.Backend(
        isValidKey: { (try? Curve25519.Signing.PublicKey(rawRepresentation: $0)) != nil },
        isValidSignature: { signature, message, key in
            (try? Curve25519.Signing.PublicKey(rawRepresentation: key))?.isValidSignature(signature, for: message)
                ?? false
        })
}

extension Ed25519SignatureVerifier {
    /// A verifier over CryptoKit for the key's 32 raw bytes.
    public init(publicKey: Data) throws(SnapshotUpdateError) {
        try self.init(publicKey: publicKey, backend: .cryptoKit)
    }

    /// A verifier over CryptoKit for the key as `catalog keygen` prints it.
    public init(base64PublicKey: String) throws(SnapshotUpdateError) {
        try self.init(base64PublicKey: base64PublicKey, backend: .cryptoKit)
    }
}
#endif
