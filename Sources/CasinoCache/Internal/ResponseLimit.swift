@_spi(Internals) import CasinoCatalog
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Cancels a task whose body is larger than allowed: at the response when `Content-Length` says
/// so, or as the bytes arrive. A body that arrives in one piece before the delegate runs (or
/// where `URLSession` does not report to the task delegate) is refused once it is in.
final class ResponseLimit: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: the mutable state lives in `state`, guarded by its lock.
    private struct State {
        var received = 0
        var exceeded: String?
    }

    private let maxBytes: Int
    private let state = Locked(State())

    init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }

    /// Why the task was cancelled, when it was for its size.
    var exceeded: String? { state.withLock { $0.exceeded } }

    /// The body bytes received so far.
    var received: Int { state.withLock { $0.received } }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let expected = response.expectedContentLength
        guard expected > Int64(maxBytes) else {
            completionHandler(.allow)
            return
        }
        state.withLock { $0.exceeded = "Content-Length \(expected)" }
        completionHandler(.cancel)
        dataTask.cancel()  // swift-corelibs-foundation does not act on `.cancel`
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let tooLarge = state.withLock { state -> Bool in
            state.received += data.count
            if state.received > maxBytes, state.exceeded == nil { state.exceeded = "received \(state.received) bytes" }
            return state.exceeded != nil
        }
        if tooLarge { dataTask.cancel() }
    }
}
