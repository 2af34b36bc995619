/// Why a snapshot directory's manifest or one of its files cannot be used.
///
/// Thrown by `SnapshotReader`, so the pipeline's validator and the app's bundled tier name the
/// same problem the same way: the file, the record inside it where there is one, and what is wrong.
///
/// ```
/// en-iPhone/games/videoslots-d4a8b457ac/0.json.gz: payload.offset: must be a non-negative multiple
/// of limit 10, got 9223372036854775807 (page-arithmetic)
/// ```
@_spi(CatalogTools) public struct SnapshotReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. Extensible: new checks add new static values.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The path is not a safe relative path (absolute, `..`, odd bytes).
        public static let unsafePath = Code(rawValue: "unsafe-path")
        /// The file or a directory on its path does not exist.
        public static let notFound = Code(rawValue: "not-found")
        /// A symbolic link, a directory, a FIFO or a device where a regular file was expected.
        public static let notRegularFile = Code(rawValue: "not-regular-file")
        /// Over a cap of ``SnapshotLimits``.
        public static let tooLarge = Code(rawValue: "too-large")
        /// The size differs from the manifest's.
        public static let sizeMismatch = Code(rawValue: "size-mismatch")
        /// The operating system refused a read.
        public static let io = Code(rawValue: "io")
        /// The gzip stream is corrupt, truncated, a bomb or fails its CRC.
        public static let gzip = Code(rawValue: "gzip")
        /// The JSON does not decode as the expected type.
        public static let undecodable = Code(rawValue: "undecodable")
        /// A schema version other than ``CatalogSchema/version``.
        public static let foreignSchema = Code(rawValue: "foreign-schema")
        /// The manifest breaks the contract's rules (see `Manifest/violations(limits:)`).
        public static let invalidManifest = Code(rawValue: "invalid-manifest")
        /// The envelope or payload names other content than the manifest entry.
        public static let wrongContent = Code(rawValue: "wrong-content")
        /// The payload breaks the schema rules (see ``violations``).
        public static let invalidContent = Code(rawValue: "invalid-content")
        /// The JSON is not in its canonical form (`CanonicalJSON`): the file was not written by
        /// `catalog` (checked with `SnapshotReader/requiresCanonicalBytes`).
        public static let notCanonical = Code(rawValue: "not-canonical")
        /// A snapshot file's or a bundled image's SHA-256 differs from the manifest's (the file was
        /// changed since the build).
        public static let checksumMismatch = Code(rawValue: "checksum-mismatch")
        /// A bundled image's bytes are not the image type the manifest names, or no image at all.
        public static let wrongMediaType = Code(rawValue: "wrong-media-type")
    }

    /// What went wrong.
    public var code: Code
    /// The file at fault, relative to the snapshot directory (`manifest.json`, a page's path).
    public var file: String
    /// Where inside the file, when one field is at fault (`payload.offset`, `files[3]`).
    public var record: String?
    /// What is wrong, for people.
    public var message: String
    /// Every rule broken, for ``Code/invalidManifest`` and ``Code/invalidContent``.
    public var violations: [Violation]

    public init(
        _ code: Code, file: String, record: String? = nil, _ message: String, violations: [Violation] = []
    ) {
        self.code = code
        self.file = String(file.prefix(256))
        self.record = record
        self.message = message
        self.violations = violations
    }

    public var description: String {
        let shown = violations.prefix(3).map(\.description).joined(separator: "; ")
        let detail = violations.isEmpty ? message : "\(message): \(shown)"
        return [file, record, detail].compactMap { $0 }.joined(separator: ": ") + " (\(code))"
    }
}
