#if canImport(Combine)
public import Combine

extension CatalogCache {
    /// The update stream as a Combine publisher, for view models built on Combine.
    ///
    /// Each subscription opens its own ``updates()`` stream and closes it when cancelled.
    ///
    /// ```swift
    /// cache.updatesPublisher
    ///     .receive(on: DispatchQueue.main)
    ///     .sink { [weak self] update in self?.apply(update) }
    ///     .store(in: &cancellables)
    /// ```
    public var updatesPublisher: AnyPublisher<CacheUpdate, Never> {
        Deferred { [self] in
            // PassthroughSubject is thread-safe (Combine serializes `send`) but not marked Sendable.
            nonisolated(unsafe) let subject = PassthroughSubject<CacheUpdate, Never>()
            let stream = updates()
            let task = Task {
                for await update in stream { subject.send(update) }
                subject.send(completion: .finished)
            }
            return subject.handleEvents(receiveCancel: { task.cancel() })
        }
        .eraseToAnyPublisher()
    }
}
#endif
