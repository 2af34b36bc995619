public import Foundation

/// The bridge from the cache to the app's image pipeline (Nuke, Kingfisher, its own): the cache
/// says which thumbnails to prefetch and when to drop them; the app's library does the work.
///
/// The cache calls ``prefetchImages(_:for:)`` for the first images of each page it stores from the
/// network or first serves from disk or the bundle (see ``CatalogCache/ImagePrefetching``), never
/// twice for one URL until a clear, and never for an image the bundle holds: the app answers those
/// from ``CatalogCache/bundledImage(for:)``. It calls ``clearImages(_:scope:)`` from
/// ``CatalogCache/clear()`` (scope `nil`) and ``CatalogCache/clear(scope:)`` with the URLs it
/// asked to prefetch for that scope. Calls come from the cache's threads and must return quickly:
/// start work, do not wait for it.
///
/// ```swift
/// struct NukeImageHook: CatalogImageHook {
///     let prefetcher = ImagePrefetcher(pipeline: .shared)
///     func prefetchImages(_ urls: [URL], for key: CacheKey) { prefetcher.startPrefetching(with: urls) }
///     func clearImages(_ urls: [URL], scope: CacheScope?) {
///         prefetcher.stopPrefetching(with: urls)
///         urls.forEach { ImagePipeline.shared.cache.removeCachedImage(for: ImageRequest(url: $0)) }
///     }
/// }
/// cache.setImageHook(NukeImageHook())
/// ```
public protocol CatalogImageHook: Sendable {
    /// Starts prefetching `urls`, the first images of the page `key`, into the app's image cache.
    func prefetchImages(_ urls: [URL], for key: CacheKey)

    /// Drops `urls` (what the cache asked to prefetch for `scope`; every scope when `nil`) from the
    /// app's image cache, and stops prefetching them.
    func clearImages(_ urls: [URL], scope: CacheScope?)

    /// Whether the network is unconstrained now (Wi-Fi, not Low Data Mode): asked before each
    /// prefetch when ``CatalogCache/ImagePrefetching/requiresUnconstrainedNetwork`` is set. `true`
    /// by default; on Apple platforms answer from `NWPathMonitor` (`!path.isExpensive &&
    /// !path.isConstrained`).
    var isNetworkUnconstrained: Bool { get }
}

extension CatalogImageHook {
    public var isNetworkUnconstrained: Bool { true }
}
