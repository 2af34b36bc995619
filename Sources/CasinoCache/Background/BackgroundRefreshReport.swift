/// What one ``CatalogCache/refreshInBackground(checking:within:)`` did.
public struct BackgroundRefreshReport: Sendable, CustomStringConvertible {
    /// What bulk validation did; ``SynchronizationReport/isCancelled`` when it was cut short.
    public var synchronization = SynchronizationReport()
    /// What the over-the-air check did, or `nil` when there was no updater or it did not finish.
    public var snapshotUpdate: SnapshotUpdater.Outcome?
    /// Why the over-the-air check did not finish (``SnapshotUpdateError``: offline, its own
    /// timeout; `CancellationError`: the budget or the caller), or `nil`.
    public var snapshotError: (any Error)?
    /// The withdrawals changed: a list came with the validation or the over-the-air set.
    public var withdrawalsChanged = false
    /// The budget ran out, or a caller was cancelled, before both parts ended: what they had done
    /// stays, nothing half-done is visible, and the next call does the rest.
    public var isCutShort = false

    public init() {}

    /// Whether anything the app shows or will show changed: content installed, refetched or
    /// removed, withdrawals applied, or a snapshot generation installed for the next launch.
    public var hasChanges: Bool {
        let sync = synchronization
        if case .installed? = snapshotUpdate { return true }
        return sync.installed > 0 || sync.refetched > sync.failedFetches || sync.removed > 0 || withdrawalsChanged
    }

    public var description: String {
        "synchronization: \(synchronization); snapshot: "
            + (snapshotUpdate.map { "\($0)" } ?? snapshotError.map { "not checked (\($0))" } ?? "not checked")
            + (isCutShort ? "; cut short" : "") + (hasChanges ? "; changed" : "; nothing changed")
    }
}
