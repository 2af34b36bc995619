@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation
import Logging

/// One call for the few seconds iOS grants in the background (`BGAppRefreshTask`): bulk validation
/// and the over-the-air check, together, within a budget.
extension CatalogCache {
    /// How long past its budget ``refreshInBackground(checking:within:)`` waits for a part that does
    /// not stop when told to: a hang guard (2 seconds).
    public static let backgroundGrace: Duration = .seconds(2)

    /// Validates what is cached and installs what changed (``synchronize()``), and meanwhile checks
    /// for an over-the-air snapshot and applies its withdrawal list
    /// (``checkForSnapshotUpdate(with:)``), both within `budget`. When the budget runs out, or the
    /// calling task is cancelled (a task's expiration handler), both stop at once: the request in
    /// flight is abandoned and nothing half-done becomes visible (a verdict already acted on stays,
    /// written; a generation not yet switched to is never installed).
    ///
    /// A call while one runs joins it (its updater and budget) and gets its report; cancelling any
    /// caller cuts the run short for all.
    ///
    /// ```swift
    /// BGTaskScheduler.shared.register(forTaskWithIdentifier: "com.example.lobby.refresh", using: nil) { task in
    ///     let work = Task {
    ///         let report = await CasinoServices.cache.refreshInBackground(checking: CasinoServices.updater)
    ///         task.setTaskCompleted(success: !report.isCutShort)
    ///     }
    ///     task.expirationHandler = { work.cancel() }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - updater: The app's ``SnapshotUpdater``, or `nil` to validate only.
    ///   - budget: The longest the call takes (and the hang guard's two seconds): 25 seconds by
    ///     default, within the 30 iOS grants a background refresh. At most a day.
    /// - Returns: What each part did, whether anything changed, and whether it was cut short.
    public func refreshInBackground(
        checking updater: SnapshotUpdater? = nil, within budget: Duration = .seconds(25)
    ) async -> BackgroundRefreshReport {
        let shared = backgroundRefresh.withLock { current -> BackgroundRefreshRun.Shared in
            if let current { return current }
            let run = BackgroundRefreshRun()
            let task = Task { await self.performBackgroundRefresh(run, checking: updater, within: budget) }
            current = BackgroundRefreshRun.Shared(run: run, task: task)
            return current!
        }
        return await withTaskCancellationHandler {
            await shared.task.value
        } onCancel: {
            shared.run.cutShort()
        }
    }

    private func performBackgroundRefresh(
        _ run: BackgroundRefreshRun, checking updater: SnapshotUpdater?, within budget: Duration
    ) async -> BackgroundRefreshReport {
        let budget = min(max(budget, .zero), .seconds(86_400))
        let started = clock.now
        let sequenceBefore = withdrawalSequence
        let synchronizing = Task { await self.synchronize() }
        run.track { synchronizing.cancel() }
        let checking = updater.map { updater in Task { try await self.checkForSnapshotUpdate(with: updater) } }
        if let checking { run.track { checking.cancel() } }
        let alarm = Deadline.schedule(after: budget, on: clock) { run.cutShort() }
        defer {
            alarm.cancel()
            backgroundRefresh.withLock { if $0?.run === run { $0 = nil } }
        }

        // Both parts stop at once when cancelled; the guard is for one that would not.
        let guardLimit = budget + Self.backgroundGrace
        func remaining() -> Duration {
            max(guardLimit - .milliseconds(Int64(clock.now.timeIntervalSince(started) * 1000)), .zero)
        }
        let stuck: @Sendable () -> any Error = { CancellationError() }
        var report = BackgroundRefreshReport()
        do {
            report.synchronization = try await Deadline.run(within: remaining(), on: clock, timedOut: stuck) {
                await synchronizing.value
            }
        } catch {
            report.synchronization.isCancelled = true
        }
        if let checking {
            do {
                report.snapshotUpdate = try await Deadline.run(
                    within: remaining(), on: clock, timedOut: stuck
                ) { try await checking.value }
            } catch {
                report.snapshotError = error
            }
        }
        report.withdrawalsChanged = withdrawalSequence != sequenceBefore
        report.isCutShort =
            report.synchronization.isCancelled || (report.snapshotError != nil && run.isCutShort)
        logger.info(
            "background refresh",
            metadata: [
                "cache.changed": "\(report.hasChanges)", "cache.cutShort": "\(report.isCutShort)",
                "cache.synchronization": "\(report.synchronization)",
                "cache.snapshot":
                    "\(report.snapshotUpdate.map { "\($0)" } ?? report.snapshotError.map { "\($0)" } ?? "not checked")",
            ])
        return report
    }
}
