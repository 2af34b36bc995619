import CatalogSupport

/// The background refresh in flight, shared by every caller of
/// ``CatalogCache/refreshInBackground(checking:within:)``: how to stop its parts, and whether they
/// were told to.
final class BackgroundRefreshRun: Sendable {
    /// The run and the task that answers its callers.
    struct Shared: Sendable {
        let run: BackgroundRefreshRun
        let task: Task<BackgroundRefreshReport, Never>
    }

    private struct State {
        var stops: [@Sendable () -> Void] = []
        var isCutShort = false
    }

    private let state = Locked(State())

    /// Whether the budget ran out or a caller was cancelled.
    var isCutShort: Bool { state.withLock { $0.isCutShort } }

    /// Adds a part's stop; calls it at once when the run is already cut short.
    func track(_ stop: @escaping @Sendable () -> Void) {
        if state.withLock({ state in
            state.stops.append(stop)
            return state.isCutShort
        }) {
            stop()
        }
    }

    /// Stops every part (once).
    func cutShort() {
        let stops = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.isCutShort else { return [] }
            state.isCutShort = true
            return state.stops
        }
        for stop in stops { stop() }
    }
}
