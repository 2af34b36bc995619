/// Why gzip data could not be compressed or decompressed.
@_spi(CatalogTools) public struct GzipError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable code.
    public var code: Code
    /// What went wrong, for people.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "gzip: \(message)" }

    /// A stable code for each failure. Extensible: new failures add new static values.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The input is not gzip (wrong magic bytes).
        public static let notGzip = Code(rawValue: "not-gzip")
        /// The input ends before the gzip stream does (or is empty).
        public static let truncated = Code(rawValue: "truncated")
        /// The deflate data or header is invalid.
        public static let corrupt = Code(rawValue: "corrupt")
        /// The CRC-32 or length in the trailer does not match the data.
        public static let checksumMismatch = Code(rawValue: "checksum-mismatch")
        /// Bytes (or a second gzip member) follow the end of the stream.
        public static let trailingData = Code(rawValue: "trailing-data")
        /// The output would exceed the caller's limit.
        public static let tooLarge = Code(rawValue: "too-large")
        /// The output is not the size the caller expected.
        public static let sizeMismatch = Code(rawValue: "size-mismatch")
        /// The caller passed a negative limit or expected size.
        public static let invalidArgument = Code(rawValue: "invalid-argument")
        /// zlib itself failed (out of memory, bad parameters).
        public static let zlib = Code(rawValue: "zlib")
    }
}
