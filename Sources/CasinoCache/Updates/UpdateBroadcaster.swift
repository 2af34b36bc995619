import Foundation

/// Fans updates out to every subscriber's `AsyncStream`.
final class UpdateBroadcaster: Sendable {
    private let subscribers = Locked([UInt64: AsyncStream<CacheUpdate>.Continuation]())
    private let nextID = Locked<UInt64>(0)
    /// How many updates each slow subscriber may have waiting before the oldest are dropped.
    let bufferSize: Int

    init(bufferSize: Int = 256) {
        self.bufferSize = bufferSize
    }

    func subscribe() -> AsyncStream<CacheUpdate> {
        let id = nextID.withLock { value -> UInt64 in
            value += 1
            return value
        }
        let (stream, continuation) = AsyncStream<CacheUpdate>.makeStream(bufferingPolicy: .bufferingNewest(bufferSize))
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { $0[id] = nil }
        }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    func publish(_ update: CacheUpdate) {
        let continuations = subscribers.withLock { Array($0.values) }
        for continuation in continuations { continuation.yield(update) }
    }

    func finish() {
        let continuations = subscribers.withLock { subscribers in
            defer { subscribers.removeAll() }
            return Array(subscribers.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
