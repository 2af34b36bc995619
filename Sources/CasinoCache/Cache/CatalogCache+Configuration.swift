@_spi(CatalogTools) public import CasinoCatalog
import Foundation
@_spi(CatalogTools) public import ProviderAPI

extension CatalogCache {
    /// How long content stays fresh, how much is kept, and how failed refreshes are retried.
    ///
    /// ```swift
    /// var configuration = CatalogCache.Configuration.default
    /// configuration.categoriesTTL = .seconds(24 * 3600)
    /// ```
    public struct Configuration: Sendable, Hashable {
        /// How long an edition's categories stay fresh: 6 hours by default.
        public var categoriesTTL: Duration = .seconds(6 * 3600)
        /// How long a page of games stays fresh: 6 hours by default.
        public var gamesPageTTL: Duration = .seconds(6 * 3600)
        /// Games per page, the `limit` asked of the upstream. `nil` by default: the page size the
        /// bundled snapshot was cut with (its manifest's `pageSize`), or 10 without a bundle, so
        /// live pages replace bundled ones exactly. Pages are addressed by offset; this is never
        /// used to turn an offset into a page number.
        public var pageSize: Int?
        /// The Data Protection class of the disk tier's and the player queue's files on Apple
        /// platforms: ``CacheFileProtection/completeUntilFirstUserAuthentication`` by default, so a
        /// background refresh after a reboot still reads and writes. Ignored off Apple platforms.
        /// A file the locked device will not let the app read is a miss, never deleted.
        // Declared after `pageSize` so its byte sits in that optional's padding: the configuration,
        // stored in every cache before the fields a hit reads, keeps its size.
        public var fileProtection: CacheFileProtection = .default
        /// Pages cached per category, from offset 0: 5 by default. Later pages always come from
        /// the upstream and are not stored.
        public var maxCachedPagesPerCategory = 5
        /// The app's cache version ("buster"): disk entries written under another value are ignored
        /// and removed. 1 by default.
        public var cacheVersion = 1
        /// How long one upstream call may take before it counts as failed: 30 seconds by default.
        public var upstreamTimeout: Duration = .seconds(30)
        /// How failed background refreshes are retried.
        public var retry: RetryPolicy = .default
        /// The most entries kept in memory: 500 by default.
        public var memoryCountLimit = 500
        /// The most approximate bytes kept in memory: 8 MiB by default.
        public var memoryCostLimit = 8 << 20
        /// The most bytes kept on disk: 50 MiB by default.
        public var diskSizeLimit = 50 << 20
        /// The snapshot contract's caps for the bundled snapshot: `SnapshotLimits.default` by
        /// default, as in the pipeline. Raise them only together with the pipeline configuration's
        /// `snapshotLimits`.
        public var bundleLimits: SnapshotLimits = .default
        /// Keys per bulk validation request (``CatalogCache/synchronize()``): 500 by default, kept
        /// within 1...1000 (the endpoint's cap); more keys than this make more requests.
        @_spi(CatalogTools) public var validationBatchSize = 500
        /// Bytes of changed content a bulk validation answer may carry inline: 256 KiB by default
        /// (dozens of pages); what does not fit is fetched key by key. 0 asks for none.
        @_spi(CatalogTools) public var validationInlineBytes = 256 << 10
        /// The longest ``CatalogCache/synchronize()`` waits for the disk: for each read of the
        /// entries it holds, and for the writes it caused: 10 seconds by default. Real time, on the
        /// alarm thread: a file system that hangs holds the disk's work, not the caller, and the
        /// entries not read are left to the usual refresh.
        @_spi(CatalogTools) public var diskWaitLimit: Duration = .seconds(10)
        /// How long stale and bundled answers gather before they are validated together, in one
        /// bulk request instead of one refresh each: `nil` by default (one refresh per key, at
        /// once). Set it (1 second suits a lobby opening its screens) with an upstream that has
        /// bulk validation; ``CatalogCache/synchronize()`` and ``CatalogCache/waitForRefreshes()``
        /// send what is gathered at once. Without bulk validation at the upstream, refreshes go
        /// key by key again.
        public var refreshBatchWindow: Duration?
        /// What is withheld before the player's territory is known (``CatalogCache/setTerritory(_:)``):
        /// every game restricted anywhere by default (``UnknownTerritoryPolicy/hideRestrictedAnywhere``).
        public var unknownTerritoryPolicy: UnknownTerritoryPolicy = .hideRestrictedAnywhere
        /// How long a player's own content (every ``CacheScope/user(_:)`` key: recently played,
        /// favourites) stays fresh: 45 minutes by default. Player content carries signed image URLs
        /// that expire after 1 hour, so it must be refetched before then: past this time a read waits
        /// for the upstream instead of serving the old rows, and falls back to them, as
        /// `.stale`, only when the upstream cannot answer.
        public var playerTTL: Duration = .seconds(45 * 60)
        /// Games per player list (``PlayerList``), the `limit` asked of the upstream: 50 by default,
        /// kept within 1...1000.
        public var playerListLimit = 50
        /// The most player mutations kept waiting per player (offline): 100 by default. Past it the
        /// oldest is dropped, its change undone on screen and reported on the update stream.
        public var maxQueuedMutations = 100
        /// Which refreshed content is held instead of replacing what is on screen: none by default
        /// (silent replacement). Held content is announced as ``CacheUpdate/Event/pendingUpdate(_:)``
        /// and shown by ``CatalogCache/applyPendingUpdate(for:)``.
        public var heldUpdates: HeldUpdates = .none
        /// How many of the most recently read entries ``CatalogCache/trim()`` keeps in memory on a
        /// memory warning (what is on screen): 24 by default.
        @_spi(CatalogTools) public var entriesKeptOnTrim = 24
        /// The oldest catalogue content shown, per kind: none by default. Older content (a cached
        /// entry by when it was stored or last validated, the bundle and an over-the-air
        /// generation by when they were generated) is not shown until a validation or fetch
        /// succeeds: a synchronous read answers `.miss`, an async read fetches and throws
        /// ``CacheError/Code/contentTooOld`` when it cannot. A limit below the time to live acts
        /// as the time to live: fresh content is never too old.
        public var maxContentAge = MaxContentAge()

