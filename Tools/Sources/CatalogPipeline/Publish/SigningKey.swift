@_spi(CatalogTools) public import CasinoCatalog
import Crypto
public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// The Ed25519 key `catalog publish` signs published snapshot sets with.
///
/// Kept as base64 of its 32 raw bytes: in a file only its owner may read (`catalog keygen` writes
/// one with mode 0600), or in the environment variable ``environmentVariable`` of a CI job. Never
/// in the repository. An app pins the ``publicKeyBase64``.
///
/// ```swift
/// let key = try SigningKey.load(file: URL(fileURLWithPath: "keys/catalog-signing.key"))
/// let signature = try key.signature(for: payload)
/// ```
public struct SigningKey: Sendable {
    /// `CATALOG_SIGNING_KEY`: where CI hands the key over (base64 of the 32 raw bytes).
    public static let environmentVariable = "CATALOG_SIGNING_KEY"

    private let key: Curve25519.Signing.PrivateKey

    /// A new random key.
    public static func generate() -> SigningKey { SigningKey(key: Curve25519.Signing.PrivateKey()) }

    private init(key: Curve25519.Signing.PrivateKey) { self.key = key }

    /// The key from base64 of its 32 raw bytes.
    ///
    /// - Parameter origin: Where the text came from, for the message (a file, the variable).
    /// - Throws: ``PipelineError`` `.invalidConfiguration` when it is not such base64.
    public init(base64: String, origin: String) throws(PipelineError) {
        guard let raw = Data(base64Encoded: base64.trimmingCharacters(in: .whitespacesAndNewlines)), raw.count == 32,
            let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw)
        else {
            throw PipelineError(
                .invalidConfiguration,
                "not an Ed25519 private key (base64 of 32 bytes, as catalog keygen writes)", file: origin)
        }
        self.key = key
    }

    /// Reads the key from `file`, which must be a regular file of at most 1 KiB that only its owner
    /// can read or write.
    ///
    /// - Throws: ``PipelineError``: `.missingInput` when there is no such file, `.invalidConfiguration`
    ///   when others may read it (saying to `chmod 600` it) or it holds no key.
    public static func load(file: URL) throws(PipelineError) -> SigningKey {
        var info = stat()
        guard stat(file.path, &info) == 0 else {
            throw PipelineError(
                .missingInput, "no signing key file here (catalog keygen writes one)", file: file.relativePath)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw PipelineError(.invalidConfiguration, "the signing key is not a regular file", file: file.relativePath)
        }
        guard info.st_mode & 0o077 == 0 else {
            throw PipelineError(
                .invalidConfiguration,
                "the signing key may be read by others (mode \(String(info.st_mode & 0o777, radix: 8))); run chmod 600 on it",
                file: file.relativePath)
        }
        let text = try FileInput.read(file, limit: 1024, what: "the signing key")
        return try SigningKey(base64: String(decoding: text, as: UTF8.self), origin: file.relativePath)
    }

    /// The key from `file` when one is given, else from ``environmentVariable``.
    ///
    /// - Throws: ``PipelineError`` `.invalidConfiguration` when neither is there, saying how to
    ///   provide one; else as ``load(file:)`` and ``init(base64:origin:)``.
    public static func load(file: URL?, environment: [String: String]) throws(PipelineError) -> SigningKey {
        if let file { return try load(file: file) }
        if let text = environment[environmentVariable], !text.isEmpty {
            return try SigningKey(base64: text, origin: "$\(environmentVariable)")
        }
        throw PipelineError(
            .invalidConfiguration,
            "no signing key: pass --key-file <file> (catalog keygen --output <dir> writes one) or set "
                + "\(environmentVariable) to the file's base64 text; keep it out of the repository")
    }

    /// The public key's 32 raw bytes.
    public var publicKey: Data { key.publicKey.rawRepresentation }

    /// The public key as an app pins it: base64 of its 32 raw bytes.
    public var publicKeyBase64: String { publicKey.base64EncodedString() }

    /// The first 16 hex digits of the public key's SHA-256: which key signed, for people.
    public var keyId: String { Self.keyId(of: publicKey) }

    /// The id of the key whose 32 raw public bytes are `publicKey` (see ``keyId``).
    public static func keyId(of publicKey: Data) -> String { String(FileNaming.hexSHA256(publicKey).prefix(16)) }

    /// The Ed25519 signature of `message`.
    public func signature(for message: Data) throws(PipelineError) -> Data {
        do {
            return try key.signature(for: message)
        } catch {
            throw PipelineError(.io, "cannot sign: \(error)", cause: error)
        }
    }

    /// Whether `signature` is this key's signature of `message`: the publisher checks what it signed.
    public func isValidSignature(_ signature: Data, for message: Data) -> Bool {
        key.publicKey.isValidSignature(signature, for: message)
    }

    /// Signs `list` as a root key: what an app pinning this key accepts online keys from.
    @_spi(CatalogTools) public func sign(_ list: SigningKeyList) throws(PipelineError) -> SignedKeyList {
        let payload: Data
        do {
            payload = try CatalogCoding.encoder().encode(list)
        } catch {
            throw PipelineError(.invalidContent, "cannot encode the key list: \(error)")
        }
        return SignedKeyList(keyId: keyId, payload: payload, signature: try signature(for: payload))
    }

    /// Writes a new key pair into `directory` (created if missing): `name.key`, the private key,
    /// with mode 0600, and `name.pub`, the public key, with 0644, each base64 and a newline. Refuses
    /// to overwrite either file.
    ///
    /// - Returns: The key written.
    /// - Throws: ``PipelineError`` `.outputNotReplaceable` when either file exists, `.io` when
    ///   writing fails (nothing is left behind then).
    public static func generate(
        into directory: URL, name: String = "catalog-signing"
    ) throws(PipelineError)
        -> SigningKey
    {
        let key = generate()
        let privateURL = directory.appendingPathComponent(name + ".key")
        let publicURL = directory.appendingPathComponent(name + ".pub")
        for url in [privateURL, publicURL] where FileManager.default.fileExists(atPath: url.path) {
            throw PipelineError(
                .outputNotReplaceable, "a key is already there; not replacing it (move it away to make a new one)",
                file: url.relativePath)
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw PipelineError(
                .io, "cannot create the directory: \(error.localizedDescription)", file: directory.relativePath)
        }
        let secret = Data((key.key.rawRepresentation.base64EncodedString() + "\n").utf8)
        let written = [
            (privateURL, secret, mode_t(0o600)), (publicURL, Data((key.publicKeyBase64 + "\n").utf8), mode_t(0o644)),
        ]
        for (index, (url, data, mode)) in written.enumerated() {
            // O_EXCL: a file created since the check above is not replaced either.
            let error = FileOutput.createFile(atPath: url.path, contents: data, permissions: mode)
            guard error == 0 else {
                if index > 0 { unlink(privateURL.path) }
                let what =
                    error == EEXIST ? "a key is already there; not replacing it" : String(cString: strerror(error))
                throw PipelineError(error == EEXIST ? .outputNotReplaceable : .io, what, file: url.relativePath)
            }
            // The umask may have narrowed the mode; the owner-only mode must hold exactly.
            chmod(url.path, mode)
        }
        return key
    }
}
