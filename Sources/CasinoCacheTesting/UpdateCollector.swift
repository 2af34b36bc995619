@_spi(CatalogTools) public import CasinoCache
import CatalogSupport

/// Collects what arrives on an update stream, for the package's own tests in both packages.
@_spi(CatalogTools) public final class UpdateCollector: Sendable {
    private let received = Locked<[CacheUpdate]>([])
    private let task: Task<Void, Never>

    public init(_ stream: AsyncStream<CacheUpdate>) {
        let received = self.received
        task = Task {
            for await update in stream { received.withLock { $0.append(update) } }
        }
    }

    deinit { task.cancel() }

    /// Every update so far, oldest first.
    public var updates: [CacheUpdate] { received.withLock { $0 } }

    /// The `.updated` events: key, content and changes.
    public var contentUpdates: [(CacheKey, CatalogContent, ContentChanges)] {
        updates.compactMap { update in
            if case .updated(let content, let changes) = update.event { return (update.key, content, changes) }
            return nil
        }
    }

    /// The `.refreshFailed` events: key, error and attempt.
    public var failures: [(CacheKey, CacheError, Int)] {
        updates.compactMap { update in
            if case .refreshFailed(let error, let attempt, _) = update.event { return (update.key, error, attempt) }
            return nil
        }
    }

    /// The changes of held updates the app has not applied yet.
    public var pendingUpdates: [ContentChanges] {
        updates.compactMap { update in
            if case .pendingUpdate(let changes) = update.event { return changes }
            return nil
        }
    }

    /// Waits (bounded) until `count` updates arrived: the stream delivers on another task.
    public func wait(for count: Int) async {
        await eventually { self.updates.count >= count }
    }
}
