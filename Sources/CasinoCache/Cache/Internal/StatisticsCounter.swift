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