        public init() {}

        /// The defaults: 6 h time to live, 5 pages of 10 per category.
        public static let `default` = Configuration()

        /// For development: 5 minute time to live (2 for player content), 3 pages per category, quick retries.
        public static let debug: Configuration = {
            var configuration = Configuration()
            configuration.categoriesTTL = .seconds(300)
            configuration.gamesPageTTL = .seconds(300)
            configuration.playerTTL = .seconds(120)
            configuration.maxCachedPagesPerCategory = 3
            configuration.retry = RetryPolicy(initialDelay: .seconds(1), maxDelay: .seconds(30), maxAttempts: 4)
            return configuration
        }()

        /// The page size without a bundle to take it from: 10.
        public static let fallbackPageSize = 10

        /// Whether the cache keeps `key` (categories, and the first pages of each category), with
        /// pages of `pageSize` games.
        func isCached(_ key: CacheKey, pageSize: Int) -> Bool {
            switch key.content {
            case .categories:
                return true
            case .gamesPage(_, _, let offset):
                // Settings are checked nowhere else: a product that overflows caches every page.
                let (end, overflow) = pageSize.multipliedReportingOverflow(by: maxCachedPagesPerCategory)
                return offset >= 0 && (overflow || offset < end)
            }
        }
    }

    /// The oldest content ``Configuration/maxContentAge`` lets the cache show, per kind; `nil`: no
    /// limit.
    ///
    /// ```swift
    /// configuration.maxContentAge = .all(.seconds(30 * 86_400))   // nothing older than 30 days
    /// configuration.maxContentAge.gamesPage = .seconds(7 * 86_400) // and no page older than 7
    /// ```
    public struct MaxContentAge: Sendable, Hashable {
        /// For an edition's categories.
        public var categories: Duration?
        /// For a page of games.
        public var gamesPage: Duration?

        public init(categories: Duration? = nil, gamesPage: Duration? = nil) {
            self.categories = categories
            self.gamesPage = gamesPage
        }

        /// The same limit for every kind.
        public static func all(_ age: Duration) -> MaxContentAge {
            MaxContentAge(categories: age, gamesPage: age)
        }
    }

    /// Capped exponential backoff with jitter for failed background refreshes: the provider
    /// client's ``ProviderAPI/RetryPolicy``, which the pipeline's fetchers use too.
    public typealias RetryPolicy = ProviderAPI.RetryPolicy
}
