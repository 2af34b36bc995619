@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

/// `Configuration.maxContentAge` in ``RestrictedLobby`` (its bundle generated an hour before the
/// clock's start): content older than the limit is not shown, and the async answer says why.
@Suite(.timeLimit(.minutes(2)))
struct MaxContentAgeTests {
    let lobby: RestrictedLobby
    static let day = Duration.seconds(86_400)

    init() throws {
        lobby = try RestrictedLobby()
    }

    func makeCache(_ maxAge: CatalogCache.MaxContentAge, bundled: Bool = true) -> CatalogCache {
        lobby.makeCache(
            {
                $0.unknownTerritoryPolicy = .showAll
                $0.maxContentAge = maxAge
            }, bundled: bundled)
    }

    func page(_ cache: CatalogCache) -> CacheResult<GamesPage> {
        cache.cachedGamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
    }

    @Test func aBundleOlderThanTheLimitIsNotShown() throws {
        // Given a bundle generated 10 days ago and a limit of 7 days on pages only
        lobby.clock.advance(by: Self.day * 10)
        let cache = makeCache(CatalogCache.MaxContentAge(gamesPage: Self.day * 7))
        // When the first frame reads
        let page = page(cache)
        let categories = cache.cachedCategories(edition: english)
        // Then the page is a miss, counted as too old, and the categories (no limit) are shown; so is
        // the page when read again, from memory
        #expect(page.state == .miss && page.value == nil)
        #expect(categories.state == .bundled)
        #expect(self.page(cache).state == .miss)
        #expect(cache.statistics().tooOld == 2 && cache.statistics().bundled == 3)
        // And within the limit it is shown as before
        #expect(
            makeCache(.all(Self.day * 30)).cachedGamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
                .state == .bundled)
    }

    @Test func theAsyncReadFetchesInsteadAndOfflineThrowsWhy() async throws {
        // Given a bundle past the limit and an upstream that cannot answer, then can
        lobby.clock.advance(by: Self.day * 10)
        lobby.upstream.script(
            RestrictedLobby.key, .failure(URLError(.notConnectedToInternet)), .content(.gamesPage(RestrictedLobby.page))
        )
        let cache = makeCache(.all(Self.day))
        // When the lobby asks for the page, offline, then online
        let error = await #expect(throws: CacheError.self) {
            try await cache.gamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
        }
        let fetched = try await cache.gamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
        // Then offline it says why (too old, and the upstream's failure); online it is fresh and shown since
        #expect(error?.code == .contentTooOld && error?.cause != nil)
        #expect(error?.message.contains("bundled copy is 241 hours old") == true, "\(String(describing: error))")
        #expect(error?.message.contains("connect to update") == true)
        #expect(fetched.state == .fresh && fetched.metadata?.tier == .upstream)
        #expect(page(cache).state == .fresh)
    }

    @Test func cachedContentAgesOutAndA304BringsItBack() async throws {
        // Given a page fetched with an ETag, no bundle, and a limit of 2 days
        lobby.upstream.script(
            RestrictedLobby.key, .content(.gamesPage(RestrictedLobby.page), etag: "\"v1\""), .notModified)
        let cache = makeCache(.all(Self.day * 2), bundled: false)
        _ = try await cache.gamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
        #expect(page(cache).state == .fresh)
        // When 3 days pass, on this launch and on the next one (read from disk)
        lobby.clock.advance(by: Self.day * 3)
        await cache.flush()
        let relaunched = makeCache(.all(Self.day * 2), bundled: false)
        // Then neither shows it
        #expect(page(cache).state == .miss && page(relaunched).state == .miss)
        #expect(cache.statistics().tooOld == 1 && relaunched.statistics().tooOld == 1)
        // And once the upstream says it is current (a 304), it is shown again
        let renewed = try await cache.gamesPage(edition: english, categoryId: RestrictedLobby.categoryId)
        #expect(renewed.state == .fresh && renewed.value?.items.count == 10)
        #expect(page(cache).state == .fresh)
    }
}
