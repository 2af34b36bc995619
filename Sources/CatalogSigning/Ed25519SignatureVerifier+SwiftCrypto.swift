public import CasinoCache
import Crypto
public import Foundation

extension Ed25519SignatureVerifier.Backend {
    /// swift-crypto's Curve25519 signing keys: the runtime's CryptoKit backend, off Apple platforms.
    public static let swiftCrypto = Ed25519SignatureVerifier.Backend(
        isValidKey: { (try? Curve25519.Signing.PublicKey(rawRepresentation: $0)) != nil },
        isValidSignature: { signature, message, key in
            (try? Curve25519.Signing.PublicKey(rawRepresentation: key))?.isValidSignature(signature, for: message)
                ?? false
        })
}

#if !canImport(CryptoKit)
// The runtime declares these two over CryptoKit where it exists; here they complete the same API
// over swift-crypto: a Linux app adds the `CatalogSigning` product and writes what an iOS app writes.
extension Ed25519SignatureVerifier {
    /// A verifier over swift-crypto for the key's 32 raw bytes.
    public init(publicKey: Data) throws(SnapshotUpdateError) {
        try self.init(publicKey: publicKey, backend: .swiftCrypto)
    }

    /// A verifier over swift-crypto for the key as `catalog keygen` prints it.
    public init(base64PublicKey: String) throws(SnapshotUpdateError) {
        try self.init(base64PublicKey: base64PublicKey, backend: .swiftCrypto)
    }
}
#endif
