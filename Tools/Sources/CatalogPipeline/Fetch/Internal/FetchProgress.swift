import Foundation

/// Counts a fetch's requests, retries and bytes for its summary, and draws them as one updating
/// line on standard error when that is a terminal.
///
/// Shared by the concurrent requests of one fetch.
final class FetchProgress: @unchecked Sendable {
    // @unchecked: every stored var is read and written under `lock`. One update per request or
    // retry, so a plain lock is cheap enough and needs no newer OS than the package supports.
    private let lock = NSLock()
    private var counts = FetchSummary()
    private var planned = 0
    private var completed = 0
    private var lastDrawn: ContinuousClock.Instant?
    private var hasDrawn = false
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
        lock.withLock { counts }
    }

    /// Ends the progress line, if one was drawn.
    func finish() {
        lock.withLock {
            guard isLineEnabled, hasDrawn else { return }
            draw(force: true)
            FileHandle.standardError.write(Data("\n".utf8))
        }
    }

    private func update(_ change: (FetchProgress) -> Void) {
        lock.withLock {
            change(self)
            if isLineEnabled { draw(force: false) }
        }
    }

    /// Redraws at most ten times a second, unless forced. Called under `lock`.
    private func draw(force: Bool) {
        let now = ContinuousClock.now
        if !force, let lastDrawn, now - lastDrawn < .milliseconds(100) { return }
        lastDrawn = now
        hasDrawn = true
        let line =
            "\r\u{1B}[2Kfetch: \(completed)/\(planned) requests done, \(counts.retries) retries, "
            + "\(counts.notModified) not modified, \(FetchSummary.format(bytes: counts.bytesReceived))"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
