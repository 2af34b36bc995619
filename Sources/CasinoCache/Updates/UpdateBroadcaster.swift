@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation

/// Fans updates out to every subscriber's `AsyncStream`: all of them, or those of one key.
final class UpdateBroadcaster: Sendable {
    private struct Subscriber {
        var key: CacheKey?
        var continuation: AsyncStream<CacheUpdate>.Continuation
    }

    private let subscribers = Locked([UInt64: Subscriber]())
    private let nextID = Locked<UInt64>(0)
    /// How many updates each slow subscriber may have waiting before the oldest are dropped.
    let bufferSize: Int

    init(bufferSize: Int = 256) {
        self.bufferSize = bufferSize
    }

    /// A new stream of the updates of `key` from now on, or of every update when `key` is `nil`.
    func subscribe(to key: CacheKey? = nil) -> AsyncStream<CacheUpdate> {
        let id = nextID.withLock { value -> UInt64 in
            value += 1
            return value
        }
        let (stream, continuation) = AsyncStream<CacheUpdate>.makeStream(bufferingPolicy: .bufferingNewest(bufferSize))
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { $0[id] = nil }
        }
        subscribers.withLock { $0[id] = Subscriber(key: key, continuation: continuation) }
        return stream
    }

    /// Whether any stream would receive an update of `key`.
    func hasSubscribers(for key: CacheKey) -> Bool {
        subscribers.withLock { subscribers in subscribers.values.contains { $0.key == nil || $0.key == key } }
    }

    func publish(_ update: CacheUpdate) {
        let continuations = subscribers.withLock { subscribers in
            subscribers.values.compactMap { $0.key == nil || $0.key == update.key ? $0.continuation : nil }
        }
        for continuation in continuations { continuation.yield(update) }
    }

    func finish() {
        let continuations = subscribers.withLock { subscribers in
            defer { subscribers.removeAll() }
            return subscribers.values.map(\.continuation)
        }
        for continuation in continuations { continuation.finish() }
    }
}
