@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation

/// The app's image hook (``CatalogImageHook``) and what the cache asked it to prefetch: asks it for
/// the first images of each page stored or served, once per scope, and to forget them on a clear.
final class ImagePrefetcher: Sendable {
    private let state = Locked(ImageHookState())

    func setHook(_ hook: (any CatalogImageHook)?, prefetching: CatalogCache.ImagePrefetching) {
        state.withLock { state in
            state.hook = hook
            state.prefetching = prefetching
        }
    }

    /// Asks the hook to prefetch the first images of `entry`'s page: those not in `bundledImages`,
    /// not asked for before in its scope, and only on an unconstrained network if so configured.
    func prefetch(_ entry: CacheEntry, bundledImages: BundledImageStore?, filter: GameFilter) {
        let (hook, prefetching) = state.withLock { ($0.hook, $0.prefetching) }
        guard let hook else { return }
        // The games the player's territory withholds are never shown: their images are not fetched.
        let content = filter.filters(entry) ? filter.withholding(entry.content).content : entry.content
        guard case .gamesPage(let page) = content else { return }
        var urls: [String] = []
        for game in page.items.prefix(max(prefetching.imagesPerPage, 0)) {
            if prefetching.fields.contains(.thumbnail) { urls.append(game.thumbnail) }
            if prefetching.fields.contains(.backgroundImage), let background = game.backgroundImageUrl {
                urls.append(background)
            }
        }
        urls.removeAll { bundledImages?.contains($0) == true }
        guard !urls.isEmpty else { return }
        if prefetching.requiresUnconstrainedNetwork, !hook.isNetworkUnconstrained { return }
        let new = state.withLock { $0.remember(urls, scope: entry.key.scope) }
        guard !new.isEmpty else { return }
        hook.prefetchImages(new.compactMap(URL.init(string:)), for: entry.key)
    }

    /// Tells the hook to drop what it prefetched for `scope` (every scope when `nil`).
    func clear(scope: CacheScope?) {
        let (hook, urls) = state.withLock { state in (state.hook, state.forget(scope: scope)) }
        guard let hook else { return }
        hook.clearImages(urls.compactMap(URL.init(string:)), scope: scope)
    }
}
