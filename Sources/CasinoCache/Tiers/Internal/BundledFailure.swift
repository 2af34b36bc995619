/// Why a bundled manifest or snapshot file cannot be served.
///
/// Internal: the bundled tier never throws to its callers. A failure becomes a `nil` answer, a
/// count in ``BundledTier/corruptFiles`` and one `.info` log line carrying ``description``.
struct BundledFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. Extensible: new checks add new static values.
    struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        var rawValue: String
        init(rawValue: String) { self.rawValue = rawValue }
        var description: String { rawValue }

        /// The path is not a safe relative path (absolute, `..`, odd bytes).
        static let unsafePath = Code(rawValue: "unsafe-path")
        /// The file or a directory on its path does not exist.
        static let notFound = Code(rawValue: "not-found")
        /// A symbolic link, a directory, a FIFO or a device where a regular file was expected.
        static let notRegularFile = Code(rawValue: "not-regular-file")
        /// Over a configured size cap.
        static let tooLarge = Code(rawValue: "too-large")
        /// The size differs from the manifest's.
        static let sizeMismatch = Code(rawValue: "size-mismatch")
        /// The operating system refused a read.
        static let io = Code(rawValue: "io")
        /// The gzip stream is corrupt, truncated, a bomb or fails its CRC.
        static let gzip = Code(rawValue: "gzip")
        /// The JSON does not decode as the expected type.
        static let undecodable = Code(rawValue: "undecodable")
        /// A schema version other than `CatalogSchema.version`.
        static let foreignSchema = Code(rawValue: "foreign-schema")
        /// The envelope names other content than the manifest entry.
        static let wrongContent = Code(rawValue: "wrong-content")
        /// The payload breaks the schema rules.
        static let invalidContent = Code(rawValue: "invalid-content")
    }

    var code: Code
    var message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    var description: String { "\(message) (\(code))" }
}
