@_spi(CatalogTools) import CasinoCatalog
import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// How far a long piece of pipeline work has come, as one updating line on standard error:
/// `normalize: 1,200/4,000 categories, 310/s`. Drawn only when enabled (a terminal, and not
/// `--quiet`), only once the work has run for a second, and at most ten times a second; so quick
/// runs, logs and CI output stay clean.
///
/// Safe to advance from the parallel workers of one stage.
///
/// ```swift
/// let progress = ProgressLine(label: "validate", unit: "files")
/// progress.expect(manifest.files.count)
/// for file in manifest.files { check(file); progress.advance() }
/// progress.finish()
/// ```
public final class ProgressLine: Sendable {
    private struct State {
        var done = 0
        var total = 0
        var detail = ""
        var lastDrawn: ContinuousClock.Instant?
        var hasDrawn = false
    }

    /// A line that never draws: the default of every stage.
    public static let disabled = ProgressLine(label: "", unit: "", isEnabled: false)

    /// Whether standard error is a terminal.
    public static var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    private let label: String
    private let unit: String
    private let isEnabled: Bool
    private let started = ContinuousClock.now
    private let state = NIOLockedValueBox(State())

    /// - Parameters:
    ///   - label: What is being done (`normalize`).
    ///   - unit: What is counted (`categories`).
    ///   - isEnabled: Whether to draw: by default when standard error is a terminal.
    public init(label: String, unit: String, isEnabled: Bool = ProgressLine.isTerminal) {
        self.label = label
        self.unit = unit
        self.isEnabled = isEnabled
    }

    /// `count` more units of work are known to be coming.
    public func expect(_ count: Int) {
        update { $0.total += max(count, 0) }
    }

    /// `count` units are done; `detail` (if given) replaces the text after the count.
    public func advance(by count: Int = 1, detail: String? = nil) {
        update { state in
            state.done += count
            if let detail { state.detail = detail }
        }
    }

    /// Draws the final count and ends the line, if a line was drawn.
    public func finish() {
        guard isEnabled else { return }
        state.withLockedValue { state in
            guard state.hasDrawn else { return }
            draw(&state, force: true)
            FileHandle.standardError.write(Data("\n".utf8))
        }
    }

    private func update(_ change: (inout State) -> Void) {
        state.withLockedValue { state in
            change(&state)
            if isEnabled { draw(&state, force: false) }
        }
    }

    /// Redraws at most ten times a second, and not in the first second. Called under the lock.
    private func draw(_ state: inout State, force: Bool) {
        let now = ContinuousClock.now
        let elapsed = now - started
        if !force {
            if elapsed < .seconds(1) { return }
            if let lastDrawn = state.lastDrawn, now - lastDrawn < .milliseconds(100) { return }
        }
        state.lastDrawn = now
        state.hasDrawn = true
        let seconds = elapsed.timeInterval
        let rate = seconds > 0 ? Int((Double(state.done) / seconds).rounded()) : 0
        let count = state.total > 0 ? "\(state.done)/\(state.total)" : "\(state.done)"
        let detail = state.detail.isEmpty ? "" : ", \(state.detail)"
        let line = "\r\u{1B}[2K\(label): \(count) \(unit), \(rate)/s\(detail)"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
