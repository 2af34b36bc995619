@_spi(Internals) import CasinoCatalog
import CatalogSupport
import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request over the app's `URLSession` that returns by its deadline whatever the transport
/// does: the path of every request the runtime sends (the HTTP upstream, the over-the-air updater).
///
/// The transfer runs `URLSession.data(for:delegate:)` in a task of its own that Swift never
/// cancels. FoundationNetworking's `data(for:)` deadlocks when its task is cancelled at the moment
/// the transfer completes (its cancellation handler calls `URLSessionTask.cancel()`, which waits
/// for the session's queue, while that queue waits to resume the task); so the caller waits through
/// ``Deadline``, and when it stops waiting (the deadline, its own cancellation) the transfer is
/// stopped through `URLSession` alone: `URLSessionTask.cancel()` on the session's delegate queue,
/// outside any Swift cancellation handler. The body is capped as it arrives.
enum HTTPTransfer {
    /// The body was larger than allowed; `detail` says how it showed (`Content-Length 9000000`).
    struct TooLarge: Error {
        var detail: String
    }

    /// Sends `request`, waiting at most `limit` for the whole answer.
    ///
    /// - Throws: `timedOut()` at the deadline, `CancellationError` when the calling task is
    ///   cancelled, ``TooLarge`` for a body over `maxBytes`, or the transport's error (`URLError`).
    static func data(
        for request: URLRequest, session: URLSession, maxBytes: Int, within limit: Duration,
        timedOut: @escaping @Sendable () -> any Error
    ) async throws -> (Data, URLResponse) {
        let control = Control(maxBytes: maxBytes, delegateQueue: session.delegateQueue)
        return try await Deadline.run(
            within: limit, stop: .call { control.abort() }, timedOut: timedOut
        ) {
            do {
                let (data, response) = try await session.data(for: request, delegate: control)
                // A body that arrived in one piece before the delegate saw it is refused once it is in.
                if let http = response as? HTTPURLResponse,
                    http.expectedContentLength > Int64(maxBytes) || data.count > maxBytes
                {
                    throw TooLarge(detail: "Content-Length \(http.expectedContentLength), received \(data.count) bytes")
                }
                return (data, response)
            } catch {
                if let exceeded = control.exceeded { throw TooLarge(detail: exceeded) }
                throw error
            }
        }
    }

    /// The transfer's task delegate: cancels a body larger than allowed (at the response when
    /// `Content-Length` says so, or as the bytes arrive), and stops the transfer when it is
    /// abandoned. It learns the `URLSessionTask` when the session creates it (Apple platforms) or at
    /// its first callback (FoundationNetworking reports no creation); a transfer abandoned before
    /// then is cancelled at that callback, or ends at the request's `timeoutInterval`.
    final class Control: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        // @unchecked: the mutable state lives in `state`, guarded by its lock.
        private struct State {
            var received = 0
            var exceeded: String?
            var task: URLSessionTask?
            var isAborted = false
        }

        private let maxBytes: Int
        private let state = Locked(State())
        /// The session's delegate queue, where FoundationNetworking completes a task.
        private let delegateQueue: OperationQueue

        init(maxBytes: Int, delegateQueue: OperationQueue) {
            self.maxBytes = maxBytes
            self.delegateQueue = delegateQueue
        }

        /// Why the transfer was cancelled, when it was for its size.
        var exceeded: String? { state.withLock { $0.exceeded } }

        /// Stops the transfer: its result is no longer wanted.
        func abort() {
            let task = state.withLock { state -> URLSessionTask? in
                state.isAborted = true
                return state.task
            }
            if let task { cancel(task) }
        }

        /// Records the session's task; `true` when the transfer was aborted (and the task is now cancelled).
        private func remember(_ task: URLSessionTask) -> Bool {
            let isAborted = state.withLock { state -> Bool in
                state.task = task
                return state.isAborted
            }
            if isAborted { cancel(task) }
            return isAborted
        }

        /// Cancels `task` from the session's delegate queue, asynchronously: never where the
        /// session's queue may be waiting for the caller (`URLSessionTask.cancel()` waits for it).
        /// FoundationNetworking completes a task in an operation on that queue, marking it completed
        /// and then removing it from the session's registry; a `cancel()` from another thread could
        /// pass its check before the mark and reach the registry after the removal, a fatal error
        /// (`TaskRegistry.swift`: "a task that in not in the registry", once in a 1,000-round soak).
        /// On the delegate queue it finds the task completed and does nothing, or runs before the
        /// completion.
        private func cancel(_ task: URLSessionTask) {
            delegateQueue.addOperation { task.cancel() }
        }

        func urlSession(_ session: URLSession, didCreateTask task: URLSessionTask) {
            _ = remember(task)
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            let expected = response.expectedContentLength
            let isAborted = remember(dataTask)
            guard !isAborted, expected > Int64(maxBytes) else {
                completionHandler(isAborted ? .cancel : .allow)
                return
            }
            state.withLock { $0.exceeded = "Content-Length \(expected)" }
            completionHandler(.cancel)
            cancel(dataTask)  // swift-corelibs-foundation does not act on `.cancel`
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let tooLarge = state.withLock { state -> Bool in
                state.task = dataTask
                state.received += data.count
                if state.received > maxBytes, state.exceeded == nil {
                    state.exceeded = "received \(state.received) bytes"
                }
                return state.exceeded != nil || state.isAborted
            }
            if tooLarge { cancel(dataTask) }
        }
    }
}
