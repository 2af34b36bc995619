@_spi(CatalogTools) public import CasinoCatalog
public import Foundation

/// Why a pipeline step failed: what, where (file and record) and what to do about it.
///
/// ```
/// data/provider/en-iPhone/games/videoslots-d4a8b457ac/10.json: items[3] (game 34795):
/// launchUrl: not an absolute https URL: 'http://x' — fix the record or drop it at the provider
/// ```
public struct PipelineError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable code; the CLI maps it to an exit status.
    public var code: Code
    /// What went wrong, for people; says what to do where that is not obvious.
    public var message: String
    /// The file at fault, when there is one.
    public var file: String?
    /// The record at fault inside the file (`items[3] (game 34795)`), when there is one.
    public var record: String?
    /// The underlying error.
    public var cause: (any Error & Sendable)?

    public init(
        _ code: Code, _ message: String, file: String? = nil, record: String? = nil,
        cause: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.file = file
        self.record = record
        self.cause = cause
    }

    /// The reader's error about a file of the snapshot directory `directory`.
    @_spi(CatalogTools) public init(_ error: SnapshotReadError, in directory: URL) {
        let code: Code =
            switch error.code {
            case .notFound: .missingInput
            case .tooLarge: .inputTooLarge
            case .io: .io
            default: .malformedInput
            }
        let file = directory.appendingPathComponent(error.file).relativePath
        self.init(code, "\(error.message) (\(error.code))", file: file, record: error.record, cause: error)
        if !error.violations.isEmpty {
            message += ": " + error.violations.prefix(5).map(\.description).joined(separator: "; ")
        }
    }

    public var description: String {
        [file, record, message].compactMap { $0 }.joined(separator: ": ")
    }

    /// A stable code per failure. Extensible: new failures add new static values.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// An input file or directory does not exist.
        public static let missingInput = Code(rawValue: "missing-input")
        /// Input is malformed: bad JSON or XML, wrong types, a forbidden DOCTYPE.
        public static let malformedInput = Code(rawValue: "malformed-input")
        /// Input is over a size cap.
        public static let inputTooLarge = Code(rawValue: "input-too-large")
        /// Input is well formed but breaks a rule: too many invalid records, an empty category.
        public static let invalidContent = Code(rawValue: "invalid-content")
        /// The configuration is invalid.
        public static let invalidConfiguration = Code(rawValue: "invalid-configuration")
        /// Reading or writing files failed.
        public static let io = Code(rawValue: "io")
        /// The snapshot directory does not validate.
        public static let validationFailed = Code(rawValue: "validation-failed")
        /// The output exists and is not ours to replace (a file, or a directory of someone else's
        /// files), or cannot be written.
        public static let outputNotReplaceable = Code(rawValue: "output-not-replaceable")
        /// The kind of source is not supported by this build.
        public static let unsupportedSource = Code(rawValue: "unsupported-source")
    }
}
