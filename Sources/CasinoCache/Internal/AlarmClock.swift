@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation

/// The runtime's real-time alarms (``Deadline/schedule(after:on:_:)``): one thread of its own that
/// sleeps until the earliest alarm is due, then calls it.
///
/// A thread rather than a timer per alarm on a dispatch queue: every miss sets an alarm, and a
/// dispatch timer woke the dispatch manager's thread each time (a sixth of a miss on Linux). Here
/// setting an alarm is a lock and a heap insert; the thread is woken only when the new alarm is due
/// before the one it sleeps for. It fires even when every thread of Swift's cooperative pool is busy
/// or stuck. A cancelled alarm stays in the heap until it is due, then is dropped unfired, so
/// cancelling is one flag. An alarm's action runs on this thread and must not block.
final class AlarmClock: @unchecked Sendable {
    // @unchecked: `alarms`, `nextNumber` and `sleepsUntil` are only touched with `condition` locked.

    /// The clock every real-time deadline uses.
    static let shared = AlarmClock()

    private struct Alarm {
        let due: ContinuousClock.Instant
        /// Breaks ties in the order alarms were set.
        let number: UInt64
        let fire: @Sendable () -> Void

        func isBefore(_ other: Alarm) -> Bool {
            due < other.due || (due == other.due && number < other.number)
        }
    }

    private let condition = NSCondition()
    /// A binary min-heap by due time.
    private var alarms: [Alarm] = []
    private var nextNumber: UInt64 = 0
    /// When the thread wakes next: `nil` while it waits for an alarm to be set.
    private var sleepsUntil: ContinuousClock.Instant?
    private var isThreadStarted = false

    /// Calls `fire` on the alarm thread once `delay` has passed, unless the returned closure is
    /// called first.
    @discardableResult
    func schedule(after delay: Duration, _ fire: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let isCancelled = Locked(false)
        add(after: delay) { if !isCancelled.withLock({ $0 }) { fire() } }
        return { isCancelled.withLock { $0 = true } }
    }

    private func add(after delay: Duration, _ fire: @escaping @Sendable () -> Void) {
        let due = ContinuousClock.now.advanced(by: min(max(delay, .zero), .seconds(366 * 86_400)))
        condition.lock()
        defer { condition.unlock() }
        if !isThreadStarted {
            isThreadStarted = true
            // The thread holds the clock: it lives as long as the process (the shared clock does anyway).
            let thread = Thread { self.run() }
            thread.name = "CasinoCache alarms"
            thread.start()
        }
        nextNumber &+= 1
        push(Alarm(due: due, number: nextNumber, fire: fire))
        if sleepsUntil.map({ due < $0 }) ?? true { condition.signal() }
    }

    /// The thread's loop: fires what is due, then sleeps until the next alarm.
    private func run() {
        condition.lock()
        while true {
            let now = ContinuousClock.now
            if let first = alarms.first, first.due <= now {
                let alarm = popFirst()
                condition.unlock()
                alarm.fire()
                condition.lock()
                continue
            }
            sleepsUntil = alarms.first?.due
            if let due = sleepsUntil {
                _ = condition.wait(until: Date(timeIntervalSinceNow: (due - now).timeInterval))
            } else {
                condition.wait()
            }
        }
    }

    private func push(_ alarm: Alarm) {
        alarms.append(alarm)
        var child = alarms.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard alarms[child].isBefore(alarms[parent]) else { break }
            alarms.swapAt(child, parent)
            child = parent
        }
    }

    private func popFirst() -> Alarm {
        alarms.swapAt(0, alarms.count - 1)
        let first = alarms.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < alarms.count, alarms[left].isBefore(alarms[smallest]) { smallest = left }
            if right < alarms.count, alarms[right].isBefore(alarms[smallest]) { smallest = right }
            guard smallest != parent else { return first }
            alarms.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
