/// The version of the normalized schema shared by the pipeline and the runtime.
///
/// Bump it whenever a change to ``Game``, ``Category``, ``GamesPage``, `Snapshot` or
/// `Manifest` would make an older reader misread a newer file (or the reverse). Readers
/// reject snapshots and manifests whose `schemaVersion` differs from this value.
public enum CatalogSchema {
    /// The current schema version: `1`.
    public static let version = 1
}
