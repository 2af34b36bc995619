import InMemoryLogging
import Logging

/// Collects log records in memory, through swift-log's `InMemoryLogHandler`, at every level.
struct LogRecorder {
    struct Record {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    private let handler: InMemoryLogHandler = {
        var handler = InMemoryLogHandler()
        handler.logLevel = .trace
        return handler
    }()

    var records: [Record] {
        handler.entries.map {
            Record(level: $0.level, message: $0.message.description, metadata: $0.metadata.mapValues(\.description))
        }
    }

    var logger: Logger {
        let handler = self.handler
        return Logger(label: "casino-cache-tests") { _ in handler }
    }
}
