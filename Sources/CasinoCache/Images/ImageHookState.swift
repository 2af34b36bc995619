import Foundation

/// The cache's image hook and what it asked the hook to prefetch, per scope.
struct ImageHookState {
    var hook: (any CatalogImageHook)?
    var prefetching = CatalogCache.ImagePrefetching.default
    /// URLs handed to the hook, per scope, in the order handed (for forgetting the oldest).
    var prefetched: [CacheScope: (set: Set<String>, order: [String])] = [:]

    /// Records `urls` as prefetched for `scope`; returns those not recorded before.
    mutating func remember(_ urls: [String], scope: CacheScope) -> [String] {
        var entry = prefetched[scope] ?? ([], [])
        var new: [String] = []
        for url in urls where entry.set.insert(url).inserted {
            entry.order.append(url)
            new.append(url)
        }
        let excess = entry.order.count - max(prefetching.maxRememberedURLs, 0)
        if excess > 0 {
            for url in entry.order.prefix(excess) { entry.set.remove(url) }
            entry.order.removeFirst(excess)
        }
        prefetched[scope] = entry
        return new
    }

    /// Forgets what was prefetched for `scope` (every scope when `nil`) and returns it.
    mutating func forget(scope: CacheScope?) -> [String] {
        guard let scope else {
            defer { prefetched.removeAll() }
            return prefetched.keys.sorted { $0.description < $1.description }.flatMap { prefetched[$0]?.order ?? [] }
        }
        return prefetched.removeValue(forKey: scope)?.order ?? []
    }
}
