import CatalogSupport
import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The runtime's HTTP client: every request the HTTP upstream and the over-the-air updater send
/// goes through one, which returns by its deadline whatever the transport does and never holds more
/// of a body than its cap.
///
/// It owns a `URLSession` made from the caller's configuration, with itself as the session's
/// delegate, and reads each body as a plain data task's `urlSession(_:dataTask:didReceive:)`
/// deliveries: decoded bytes (after any `Content-Encoding`), counted as they arrive; the first
/// delivery past the cap cancels the task, and what arrives after that is dropped unread. This is the
/// one API that stops a transfer on both platforms. FoundationNetworking has no `bytes(for:)`, calls a
/// task's own delegate only for the `data(for:delegate:)` family, and that family concatenates the
/// whole body in memory whatever its delegate does (an endless body grew to gigabytes before the
/// delegate's cancellation, queued behind the deliveries, ran). Apple platforms take the same path.
///
/// A `Content-Length` refuses a body before it arrives only when it counts what the cap counts: not
/// beside a `Content-Encoding` (nginx's `gzip_static` announces the compressed length of a file whose
/// decoded bytes are what was signed).
///
/// The caller waits through ``Deadline``; a transfer it stops waiting for (the deadline, its own
/// cancellation) is cancelled through `URLSession` alone, on the session's delegate queue, never from
/// a Swift cancellation handler.
final class HTTPTransfer: @unchecked Sendable {
    // @unchecked: every property is immutable and thread-safe; `URLSession` is not marked `Sendable` in
    // every SDK the runtime builds with.
    /// The body was larger than allowed; `detail` says how it showed (`Content-Length 9000000`).
    struct TooLarge: Error {
        var detail: String
    }

    private let session: URLSession
    private let transfers: Transfers
    /// Where tasks are created and started: FoundationNetworking does both with a `sync` on the
    /// session's work queue, which a transfer in progress keeps busy, and a thread of Swift's
    /// cooperative pool must not wait for that.
    private let starter = DispatchQueue(label: "CasinoCache.HTTPTransfer.start")

    /// Makes a client whose requests go out with `configuration` (its headers, cookies, proxies,
    /// timeouts and `URLProtocol` classes); its `URLCache` is never consulted.
    init(configuration: URLSessionConfiguration) {
        let configuration = configuration.copy() as! URLSessionConfiguration  // a class: not the caller's to change
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        transfers = Transfers()
        let queue = transfers.queue
        session = URLSession(configuration: configuration, delegate: transfers, delegateQueue: queue)
    }

    deinit {
        // The session keeps its delegate until it is invalidated; transfers still running end first.
        session.finishTasksAndInvalidate()
    }

    /// Sends `request`, waiting at most `limit` for the whole answer.
    ///
    /// - Throws: `timedOut()` at the deadline, `CancellationError` when the calling task is
    ///   cancelled, ``TooLarge`` for a body over `maxBytes`, or the transport's error (`URLError`).
    func data(
        for request: URLRequest, maxBytes: Int, within limit: Duration,
        timedOut: @escaping @Sendable () -> any Error
    ) async throws -> (Data, URLResponse) {
        let transfer = Transfer(maxBytes: maxBytes, queue: transfers.queue)
        return try await Deadline.run(within: limit, stop: .call { transfer.abort() }, timedOut: timedOut) {
            try await withCheckedThrowingContinuation { continuation in
                // `self` is held until the task exists: the deinit's invalidation must not come first
                // (FoundationNetworking traps on a task made in an invalidated session).
                self.starter.async {
                    let task = self.session.dataTask(with: request)
                    guard transfer.start(task, continuation: continuation) else { return }
                    self.transfers.add(transfer, for: task)
                    task.resume()
                }
            }
        }
    }

    /// The session's delegate: hands each task's events to its ``Transfer``.
    private final class Transfers: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        // @unchecked: `queue` is thread-safe (`OperationQueue` is not marked `Sendable` in every SDK);
        // `running` is under its lock.
        /// The session's delegate queue, serial.
        let queue = OperationQueue()
        /// Under ``queue``, which keeps it only `unowned` (so it lives here, as long as the session
        /// keeps its delegate): a serial dispatch queue of its own gets a thread even when every thread
        /// of the width-limited global pool is busy, so the deliveries that enforce the cap (and the
        /// completions) are not starved by the app's other work.
        private let delivery = DispatchQueue(label: "CasinoCache.HTTPTransfer.delivery")
        private let running = Locked<[Int: Transfer]>([:])

        override init() {
            queue.maxConcurrentOperationCount = 1
            queue.underlyingQueue = delivery
        }

        func add(_ transfer: Transfer, for task: URLSessionTask) {
            running.withLock { $0[task.taskIdentifier] = transfer }
        }

