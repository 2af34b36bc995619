@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CatalogServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The updater ends by its deadline whatever the transport does, can be cancelled, and a check that
/// was cancelled or timed out never holds up the next. (`NoHangSoakTests` runs the same promises
/// through hundreds of random rounds.) `make test` runs it beside the soak, in a process of its
/// own: it times calls.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct SnapshotUpdaterDeadlineTests {
    /// How late past its deadline a call may return on a busy machine.
    static let margin: Duration = .milliseconds(500)

    @Test func anUpdateOverATransportThatNeverAnswersAndBlocksWhenCancelledEndsAtItsDeadline() async throws {
        // Given a session whose transport never answers and blocks its queue for seconds when told
        // to stop (FoundationNetworking's can block forever)
        let fixture = try await PublishedSetFixture()
        try await withCleanup {
            try fixture.publish()
            let configuration = URLSessionConfiguration.ephemeral
            configuration.protocolClasses = [StuckURLProtocol.self]
            var settings = try fixture.configuration()
            settings.requestTimeout = 30
            settings.updateTimeout = 0.5
            let updater = SnapshotUpdater(configuration: settings, sessionConfiguration: configuration)
            for attempt in 1...2 {
                // When the app checks (twice: the first, stuck, check must not hold up the second)
                let started = ContinuousClock.now
                let error = await #expect(throws: SnapshotUpdateError.self) { try await updater.checkForUpdate() }
                let elapsed = ContinuousClock.now - started
                // Then each check ends at the update's deadline, and nothing was installed
                #expect(error?.code == .timedOut, "attempt \(attempt)")
                #expect(elapsed <= .milliseconds(500) + Self.margin, "attempt \(attempt) took \(elapsed)")
            }
            #expect(try fixture.launch().activeVersion == nil)
        } cleanup: {
            await fixture.stop()
        }
    }

    @Test func cancelUpdateEndsTheCheckForEveryCallerAtOnceAndTheNextCheckInstalls() async throws {
        try await withTwoCallersOnASlowCDN { fixture, updater, first, second in
            try await Task.sleep(for: .milliseconds(100))
            // When the app cancels the check
            let cancelled = ContinuousClock.now
            await updater.cancelUpdate()
            // Then both callers learn it at once, and nothing was installed
            for caller in [first, second] {
                let error = await #expect(throws: SnapshotUpdateError.self) { try await caller.value }
                #expect(error?.code == .cancelled)
            }
            #expect(ContinuousClock.now - cancelled <= Self.margin)
        }
    }

    @Test func aCallerWhoseTaskIsCancelledStopsWaitingAndTheLastOneCancelsTheCheck() async throws {
        try await withTwoCallersOnASlowCDN { fixture, updater, first, second in
            // When the first caller's task is cancelled
            first.cancel()
            // Then it stops waiting at once, while the check goes on for the second
            await #expect(throws: CancellationError.self) { try await first.value }
            try await Task.sleep(for: .milliseconds(100))
            // When the second is cancelled too, the check stops
            let cancelled = ContinuousClock.now
            second.cancel()
            await #expect(throws: CancellationError.self) { try await second.value }
            #expect(ContinuousClock.now - cancelled <= Self.margin)
        }
    }

    /// Given a CDN whose files take 30 s to start and two callers checking, runs `body`; then
    /// expects nothing installed, and the next check (files served at once) to install.
    func withTwoCallersOnASlowCDN(
        _ body: (
            PublishedSetFixture, SnapshotUpdater, Task<SnapshotUpdater.Outcome, any Error>,
            Task<SnapshotUpdater.Outcome, any Error>
        )
            async throws -> Void
    ) async throws {
        let fixture = try await PublishedSetFixture()
        try await withCleanup {
            try fixture.publish(fixture.changedCatalog())
            fixture.simulator.delayPublishedFiles(milliseconds: 30_000)
            let updater = try fixture.launch()
            let first = Task { try await updater.checkForUpdate() }
            let second = Task { try await updater.checkForUpdate() }
            await eventually { fixture.simulator.publishedStatistics().manifestRequests > 0 }
            try await body(fixture, updater, first, second)
            #expect(try fixture.launch().activeVersion == nil)
            fixture.simulator.delayPublishedFiles(milliseconds: 0)
            guard case .installed = try await updater.checkForUpdate() else {
                Issue.record("the check after a cancelled one did not install")
                return
            }
        } cleanup: {
            await fixture.stop()
        }
    }
}

/// A transport that never answers, and blocks for 30 s when told to stop.
final class StuckURLProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
    override func startLoading() {}
    override func stopLoading() { Thread.sleep(forTimeInterval: 30) }
}
