/// Something the pipeline skipped or repaired, named by file and record, for the CLI to show.
public struct PipelineWarning: Sendable, Hashable, CustomStringConvertible {
    /// The file (or feed) at fault.
    public var file: String
    /// The record inside it (`items[3] (game 34795)`), empty for the file as a whole.
    public var record: String
    /// What happened.
    public var message: String

    public init(file: String, record: String, message: String) {
        self.file = file
        self.record = record
        self.message = message
    }

    public var description: String {
        record.isEmpty ? "\(file): \(message)" : "\(file): \(record): \(message)"
    }
}
