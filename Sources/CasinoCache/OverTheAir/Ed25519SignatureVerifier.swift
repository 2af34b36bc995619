#if canImport(CryptoKit)
import CryptoKit
public import Foundation

/// Ed25519 signature checks with CryptoKit against a pinned public key: the verifier an app on an
/// Apple platform gives ``SnapshotUpdater``.
///
/// The key is the 32 raw bytes `catalog keygen` prints in base64 (and writes to
/// `catalog-signing.pub`). Linux builds get the same type, over swift-crypto, from the tools'
/// `CatalogSigning` module.
///
/// ```swift
/// let verifier = try Ed25519SignatureVerifier(base64PublicKey: "nXy3…=")
/// ```
public struct Ed25519SignatureVerifier: SnapshotSignatureVerifier, Hashable {
    /// The pinned key's 32 raw bytes.
    public let publicKey: Data

    /// - Parameter publicKey: The key's 32 raw bytes.
    /// - Throws: ``SnapshotUpdateError/Code/invalidPublicKey`` when they are not an Ed25519 key.
    public init(publicKey: Data) throws(SnapshotUpdateError) {
        guard (try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey)) != nil else {
            throw .invalidPublicKey(byteCount: publicKey.count)
        }
        self.publicKey = publicKey
    }

    /// - Parameter base64PublicKey: The key as `catalog keygen` prints it: base64 of 32 bytes.
    /// - Throws: ``SnapshotUpdateError/Code/invalidPublicKey`` when it is not base64 of an Ed25519 key.
    public init(base64PublicKey: String) throws(SnapshotUpdateError) {
        guard let data = Data(base64Encoded: base64PublicKey.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw .invalidPublicKey(byteCount: nil)
        }
        try self.init(publicKey: data)
    }

    public func isValidSignature(_ signature: Data, for message: Data) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
        return key.isValidSignature(signature, for: message)
    }
}
#endif
