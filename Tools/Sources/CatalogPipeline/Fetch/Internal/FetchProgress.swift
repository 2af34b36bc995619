@_spi(Internals) import CasinoCatalog
import Foundation

/// Counts a fetch's requests, retries and bytes for its summary, and draws them as one updating
/// line on standard error when that is a terminal.
///
/// Shared by the concurrent requests of one fetch: one update per request or retry, under one lock.
final class FetchProgress: Sendable {
    private struct State {
        var counts = FetchSummary()
        var planned = 0
        var completed = 0
        var lastDrawn: ContinuousClock.Instant?
        var hasDrawn = false
    }

    private let state = Locked(State())
    private let isLineEnabled: Bool

    init(isLineEnabled: Bool) {
        self.isLineEnabled = isLineEnabled
    }

    /// `count` more requests are known to be needed.
    func plan(_ count: Int) {
        update { $0.planned += count }
    }

    /// A request was sent; `isRetry` when it follows a failed attempt.
    func sent(isRetry: Bool) {
        update { progress in
            progress.counts.requests += 1
            if isRetry { progress.counts.retries += 1 }
        }
    }

    /// Body bytes arrived.
    func received(bytes: Int) {
        update { $0.counts.bytesReceived += bytes }
    }

    /// A request is done; `notModified` when its body came from the previous recording.
    func complete(notModified: Bool) {
        update { progress in
            progress.completed += 1
            if notModified { progress.counts.notModified += 1 }
        }
    }

    /// The counts so far.
    var summary: FetchSummary {
        state.withLock { $0.counts }
    }

    /// Ends the progress line, if one was drawn.
    func finish() {
        state.withLock { state in
            guard isLineEnabled, state.hasDrawn else { return }
            Self.draw(&state, force: true)
            FileHandle.standardError.write(Data("\n".utf8))
        }
    }

    private func update(_ change: (inout State) -> Void) {
        state.withLock { state in
            change(&state)
            if isLineEnabled { Self.draw(&state, force: false) }
        }
    }

    /// Redraws at most ten times a second, unless forced. Called under the lock.
    private static func draw(_ state: inout State, force: Bool) {
        let now = ContinuousClock.now
        if !force, let lastDrawn = state.lastDrawn, now - lastDrawn < .milliseconds(100) { return }
        state.lastDrawn = now
        state.hasDrawn = true
        let line =
            "\r\u{1B}[2Kfetch: \(state.completed)/\(state.planned) requests done, \(state.counts.retries) retries, "
            + "\(state.counts.notModified) not modified, \(FetchSummary.format(bytes: state.counts.bytesReceived))"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
