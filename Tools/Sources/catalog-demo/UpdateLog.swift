@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import NIOConcurrencyHelpers

/// Collects what arrives on a cache's update stream, as a view model would receive it.
final class UpdateLog: Sendable {
    private let storage = NIOLockedValueBox<[CacheUpdate]>([])
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<CacheUpdate>) {
        let storage = self.storage
        task = Task {
            for await update in stream { storage.withLockedValue { $0.append(update) } }
        }
    }

    deinit { task.cancel() }

    /// Every update received so far, in order.
    var events: [CacheUpdate] { storage.withLockedValue { $0 } }

    /// The content updates.
    var updates: [CacheUpdate] { events.filter { if case .updated = $0.event { true } else { false } } }

    /// The failed refreshes' errors.
    var failures: [CacheError] {
        events.compactMap { if case .refreshFailed(let error, _, _) = $0.event { error } else { nil } }
    }

    /// Waits (at most a second) until every update the cache has emitted so far has arrived: the
    /// stream delivers on another task.
    func settle(with cache: CatalogCache) async {
        let statistics = cache.statistics()
        let expected = statistics.updatesEmitted + statistics.refreshFailures
        for _ in 0..<200 where events.count < expected {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}
