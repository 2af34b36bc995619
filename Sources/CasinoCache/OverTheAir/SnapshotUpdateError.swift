/// Why an over-the-air snapshot update was refused or failed.
///
/// Refusals (``isRefusal``) come back as ``SnapshotUpdater/Outcome/refused(_:)``: the published set
/// is not acceptable (a bad signature, an older version, an expired manifest, a file that is not
/// what the manifest says). Failures are thrown: the set could not be fetched or installed
/// (offline, a timeout, a server error, a full disk). Either way the installed generation, or the
/// app's bundle, keeps serving.
///
/// ```swift
/// if case .refused(let error) = try await updater.checkForUpdate(), error.code == .badSignature {
///     logger.critical("a published snapshot is not signed by our key", metadata: ["ota.reason": "\(error)"])
/// }
/// ```
public struct SnapshotUpdateError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable code.
    public var code: Code
    /// What went wrong and what to do, for people.
    public var message: String
    /// The URL or file concerned, when there is one.
    public var location: String?
    /// The underlying error, when there is one.
    public var cause: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, location: String? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.location = location.map { String($0.prefix(300)) }
        self.cause = cause
    }

    public var description: String {
        "\(code): \(message)" + (location.map { " (\($0))" } ?? "")
    }

    /// Whether the published set was refused (it is not acceptable) rather than not obtained.
    public var isRefusal: Bool { Code.refusals.contains(code) }

    /// A stable code per failure. Extensible: new failures add new static values.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        // Refusals: the published set is not acceptable.

        /// The signature does not verify with any pinned key: the manifest was tampered with or
        /// signed by another key.
        public static let badSignature = Code(rawValue: "bad-signature")
        /// The version is not above the installed one (a rollback or a replay), or the set's key
        /// list is older than the installed generation's.
        public static let rollback = Code(rawValue: "rollback")
        /// The set's key list does not verify with any pinned (root) key.
        public static let untrustedKeyList = Code(rawValue: "untrusted-key-list")
        /// The set's key list has expired: re-sign it with a root key.
        public static let expiredKeyList = Code(rawValue: "expired-key-list")
        /// The key that signed the set is not on its key list: revoked, or never listed.
        public static let revokedKey = Code(rawValue: "revoked-key")
        /// The manifest's `expiresAt` has passed.
        public static let expired = Code(rawValue: "expired")
        /// The snapshot is older than the one the app bundles.
        public static let olderThanBundle = Code(rawValue: "older-than-bundle")
        /// Another manifest format or snapshot schema than this build reads.
        public static let foreignFormat = Code(rawValue: "foreign-format")
        /// The manifest is not JSON of a signed or published manifest, or its fields are malformed.
        public static let malformedManifest = Code(rawValue: "malformed-manifest")
        /// A path that could leave its directory, a hash that is not 64 lowercase hex digits, a
        /// repeated path.
        public static let unsafeEntry = Code(rawValue: "unsafe-entry")
        /// Over a cap: manifest bytes, file count, bytes per file or in total.
        public static let overLimit = Code(rawValue: "over-limit")
        /// A file's SHA-256 differs from the manifest's.
        public static let checksumMismatch = Code(rawValue: "checksum-mismatch")
        /// A file's size differs from the manifest's.
        public static let sizeMismatch = Code(rawValue: "size-mismatch")
        /// The snapshot fails the checks the bundled tier applies (its manifest, envelopes, rules).
        public static let invalidSnapshot = Code(rawValue: "invalid-snapshot")

        // Failures: the set could not be fetched or installed.

        /// The server cannot be reached.
        public static let offline = Code(rawValue: "offline")
        /// A request or the whole update took longer than allowed.
        public static let timedOut = Code(rawValue: "timed-out")
        /// The server answered a status other than 200 or 304.
        public static let httpStatus = Code(rawValue: "http-status")
        /// Another transport failure (TLS, a refused redirect).
        public static let transportFailed = Code(rawValue: "transport-failed")
        /// Reading or writing the support directory failed.
        public static let io = Code(rawValue: "io")
        /// A pinned public key is not an Ed25519 key.
        public static let invalidPublicKey = Code(rawValue: "invalid-public-key")
        /// The updater's configuration is unusable (no verifier, caps out of range).
        public static let invalidConfiguration = Code(rawValue: "invalid-configuration")
        /// The check was cancelled (``SnapshotUpdater/cancelUpdate()``, or every caller's task).
        public static let cancelled = Code(rawValue: "cancelled")

        static let refusals: Set<Code> = [
            .badSignature, .rollback, .untrustedKeyList, .expiredKeyList, .revokedKey, .expired, .olderThanBundle,
            .foreignFormat, .malformedManifest, .unsafeEntry,
            .overLimit, .checksumMismatch, .sizeMismatch, .invalidSnapshot,
        ]
    }

    /// A public key that is not base64 of 32 bytes of an Ed25519 key.
    public static func invalidPublicKey(byteCount: Int?) -> SnapshotUpdateError {
        SnapshotUpdateError(
            .invalidPublicKey,
            "the pinned public key is not an Ed25519 key"
                + (byteCount.map { " (\($0) bytes, expected 32)" } ?? " (not base64)")
                + "; pin the base64 text catalog keygen printed")
    }
}
