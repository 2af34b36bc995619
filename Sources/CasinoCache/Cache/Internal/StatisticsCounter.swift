@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport

/// Where the cache's collaborators count what they did (``CacheStatistics``): each adds to it, none
/// reads another's counts; ``CatalogCache/statistics()`` reads them all at once.
final class StatisticsCounter: Sendable {
    private let counts = Locked(CacheStatistics())

    func record(_ change: (inout CacheStatistics) -> Void) {
        counts.withLock { change(&$0) }
    }

    var current: CacheStatistics { counts.withLock { $0 } }
}

/// Answers counted so far, by kind. The memory tier counts its own hits in one (under the lock it
/// already holds, so a hit takes one lock, not two).
struct AnswerCounts {
    var fresh = 0
    var stale = 0
    var bundled = 0

    init() {}

    /// One answer in `state` (a tier below memory counts its answers one at a time).
    init(counting state: CacheState) {
        count(state)
    }

    mutating func count(_ answer: CacheState) {
        switch answer {
        case .fresh: fresh += 1
        case .stale: stale += 1
        case .bundled: bundled += 1
        case .miss: break
        }
    }

    /// Adds these counts into `statistics`.
    func add(to statistics: inout CacheStatistics) {
        statistics.fresh += fresh
        statistics.stale += stale
        statistics.bundled += bundled
    }
}
