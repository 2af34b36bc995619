public import CasinoCache
public import CasinoCatalog
public import Observation

/// The lobby screen's state, as an app writes it: the first frame from the synchronous reads, then
/// the async read (fresh, or stale and bundled with a background refresh, or a fetch on a miss),
/// then every silent update. The DocC quick start shows this file; a test drives it against the
/// pipeline's real snapshot and the provider simulator, so it cannot rot.
@available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
@MainActor
@Observable
public final class LobbyModel {
    /// The categories, in lobby order.
    public private(set) var categories: [CasinoCatalog.Category] = []
    /// The first page of each category, by category id.
    public private(set) var firstPages: [String: GamesPage] = [:]
    /// How the categories were last answered: a UI may show a badge for `.bundled` or `.stale`.
    public private(set) var state: CacheState = .miss
    /// The last failure to show (the content on screen stays).
    public private(set) var problem: String?
    /// Newer content held back for the categories ("new games available"), when
    /// `Configuration.heldUpdates` holds it: show a banner, and call ``showNewContent()`` on tap.
    public private(set) var heldChanges: ContentChanges?

    private let cache: CatalogCache
    private let edition: Edition

    /// Fills the first frame from memory, disk or the bundle: synchronous, no network.
    public init(cache: CatalogCache, edition: Edition) {
        self.cache = cache
        self.edition = edition
        show(cache.cachedCategories(edition: edition))
        for category in categories {
            firstPages[category.id] = cache.cachedGamesPage(edition: edition, categoryId: category.id).value
        }
    }

    /// Reads the categories and first pages, then applies updates until the task is cancelled:
    /// call it from `.task { await model.run() }`.
    public func run() async {
        let updates = cache.updates()  // subscribed before the reads, so no update is missed
        do {
            show(try await cache.categories(edition: edition))
            for category in categories {
                firstPages[category.id] = try await cache.gamesPage(edition: edition, categoryId: category.id).value
            }
        } catch {
            problem = "\(error)"
        }
        for await update in updates {
            apply(update)
        }
    }

    /// Shows the content held for the categories (the banner was tapped).
    public func showNewContent() {
        heldChanges = nil
        cache.applyPendingUpdate(for: .categories(edition))
    }

    private func show(_ result: CacheResult<CategoryList>) {
        if let list = result.value { categories = list.items }
        state = result.state
    }

    private func apply(_ update: CacheUpdate) {
        switch update.event {
        case .updated(.categories(let list), _) where update.key == .categories(edition):
            categories = list.items
            state = .fresh
        case .updated(.gamesPage(let page), _)
        where update.key == .gamesPage(edition, categoryId: page.categoryId, offset: 0):
            firstPages[page.categoryId] = page
        case .updated:
            break
        case .refreshFailed(let error, _, _):
            problem = error.message
        case .pendingUpdate(let changes) where update.key == .categories(edition):
            heldChanges = changes
        case .pendingUpdate:
            break
        case .mutationFailed(_, let error):
            problem = error.message
        }
    }
}
