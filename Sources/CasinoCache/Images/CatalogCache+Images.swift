@_spi(Internals) import CasinoCatalog
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
        imageHooks.withLock { state in
            state.hook = hook
            state.prefetching = prefetching
        }
    }

    /// Asks the hook to prefetch the first images of `entry`'s page (stored or served): those not
    /// bundled, not asked for before in its scope, and only on an unconstrained network if so
    /// configured.
    func prefetchImages(of entry: CacheEntry) {
        guard case .gamesPage(let page) = entry.content else { return }
        let (hook, prefetching) = imageHooks.withLock { ($0.hook, $0.prefetching) }
        guard let hook else { return }
        var urls: [String] = []
        for game in page.items.prefix(max(prefetching.imagesPerPage, 0)) {
            if prefetching.fields.contains(.thumbnail) { urls.append(game.thumbnail) }
            if prefetching.fields.contains(.backgroundImage), let background = game.backgroundImageUrl { urls.append(background) }
        }
        let bundledImages = bundled?.images
        urls.removeAll { bundledImages?.contains($0) == true }
        guard !urls.isEmpty else { return }
        if prefetching.requiresUnconstrainedNetwork, !hook.isNetworkUnconstrained { return }
        let new = imageHooks.withLock { $0.remember(urls, scope: entry.key.scope) }
        guard !new.isEmpty else { return }
        hook.prefetchImages(new.compactMap(URL.init(string:)), for: entry.key)
    }

    /// Tells the hook to drop what it prefetched for `scope` (every scope when `nil`).
    func clearImages(scope: CacheScope?) {
        let (hook, urls) = imageHooks.withLock { state in (state.hook, state.forget(scope: scope)) }
        guard let hook else { return }
        hook.clearImages(urls.compactMap(URL.init(string:)), scope: scope)
    }
}
