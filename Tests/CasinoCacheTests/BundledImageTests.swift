@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation
import Testing

/// Records what the cache asks of an app's image library.
final class RecordingImageHook: CatalogImageHook {
    struct Calls {
        var prefetched: [(urls: [URL], key: CacheKey)] = []
        var cleared: [(urls: [URL], scope: CacheScope?)] = []
    }
    let calls = Locked(Calls())
    let unconstrained: Bool

    init(unconstrained: Bool = true) { self.unconstrained = unconstrained }

    func prefetchImages(_ urls: [URL], for key: CacheKey) {
        calls.withLock { $0.prefetched.append((urls, key)) }
    }
    func clearImages(_ urls: [URL], scope: CacheScope?) { calls.withLock { $0.cleared.append((urls, scope)) } }
    var isNetworkUnconstrained: Bool { unconstrained }
    var prefetchedURLs: [URL] { calls.withLock { $0.prefetched.flatMap(\.urls) } }
}

/// The bundled thumbnails of a snapshot whose first 4 games of each category have theirs bundled.
@Suite(.timeLimit(.minutes(2))) struct BundledImageTests: CacheFixtureSuite {
    let fixture: CacheFixture

    init() throws {
        fixture = try CacheFixture(.lobbyWithImages)
    }

    @Test func answersEveryFirstScreenThumbnailFromTheBundleVerified() throws {
        // Given a bundle of the first 4 thumbnails of each category
        let cache = makeCache()
        // When each first-screen thumbnail is looked up
        for edition in [english, french] {
            for index in 0..<3 {
                for game in bundle.firstPage(index, edition: edition).items.prefix(4) {
                    // Then the bundle answers it with the file's bytes and their sniffed type
                    let image = try #require(cache.bundledImage(for: game.thumbnail))
                    let entry = try #require(bundle.manifest.images?.first { $0.url == game.thumbnail })
                    #expect(image.data == (try Data(contentsOf: bundle.directory.appendingPathComponent(entry.path))))
                    #expect(image.mediaType == .png)
                    #expect(SHA256Digest.hex(image.data) == entry.sha256)
                }
            }
        }
        // And a game further down the page has no bundled image (its URL is for the network)
        #expect(cache.bundledImage(for: bundle.firstPage().items[5].thumbnail) == nil)
        #expect(cache.statistics().corruptBundledImages == 0)
    }

    @Test func aMissingImageFileAnswersNilAndIsCountedOnce() throws {
        // Given a bundle whose first image file was deleted
        let entry = try #require(bundle.manifest.images?.first)
        try FileManager.default.removeItem(at: bundle.directory.appendingPathComponent(entry.path))
        let cache = makeCache()
        // When it is looked up twice
        // Then it answers nil both times, counts it once, and never crashes
        #expect(cache.bundledImage(for: entry.url) == nil)
        #expect(cache.bundledImage(for: entry.url) == nil)
        #expect(cache.statistics().corruptBundledImages == 1)
    }

    @Test(arguments: ["flipped byte", "html of the same size", "truncated"])
    func aTamperedImageFileAnswersNilAndIsCounted(_ damage: String) throws {
        // Given a bundle whose first image file was changed after the build
        let entry = try #require(bundle.manifest.images?.first)
        let file = bundle.directory.appendingPathComponent(entry.path)
        var bytes = try Data(contentsOf: file)
        switch damage {
        case "flipped byte": bytes[bytes.count / 2] ^= 0xFF
        case "html of the same size":
            let html = Data("<html><body>Access denied</body></html>".utf8)
            bytes = html + Data(repeating: 0x20, count: bytes.count - html.count)
        default: bytes = bytes.prefix(bytes.count - 10)
        }
        try bytes.write(to: file)
        let cache = makeCache()
        // When it is looked up
        // Then the lookup answers nil and the corrupt image is counted
        #expect(cache.bundledImage(for: entry.url) == nil)
        #expect(cache.statistics().corruptBundledImages == 1)
        // And every other image is still served
        let other = try #require(bundle.manifest.images?.first { $0.path != entry.path })
        #expect(cache.bundledImage(for: other.url) != nil)
    }

    @Test func aVerifiedImageIsAnsweredFromMemoryAfterItsFirstLookup() throws {
        // Given an image looked up once
        let entry = try #require(bundle.manifest.images?.first)
        let tier = BundledTier(configuration: .init(directory: bundle.directory), logger: silentLogger)
        let first = try #require(tier.images.image(for: entry.url))
        // When its file disappears
        try FileManager.default.removeItem(at: bundle.directory.appendingPathComponent(entry.path))
        // Then the verified bytes are still answered, without touching the disk
        #expect(tier.images.image(for: entry.url) == first)
        #expect(tier.images.corruptImages == 0)
    }

    @Test func aSnapshotWithoutImagesAnswersNil() throws {
        // Given the ordinary fixture, written before images existed (no images section)
        let other = try TemporaryDirectory()
        let plain = try BundleFixture(in: other)
        let cache = CatalogCache(
            upstream: CountingUpstream(catalog: plain.catalog), cacheDirectory: nil, bundleDirectory: plain.directory,
            logger: silentLogger)
        // Then it reads, and answers no image
        #expect(cache.cachedCategories(edition: english).value != nil)
        #expect(cache.bundledImage(for: plain.page(plain.firstCategoryId).items[0].thumbnail) == nil)
        withExtendedLifetime(other) {}
    }

    // MARK: - The image hook

    @Test func prefetchesTheFirstThumbnailsOfAPageItServesThatTheBundleLacks() async throws {
        // Given a cache with the app's image hook, prefetching the first 6 thumbnails per page
        let cache = makeCache()
        let hook = RecordingImageHook()
        cache.setImageHook(hook)
        // When the bundled first page of a category is served (twice)
        let page = bundle.firstPage()
        _ = cache.cachedGamesPage(edition: english, categoryId: page.categoryId)
        _ = cache.cachedGamesPage(edition: english, categoryId: page.categoryId)
        // Then the hook is asked once, for those of the first 6 the bundle lacks (1 to 4 are bundled,
        // and so is any of 5 and 6 that is among the first 4 of another category)
        let bundledURLs = Set(bundle.manifest.images?.map(\.url) ?? [])
        let expected = page.items.prefix(6).map(\.thumbnail).filter { !bundledURLs.contains($0) }
        #expect(!expected.isEmpty && page.items.prefix(4).allSatisfy { bundledURLs.contains($0.thumbnail) })
        let calls = hook.calls.withLock { $0.prefetched }
        #expect(calls.count == 1)
        #expect(calls.first?.key == .gamesPage(english, categoryId: page.categoryId, offset: 0))
        #expect(hook.prefetchedURLs.map(\.absoluteString) == expected)
    }

    @Test func prefetchesTheThumbnailsOfAPageItStoresFromTheNetwork() async throws {
        // Given a cache with a hook and a page the bundle does not have (offset 10)
        let cache = makeCache()
        let hook = RecordingImageHook()
        var prefetching = CatalogCache.ImagePrefetching.default
        prefetching.imagesPerPage = 3
        prefetching.fields = [.thumbnail, .backgroundImage]
        cache.setImageHook(hook, prefetching: prefetching)
        let categoryId = bundle.firstPage().categoryId
        // When the page is fetched and stored
        let page = try #require(try await cache.gamesPage(edition: english, categoryId: categoryId, offset: 10).value)
        // Then the first 3 games' thumbnails and backgrounds are prefetched
        let expected = page.items.prefix(3).flatMap { [$0.thumbnail] + ($0.backgroundImageUrl.map { [$0] } ?? []) }
        #expect(Set(hook.prefetchedURLs.map(\.absoluteString)) == Set(expected))
    }

    @Test func waitsForAnUnconstrainedNetworkWhenTheAppSaysSo() async throws {
        // Given a hook that reports a constrained network, and prefetching that requires Wi-Fi
        let cache = makeCache()
        let hook = RecordingImageHook(unconstrained: false)
        var prefetching = CatalogCache.ImagePrefetching.default
        prefetching.requiresUnconstrainedNetwork = true
        cache.setImageHook(hook, prefetching: prefetching)
        // When a page is served
        _ = cache.cachedGamesPage(edition: english, categoryId: bundle.firstPage().categoryId)
        // Then nothing is prefetched
        #expect(hook.prefetchedURLs.isEmpty)
    }

    @Test func clearingTheCacheClearsWhatItPrefetched() async throws {
        // Given a global page and a user's page whose thumbnails were prefetched
        let cache = makeCache()
        let hook = RecordingImageHook()
        cache.setImageHook(hook)
        let categoryId = bundle.firstPage().categoryId
        _ = cache.cachedGamesPage(edition: english, categoryId: categoryId)
        let userKey = CacheKey.gamesPage(english, categoryId: categoryId, offset: 10, scope: .user("u1"))
        _ = try await cache.content(for: userKey)
        let userURLs = hook.calls.withLock { $0.prefetched.first { $0.key == userKey }?.urls } ?? []
        #expect(!userURLs.isEmpty)
        // When the user logs out
        await cache.clear(scope: .user("u1"))
        // Then the hook drops exactly that user's prefetched images
        #expect(hook.calls.withLock { $0.cleared.last?.urls } == userURLs)
        #expect(hook.calls.withLock { $0.cleared.last?.scope } == .user("u1"))
        // When the whole cache is cleared
        await cache.clear()
        // Then the hook drops the rest (the global page's), and a page served again is prefetched anew
        let globalURLs = hook.calls.withLock { $0.prefetched.first { $0.key.scope == .global }?.urls } ?? []
        #expect(hook.calls.withLock { $0.cleared.last?.urls } == globalURLs)
        #expect(hook.calls.withLock { $0.cleared.last?.scope } == nil)
        _ = cache.cachedGamesPage(edition: english, categoryId: categoryId)
        #expect(hook.calls.withLock { $0.prefetched.filter { $0.key.scope == .global }.count } == 2)
    }
}
