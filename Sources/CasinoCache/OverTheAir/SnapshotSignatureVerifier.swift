public import Foundation

/// Checks the signature of a published snapshot manifest against the key an app pins.
///
/// The updater calls it on the exact bytes the publisher signed (the payload embedded in the
/// signed manifest), before it decodes anything inside them. The runtime carries no cryptography
/// of its own: on Apple platforms ``Ed25519SignatureVerifier`` uses CryptoKit, which comes with the
/// OS; on Linux the `CatalogSigning` product gives it the same initializers over swift-crypto, and
/// any other conforming type may bring its own.
///
/// ```swift
/// let verifier = try Ed25519SignatureVerifier(base64PublicKey: "nXy3…=")
/// verifier.isValidSignature(signature, for: payload)
/// ```
public protocol SnapshotSignatureVerifier: Sendable {
    /// Whether `signature` is a valid signature of `message` by the pinned key.
    func isValidSignature(_ signature: Data, for message: Data) -> Bool

    /// A verifier for an online key a list signed by this (root) key names, by its 32 raw public
    /// bytes, or `nil` when this verifier cannot check other keys (then only sets signed by a
    /// pinned key itself are accepted). `nil` by default; ``Ed25519SignatureVerifier`` makes one.
    func verifier(forListedKey publicKey: Data) -> (any SnapshotSignatureVerifier)?
}

extension SnapshotSignatureVerifier {
    public func verifier(forListedKey publicKey: Data) -> (any SnapshotSignatureVerifier)? { nil }
}
