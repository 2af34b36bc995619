@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
public import Foundation

extension CatalogCache {
    /// The bundled image for `url`, verified, or `nil`: synchronous, no network, cheap enough to
    /// call from a cell (a dictionary lookup once the file is verified).
    ///
    /// Answer the app's image requests from here first, and go to the network only on `nil`: the
    /// lobby's first screen then has its pictures on the first frame, offline. The first lookup of
    /// a file checks its size, SHA-256 and type against the manifest; a file that fails is `nil`
    /// from then on and counted in ``CacheStatistics/corruptBundledImages``.
    ///
    /// ```swift
    /// let data = cache.bundledImage(for: game.thumbnail)?.data
    /// ```
    public func bundledImage(for url: String) -> BundledImage? {
        bundled?.images.image(for: url)
    }

    /// ``bundledImage(for:)-(String)`` for a `URL`.
    public func bundledImage(for url: URL) -> BundledImage? {
        bundledImage(for: url.absoluteString)
    }

    /// Installs the app's image hook (`nil` removes it): from now on the cache asks it to prefetch
    /// the first images of the pages it stores or serves, and to clear them when it is cleared.
    ///
    /// - Parameters:
    ///   - hook: The app's adapter to its image library.
    ///   - prefetching: How many images per page, which fields, on which networks.
    public func setImageHook(_ hook: (any CatalogImageHook)?, prefetching: ImagePrefetching = .default) {
        images.setHook(hook, prefetching: prefetching)
    }
}
