@_spi(CatalogTools) import CasinoCacheTesting
import CatalogSupport
import Foundation
import Testing

@testable import CasinoCache

/// The real-time alarms every deadline of the runtime rests on: each fires once, in due order, and
/// an alarm due before the one the thread sleeps for wakes it. Every wait below is a hang detector
/// far above the delays set.
@Suite(.timeLimit(.minutes(2)))
struct AlarmClockTests {
    @Test func alarmsFireOnceEachInTheOrderTheyAreDue() async {
        // Given three alarms set out of order
        let clock = AlarmClock()
        let fired = Locked<[Int]>([])
        for (name, delay) in [(3, 90), (1, 30), (2, 60)] {
            clock.schedule(after: .milliseconds(delay)) { fired.withLock { $0.append(name) } }
        }
        // When they are all due
        await eventually(timeout: .seconds(30)) { fired.withLock { $0.count } == 3 }
        try? await Task.sleep(for: .milliseconds(50))
        // Then each fired once, earliest first
        #expect(fired.withLock { $0 } == [1, 2, 3])
    }

    @Test func anAlarmDueBeforeTheOneTheThreadSleepsForFiresOnTime() async {
        // Given a thread asleep for an alarm an hour away
        let clock = AlarmClock()
        let late = Locked(false)
        clock.schedule(after: .seconds(3600)) { late.withLock { $0 = true } }
        try? await Task.sleep(for: .milliseconds(20))
        // When an alarm 10 ms away is set
        let soon = Locked(false)
        let start = ContinuousClock.now
        clock.schedule(after: .milliseconds(10)) { soon.withLock { $0 = true } }
        await eventually(timeout: .seconds(30)) { soon.withLock { $0 } }
        // Then it fires without waiting for the hour, and the hour's alarm has not fired
        #expect(soon.withLock { $0 })
        #expect(ContinuousClock.now - start < .seconds(20))
        #expect(!late.withLock { $0 })
    }

    @Test func aRandomizedLoopOfAlarmsFromManyTasksFiresEachDueOneOnceAndNoCancelledOne() async {
        // Given hundreds of alarms set from eight tasks at once, a random third of them cancelled
        // before they are due (they are set a minute away; the others within 30 ms)
        var generator = SplitMix64(seed: 42)
        let plans = (0..<400).map { _ in
            (
                cancel: Int.random(in: 0..<3, using: &generator) == 0,
                delay: Int.random(in: 0...30, using: &generator)
            )
        }
        let fires = Locked([Int](repeating: 0, count: plans.count))
        await withTaskGroup(of: Void.self) { group in
            for lane in 0..<8 {
                group.addTask {
                    for index in stride(from: lane, to: plans.count, by: 8) {
                        let plan = plans[index]
                        let alarm = Deadline.schedule(after: plan.cancel ? .seconds(60) : .milliseconds(plan.delay)) {
                            fires.withLock { $0[index] += 1 }
                        }
                        if plan.cancel { alarm.cancel() }
                    }
                }
            }
        }
        // When every alarm not cancelled is due
        let expected = plans.filter { !$0.cancel }.count
        await eventually(timeout: .seconds(60)) { fires.withLock { $0.reduce(0, +) } >= expected }
        try? await Task.sleep(for: .milliseconds(50))
        // Then each of them fired exactly once, and no cancelled one fired
        let counts = fires.withLock { $0 }
        for (index, plan) in plans.enumerated() {
            #expect(counts[index] == (plan.cancel ? 0 : 1), "alarm \(index) (cancelled: \(plan.cancel))")
        }
    }
}
