@_spi(CatalogTools) public import CasinoCatalog

/// Everything ``SnapshotValidator`` found wrong with a snapshot directory.
public struct ValidationReport: Sendable {
    /// Every problem found, in the order found; empty when the directory is valid.
    public var problems: [Problem] = []
    /// The manifest, when it could be read.
    @_spi(CatalogTools) public var manifest: Manifest?
    /// Snapshot files read and checked.
    public var filesChecked = 0
    /// Games checked across all pages.
    public var gamesChecked = 0

    public init() {}

    /// Whether nothing is wrong.
    public var isValid: Bool { problems.isEmpty }

    /// Throws `.validationFailed` unless the report is valid, naming `what` failed and its first
    /// problems, and saying nothing was published.
    public func requireValid(_ what: String, file: String) throws(PipelineError) {
        guard !isValid else { return }
        throw PipelineError(
            .validationFailed,
            "\(what) does not validate (\(problems.count) problems); nothing was published. First: "
                + problems.prefix(5).map(\.description).joined(separator: "; "),
            file: file)
    }

    mutating func add(_ file: String, _ record: String? = nil, _ message: String) {
        problems.append(Problem(file: file, record: record, message: message))
    }

    /// Adds what the reader found: one problem per broken rule, else the error itself.
    mutating func add(_ error: SnapshotReadError) {
        guard !error.violations.isEmpty else {
            add(error.file, error.record, "\(error.message) (\(error.code))")
            return
        }
        for violation in error.violations {
            add(error.file, violation.path.isEmpty ? nil : violation.path, "\(violation.message) (\(violation.code))")
        }
    }

    /// One problem, named by file and record.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// The file at fault, relative to the snapshot directory.
        public var file: String
        /// The record inside it (`items[3].launchUrl`), when there is one.
        public var record: String?
        /// What is wrong.
        public var message: String

        public var description: String {
            [file, record, message].compactMap { $0 }.joined(separator: ": ")
        }
    }
}