        private func transfer(_ task: URLSessionTask) -> Transfer? {
            running.withLock { $0[task.taskIdentifier] }
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            guard let transfer = transfer(dataTask) else { return completionHandler(.cancel) }
            let ending = transfer.ending(for: response)
            completionHandler(ending == nil ? .allow : .cancel)
            // After the handler: the session waits for it before it acts on a cancellation.
            if let ending { transfer.finish(dataTask, ending) }
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            transfer(dataTask)?.received(data, from: dataTask)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let transfer = running.withLock { $0.removeValue(forKey: task.taskIdentifier) }
            transfer?.complete(error: error)
        }
    }

    /// One request's state: its body so far, and the caller's continuation, resumed once.
    private final class Transfer: @unchecked Sendable {
        // @unchecked: the mutable state is under `state`'s lock; `queue` is a thread-safe `OperationQueue`.
        private struct State {
            var continuation: CheckedContinuation<(Data, URLResponse), any Error>?
            var task: URLSessionTask?
            var response: URLResponse?
            var body = Data()
            var received = 0
            /// The caller stopped waiting (``abort()``).
            var isAborted = false
            /// `URLSessionTask.cancel()` was called (once is enough; each call waits for the session's work queue).
            var isCancelled = false
        }

        private let maxBytes: Int
        private let queue: OperationQueue
        private let state = Locked(State())

        init(maxBytes: Int, queue: OperationQueue) {
            self.maxBytes = maxBytes
            self.queue = queue
        }

        /// Takes the caller's continuation; `false` (the continuation resumed) when the transfer was
        /// abandoned before it started, and `task` is not to be resumed.
        func start(
            _ task: URLSessionTask, continuation: CheckedContinuation<(Data, URLResponse), any Error>
        ) -> Bool {
            let isAborted = state.withLock { state -> Bool in
                guard !state.isAborted else { return true }
                state.task = task
                state.continuation = continuation
                return false
            }
            if isAborted { continuation.resume(throwing: CancellationError()) }
            return !isAborted
        }

        /// The response arrived: `nil` to go on, or how the transfer ends (too large, or abandoned).
        func ending(for response: URLResponse) -> Result<(Data, URLResponse), any Error>? {
            let expected = response.expectedContentLength
            let encoding = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding")
            let isIdentity = encoding.map { $0.trimmingCharacters(in: .whitespaces).lowercased() == "identity" } ?? true
            return state.withLock { state -> Result<(Data, URLResponse), any Error>? in
                guard !state.isAborted, state.continuation != nil else { return .failure(CancellationError()) }
                guard !isIdentity || expected <= Int64(maxBytes) else {
                    return .failure(TooLarge(detail: "Content-Length \(expected)"))
                }
                state.response = response
                return nil
            }
        }

        /// A piece of the decoded body arrived (on the delegate queue). The first one past the cap, or
        /// after the caller stopped waiting, cancels the task there and then: a cancellation queued
        /// behind deliveries that arrive faster than they are taken would never run.
        func received(_ data: Data, from task: URLSessionTask) {
            let ending = state.withLock { state -> Result<(Data, URLResponse), any Error>? in
                guard !state.isAborted, state.continuation != nil else { return .failure(CancellationError()) }
                state.received += data.count
                guard state.received <= maxBytes else {
                    return .failure(TooLarge(detail: "more than \(maxBytes) bytes received"))
                }
                state.body.append(data)
                return nil
            }
            if let ending { finish(task, ending) }
        }

        /// The task ended (on the delegate queue).
        func complete(error: (any Error)?) {
            let (continuation, result) = state.withLock { state in
                defer { state.continuation = nil }
                let result: Result<(Data, URLResponse), any Error>
                if let error {
                    result = .failure(error)
                } else if let response = state.response {
                    result = .success((state.body, response))
                } else {
                    result = .failure(URLError(.badServerResponse))
                }
                state.body = Data()
                return (state.continuation, result)
            }
            continuation?.resume(with: result)
        }

        /// Stops the transfer: its result is no longer wanted. Its task is cancelled on the session's
        /// delegate queue: FoundationNetworking completes a task there, marking it completed and then
        /// removing it from the session's registry, and a `cancel()` from another thread could pass its
        /// check before the mark and reach the registry after the removal (a fatal error,
        /// `TaskRegistry.swift`, seen once in a 1,000-round soak).
        func abort() {
            let task = state.withLock { state -> URLSessionTask? in
                state.isAborted = true
                return state.task
            }
            guard let task else { return }
            queue.addOperation { self.finish(task, .failure(CancellationError())) }
        }

        /// Resumes the caller with `result` and cancels `task`, each once; called on the delegate
        /// queue, where cancelling is safe (see ``abort()``). Later deliveries are dropped.
        func finish(_ task: URLSessionTask, _ result: Result<(Data, URLResponse), any Error>) {
            let (continuation, isCancelled) = state.withLock { state in
                defer {
                    state.continuation = nil
                    state.body = Data()
                    state.isCancelled = true
                }
                return (state.continuation, state.isCancelled)
            }
            continuation?.resume(with: result)
            if !isCancelled { task.cancel() }
        }
    }
}
