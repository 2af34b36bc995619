// CryptoKit's API on Linux: swift-crypto's `Crypto` has the same types and methods, so the runtime's
// `#if canImport(CryptoKit)` branches type-check here against it (make apple-check).
@_exported import Crypto
