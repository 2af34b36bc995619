@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
import CatalogSupport
import Foundation
import Testing

/// The test clock keeps the cache's deadlines as the system clock does, on its own time: an alarm
/// fires in `advance(by:)` once due, in due order, never before and never once cancelled.
@Suite(.timeLimit(.minutes(1)))
struct ManualClockTests {
    @Test func alarmsFireInAdvanceOnceDueInTheOrderTheyAreDue() {
        // Given three alarms and one cancelled
        let clock = ManualClock()
        let fired = Locked<[Int]>([])
        for (name, seconds) in [(3, 30), (1, 10), (2, 20)] {
            _ = clock.alarm(after: .seconds(seconds)) { fired.withLock { $0.append(name) } }
        }
        let cancel = clock.alarm(after: .seconds(5)) { fired.withLock { $0.append(0) } }
        cancel()
        #expect(clock.sleeperCount == 3)
        // When time moves short of the first, then past all
        clock.advance(by: .seconds(9))
        #expect(fired.withLock { $0 }.isEmpty)
        clock.advance(by: .seconds(21))
        // Then each fired once, in order, before advance returned, and the cancelled one never
        #expect(fired.withLock { $0 } == [1, 2, 3])
        #expect(clock.sleeperCount == 0)
        clock.advance(by: .seconds(60))
        #expect(fired.withLock { $0 } == [1, 2, 3])
    }

    @Test func anAlarmAlreadyDueFiresWithoutAnAdvance() async {
        // Given an alarm of no delay
        let clock = ManualClock()
        let fired = Locked(false)
        _ = clock.alarm(after: .zero) { fired.withLock { $0 = true } }
        // Then it fires at once, as a sleep that is due returns at once
        await eventually(timeout: .seconds(30)) { fired.withLock { $0 } }
        #expect(fired.withLock { $0 })
    }
}
