@_spi(CatalogTools) public import CasinoCatalog

/// Where the cache gets fresh content: ``ProviderHTTPUpstream`` for the provider's API, or the
/// app's own client.
///
/// Content of a ``CacheScope/user(_:)`` key is fetched through the same methods: the app's
/// upstream knows who is signed in.
///
/// The cache decorates it: it calls the upstream only on a miss, for a background refresh, or
/// for pages beyond what it caches, and never twice at once for one key.
///
/// ```swift
/// struct MyUpstream: CatalogUpstream {
///     func categories(edition: Edition, etag: String?) async throws -> UpstreamResponse<CategoryList> { … }
///     func gamesPage(edition: Edition, categoryId: String, offset: Int, limit: Int, etag: String?) async throws
///         -> UpstreamResponse<GamesPage> { … }
/// }
/// ```
public protocol CatalogUpstream: Sendable {
    /// An edition's categories.
    ///
    /// - Parameters:
    ///   - edition: The language and platform.
    ///   - etag: The validator of the cached copy; answer ``UpstreamResponse/notModified`` when it
    ///     is still current.
    func categories(edition: Edition, etag: String?) async throws -> UpstreamResponse<CategoryList>

    /// One page of a category's games: the provider's positions `offset ..< offset + limit`.
    func gamesPage(
        edition: Edition, categoryId: String, offset: Int, limit: Int, etag: String?
    ) async throws -> UpstreamResponse<GamesPage>

    /// Bulk validation, an optional capability: for each key, whether the content with this hash
    /// (``CatalogContent/contentHash()``) is still current, in one
    /// call, with changed content inline within `inlineBytes`. `nil` (the default implementation)
    /// means the upstream cannot; ``CatalogCache/synchronize()`` then refreshes key by key.
    ///
    /// - Parameters:
    ///   - contentHashes: The keys held and their content hashes.
    ///   - pageSize: The page size the held pages were cut with.
    ///   - inlineBytes: How many bytes of changed content the answer may carry.
    /// - Returns: A verdict per key the upstream answered for, or `nil` when not supported.
    func validate(
        contentHashes: [SnapshotKey: String], pageSize: Int, inlineBytes: Int
    ) async throws -> [SnapshotKey: UpstreamVerdict]?

    /// Bulk validation that also asks for the provider's withdrawals: as
    /// ``validate(contentHashes:pageSize:inlineBytes:)``, and the provider's complete
    /// ``CasinoCatalog/WithdrawalList`` when its sequence is greater than `withdrawalSequence` (the
    /// list the cache holds; 0: none). The default implementation asks for verdicts only.
    func validate(
        contentHashes: [SnapshotKey: String], pageSize: Int, inlineBytes: Int, withdrawalSequence: Int
    ) async throws -> UpstreamValidation?
}

extension CatalogUpstream {
    /// Not supported: `nil`.
    public func validate(
        contentHashes: [SnapshotKey: String], pageSize: Int, inlineBytes: Int
    ) async throws -> [SnapshotKey: UpstreamVerdict]? {
        nil
    }

    /// The verdicts of ``validate(contentHashes:pageSize:inlineBytes:)``, no withdrawals.
    public func validate(
        contentHashes: [SnapshotKey: String], pageSize: Int, inlineBytes: Int, withdrawalSequence: Int
    ) async throws -> UpstreamValidation? {
        try await validate(contentHashes: contentHashes, pageSize: pageSize, inlineBytes: inlineBytes).map {
            UpstreamValidation(verdicts: $0)
        }
    }
}

/// What an upstream's bulk validation answered: a verdict per key, and the provider's withdrawal
/// list when it is newer than the one the cache holds.
public struct UpstreamValidation: Sendable, Hashable {
    public var verdicts: [SnapshotKey: UpstreamVerdict]
    public var withdrawals: WithdrawalList?

    public init(verdicts: [SnapshotKey: UpstreamVerdict], withdrawals: WithdrawalList? = nil) {
        self.verdicts = verdicts
        self.withdrawals = withdrawals
    }
}

/// What an upstream's bulk validation says about one key.
public enum UpstreamVerdict: Sendable, Hashable {
    /// The content held is current; `etag` is the validator of its per-key request, if known.
    case current(etag: String?)
    /// The content changed: the new content when it came inline (else the cache fetches it).
    case changed(CatalogContent?, etag: String?)
    /// The provider no longer has it.
    case removed
    /// Not a key the upstream serves.
    case unknown
}

/// What an upstream answered.
public enum UpstreamResponse<Value: Sendable>: Sendable {
    /// New content, with its validator if the upstream gave one.
    case modified(Value, etag: String?)
    /// The cached copy is still current (`304 Not Modified`): keep its payload, renew its age.
    case notModified
}
