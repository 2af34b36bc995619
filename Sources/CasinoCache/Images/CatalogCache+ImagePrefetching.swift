extension CatalogCache {
    /// Which images the cache asks the app's ``CatalogImageHook`` to prefetch.
    ///
    /// ```swift
    /// var prefetching = CatalogCache.ImagePrefetching.default
    /// prefetching.imagesPerPage = 4
    /// prefetching.requiresUnconstrainedNetwork = true     // Wi-Fi only
    /// cache.setImageHook(hook, prefetching: prefetching)
    /// ```
    public struct ImagePrefetching: Sendable, Hashable {
        /// Games per page whose images are prefetched, from the top: 6 by default (a first screen).
        public var imagesPerPage = 6
        /// The game images prefetched: the thumbnail by default.
        public var fields: Set<ImageField> = [.thumbnail]
        /// Whether prefetching waits for an unconstrained network (the hook's
        /// ``CatalogImageHook/isNetworkUnconstrained``): `false` by default. A page skipped for
        /// it is prefetched when it is next stored or served on an unconstrained network.
        public var requiresUnconstrainedNetwork = false
        /// The most URLs remembered as prefetched per scope (so none is asked twice); past it the
        /// oldest are forgotten: 10,000 by default.
        public var maxRememberedURLs = 10_000

        /// A game image.
        public enum ImageField: String, Sendable, Hashable, CaseIterable {
            /// `Game.thumbnail`.
            case thumbnail
            /// `Game.backgroundImageUrl`.
            case backgroundImage
        }

        public init() {}

        /// The defaults: the first 6 thumbnails of each page, on any network.
        public static let `default` = ImagePrefetching()
    }
}
