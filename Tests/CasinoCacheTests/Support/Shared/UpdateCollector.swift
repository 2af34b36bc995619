@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCatalog

/// Collects what arrives on an update stream.
final class UpdateCollector: Sendable {
    private let received = TestLocked<[CacheUpdate]>([])
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<CacheUpdate>) {
        let received = self.received
        task = Task {
            for await update in stream { received.withLock { $0.append(update) } }
        }
    }

    deinit { task.cancel() }

    var updates: [CacheUpdate] { received.withLock { $0 } }

    var contentUpdates: [(CacheKey, CatalogContent, ContentChanges)] {
        updates.compactMap { update in
            if case .updated(let content, let changes) = update.event { return (update.key, content, changes) }
            return nil
        }
    }

    var failures: [(CacheKey, CacheError, Int)] {
        updates.compactMap { update in
            if case .refreshFailed(let error, let attempt, _) = update.event { return (update.key, error, attempt) }
            return nil
        }
    }

    /// The changes of held updates the app has not applied yet.
    var pendingUpdates: [ContentChanges] {
        updates.compactMap { update in
            if case .pendingUpdate(let changes) = update.event { return changes }
            return nil
        }
    }

    /// Waits (bounded) until `count` updates arrived: the stream delivers on another task.
    func wait(for count: Int) async {
        await eventually { self.updates.count >= count }
    }
}
