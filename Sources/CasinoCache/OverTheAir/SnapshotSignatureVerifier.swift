public import Foundation

/// Checks the signature of a published snapshot manifest against the key an app pins.
///
/// The updater calls it on the exact bytes the publisher signed (the payload embedded in the
/// signed manifest), before it decodes anything inside them. The runtime carries no cryptography
/// of its own: on Apple platforms ``Ed25519SignatureVerifier`` uses CryptoKit, which comes with the
/// OS; elsewhere a conforming type brings its own (the tools' `CatalogSigning` module has one over
/// swift-crypto with the same API).
///
/// ```swift
/// let verifier = try Ed25519SignatureVerifier(base64PublicKey: "nXy3…=")
/// verifier.isValidSignature(signature, for: payload)
/// ```
public protocol SnapshotSignatureVerifier: Sendable {
    /// Whether `signature` is a valid signature of `message` by the pinned key.
    func isValidSignature(_ signature: Data, for message: Data) -> Bool
}
