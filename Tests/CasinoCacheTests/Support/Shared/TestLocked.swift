import Foundation

/// A value behind an `NSLock`, for the helpers both packages' cache tests compile: the tools cannot
/// see the root's `package` `Locked`, and the root tests do not depend on swift-nio.
final class TestLocked<State>: @unchecked Sendable {
    // @unchecked: `state` is read and written only inside `withLock`, under `lock`.
    private let lock = NSLock()
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
