#if canImport(Darwin)
public import Darwin
#elseif canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
public import Musl
#endif

/// A value guarded by an OS lock: `os_unfair_lock` on Apple platforms, `pthread_mutex_t` elsewhere.
/// The app-side modules' one locked box (the tools use swift-nio's `NIOLockedValueBox`); inlinable
/// so the memory tier's hit path is specialized across the module boundary. `public` in a module
/// that is no product, not `package`: the compiler left a `package` inlinable `withLock` generic in
/// the cache's module (a call through metadata on every hit), as a public one is not.
///
/// `Synchronization.Mutex` needs iOS 18/macOS 15 and the runtime must run on iOS 16/macOS 13, so
/// this is the same idea built on the OS primitive (as swift-nio's `NIOLock`). It sits on the
/// memory tier's hot path, where an actor hop costs about twice a locked dictionary read.
///
/// The state lives behind a pointer rather than in a stored property, so an access is not checked
/// for exclusivity at run time (the lock already makes it exclusive); on the cache's hit path that
/// check cost as much as the lock.
public final class Locked<State>: @unchecked Sendable {
    // @unchecked: every access to `state` happens inside `withLock`, under `lock`.
    @usableFromInline let state: UnsafeMutablePointer<State>
    #if canImport(Darwin)
    @usableFromInline let lock: UnsafeMutablePointer<os_unfair_lock>
    #else
    @usableFromInline let lock: UnsafeMutablePointer<pthread_mutex_t>
    #endif

    public init(_ state: State) {
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
    @inlinable @inline(__always)
    public func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
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
