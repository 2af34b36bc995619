public import CasinoCatalog

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
}

/// What an upstream answered.
public enum UpstreamResponse<Value: Sendable>: Sendable {
    /// New content, with its validator if the upstream gave one.
    case modified(Value, etag: String?)
    /// The cached copy is still current (`304 Not Modified`): keep its payload, renew its age.
    case notModified
}
