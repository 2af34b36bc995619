@_spi(CatalogTools) import CasinoCatalog
import Foundation
import NIOConcurrencyHelpers

/// Counts a fetch's requests, retries and bytes for its summary, and shows them on a
/// ``ProgressLine`` when that is enabled.
///
/// Shared by the concurrent requests of one fetch.
final class FetchProgress: Sendable {
    private let counts = NIOLockedValueBox(FetchSummary())
    private let line: ProgressLine

    init(isLineEnabled: Bool) {
        line = ProgressLine(label: "fetch", unit: "requests", isEnabled: isLineEnabled)
    }

    /// `count` more requests are known to be needed.
    func plan(_ count: Int) {
        line.expect(count)
    }

    /// A request was sent; `isRetry` when it follows a failed attempt.
    func sent(isRetry: Bool) {
        count { counts in
            counts.requests += 1
            if isRetry { counts.retries += 1 }
        }
    }

    /// Body bytes arrived.
    func received(bytes: Int) {
        count { $0.bytesReceived += bytes }
    }

    /// A request is done; `notModified` when its body came from the previous recording.
    func complete(notModified: Bool) {
        let detail = count { counts in
            if notModified { counts.notModified += 1 }
        }
        line.advance(detail: detail)
    }

    /// The counts so far.
    var summary: FetchSummary {
        counts.withLockedValue { $0 }
    }

    /// Ends the progress line, if one was drawn.
    func finish() {
        line.finish()
    }

    /// Applies `change` and returns the line's detail text for the new counts.
    @discardableResult
    private func count(_ change: (inout FetchSummary) -> Void) -> String {
        counts.withLockedValue { counts in
            change(&counts)
            return "\(counts.retries) retries, \(counts.notModified) not modified, "
                + FetchSummary.format(bytes: counts.bytesReceived)
        }
    }
}
