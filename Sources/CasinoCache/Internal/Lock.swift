#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value guarded by an OS lock: `os_unfair_lock` on Apple platforms, `pthread_mutex_t` elsewhere.
///
/// `Synchronization.Mutex` needs iOS 18/macOS 15 and the runtime must run on iOS 16/macOS 13, so
/// this is the same idea built on the OS primitive (as swift-nio's `NIOLock`). It sits on the
/// memory tier's hot path, where an actor hop would cost more than the lookup (BASELINES.md:
/// actor get 130–175 ns, locked dictionary get ~70 ns).
///
/// The state lives behind a pointer rather than in a stored property, so an access is not checked
/// for exclusivity at run time (the lock already makes it exclusive); on the cache's hit path that
/// check cost as much as the lock.
final class Locked<State>: @unchecked Sendable {
    // @unchecked: every access to `state` happens inside `withLock`, under `lock`.
    private let state: UnsafeMutablePointer<State>
    #if canImport(Darwin)
    private let lock: UnsafeMutablePointer<os_unfair_lock>
    #else
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    #endif

    init(_ state: State) {
        self.state = .allocate(capacity: 1)
        self.state.initialize(to: state)
        lock = .allocate(capacity: 1)
        #if canImport(Darwin)
        lock.initialize(to: os_unfair_lock())
        #else
        lock.initialize(to: pthread_mutex_t())
        pthread_mutex_init(lock, nil)
        #endif
    }

    deinit {
        #if !canImport(Darwin)
        pthread_mutex_destroy(lock)
        #endif
        lock.deinitialize(count: 1)
        lock.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Runs `body` with exclusive access to the state.
    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        #if canImport(Darwin)
        os_unfair_lock_lock(lock)
        defer { os_unfair_lock_unlock(lock) }
        #else
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        #endif
        return try body(&state.pointee)
    }
}
