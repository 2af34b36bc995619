import Foundation
import NIOConcurrencyHelpers

/// A child process's standard output, read on its own thread, and when its first line came.
final class OutputLines: Sendable {
    private let state = NIOLockedValueBox<(text: String, firstLine: ContinuousClock.Instant?, isClosed: Bool)>(
        ("", nil, false))

    init(_ process: Process) {
        let pipe = Pipe()
        process.standardOutput = pipe
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [state] in
            while true {
                let data = handle.availableData
                let now = ContinuousClock.now
                state.withLockedValue { state in
                    if data.isEmpty { state.isClosed = true }
                    state.text += String(decoding: data, as: UTF8.self)
                    if state.firstLine == nil, state.text.contains("\n") { state.firstLine = now }
                }
                if data.isEmpty { return }
            }
        }
    }

    /// When the first line came; throws when the output closed without one or `limit` passed.
    func firstLine(within limit: Duration) async throws -> ContinuousClock.Instant {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let (text, first, isClosed) = state.withLockedValue { $0 }
            if let first { return first }
            if isClosed { throw OutputError(text: text) }
            try await Task.sleep(for: .milliseconds(2))
        }
        throw OutputError(text: "no line within \(limit)")
    }

    /// Everything written so far, and whether the output closed (the process exited).
    var output: (text: String, isClosed: Bool) {
        state.withLockedValue { ($0.text, $0.isClosed) }
    }

    struct OutputError: Error { var text: String }
}
