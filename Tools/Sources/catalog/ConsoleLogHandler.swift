import Foundation
import Logging

/// Prints log lines for people on standard error: `warning: <message> key=value …`.
struct ConsoleLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    init(level: Logger.Level) {
        self.logLevel = level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line = event.level == .info || event.level == .notice ? "" : "\(event.level): "
        line += "\(event.message)"
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        if !merged.isEmpty {
            line += " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
