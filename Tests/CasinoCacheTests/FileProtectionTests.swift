@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Logging
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Data Protection and backups: which attributes each directory gets (decided portably, checked
/// here), that Linux ignores them with one `.debug` line, and that a file the device will not let
/// the app read is a miss, never deleted, with the bundle answering.
@Suite(.timeLimit(.minutes(5)))
struct FileProtectionTests: CacheFixtureSuite {
    let fixture: CacheFixture

    init() throws {
        fixture = try CacheFixture()
    }

    @Test(arguments: CacheFileProtection.allCases)
    func eachDirectoryGetsTheClassAskedForAndOnlyGenerationsSkipBackups(_ protection: CacheFileProtection) {
        let expected: [CacheFileProtection: FileProtectionType] = [
            .complete: .complete, .completeUnlessOpen: .completeUnlessOpen,
            .completeUntilFirstUserAuthentication: .completeUntilFirstUserAuthentication, .none: .none,
        ]
        let roles: [(StorageAttributes.Role, Bool)] = [
            (.cacheEntries, false), (.playerChanges, false), (.snapshotGenerations, true),
        ]
        for (role, skipsBackup) in roles {
            let attributes = StorageAttributes(role: role, protection: protection)
            #expect(
                attributes.fileAttributes.mapValues(\.rawValue) == [.protectionKey: expected[protection]!.rawValue],
                "\(role)")
            #expect(attributes.isExcludedFromBackup == skipsBackup, "\(role)")
            #expect(attributes.resourceValues.isExcludedFromBackup == skipsBackup, "\(role)")
        }
    }

    @Test func theDefaultLetsABackgroundRefreshAfterARebootReadAndWrite() {
        #expect(CatalogCache.Configuration.default.fileProtection == .completeUntilFirstUserAuthentication)
        #expect(
            DiskTier.Configuration(directory: directory.url).fileProtection == .completeUntilFirstUserAuthentication)
    }

    #if !canImport(Darwin)
    @Test func offApplePlatformsProtectionIsIgnoredAndSaidOnceAtDebug() async throws {
        // Given a disk tier asked for complete protection, logging everything
        let logs = LogRecorder()
        let tier = DiskTier(
            configuration: .init(directory: directory.child("cache"), fileProtection: .complete), logger: logs.logger)
        // When it writes two entries
        let pageKey = CacheKey(.gamesPage(english, categoryId: bundle.firstCategoryId, offset: 0))
        tier.store(
            CacheEntry(
                key: CacheKey(.categories(english)), content: .categories(bundle.categories()), storedAt: clock.now,
                etag: nil, origin: .network))
        tier.store(
            CacheEntry(
                key: pageKey, content: .gamesPage(bundle.page(bundle.firstCategoryId)), storedAt: clock.now, etag: nil,
                origin: .network))
        await tier.flush()
        // Then the entries are written, and one line says the class does not apply here
        #expect(tier.entry(for: pageKey) != nil)
        let ignored = logs.records.filter { $0.message.contains("apply on Apple platforms only") }
        #expect(ignored.count == 1)
        #expect(ignored.first?.level == .debug)
        #expect(ignored.first?.metadata["cache.fileProtection"] == "complete")
    }
    #endif

    @Test func anEntryTheDeviceWillNotLetTheAppReadIsAMissNotADeletionAndTheBundleAnswers() async throws {
        // Given categories fetched and stored on disk
        let cache = makeCache(bundled: false)
        _ = try await cache.categories(edition: english)
        await cache.flush()
        let entryFile = try #require(
            try FileManager.default.contentsOfDirectory(atPath: directory.child("cache").path).first {
                $0.hasSuffix(".json.gz")
            })
        // When the file cannot be read as a file any more (a locked device refuses the open; here a
        // FIFO stands in its place, which the tier opens without blocking and refuses)
        let path = directory.child("cache").appendingPathComponent(entryFile).path
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0)
        // Then a relaunched cache answers from the bundle, and the file is still there
        let relaunched = makeCache()
        guard case .bundled(let list, _) = relaunched.cachedCategories(edition: english) else {
            Issue.record("expected the bundle to answer")
            return
        }
        #expect(list == bundle.categories())
        await relaunched.flush()
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    }

    @Test func aBundlePathThatIsAFileServesNothingAndTheUpstreamAnswers() async throws {
        // Given a bundle directory that is a regular file
        let file = directory.child("not-a-directory")
        try Data("x".utf8).write(to: file)
        let cache = CatalogCache(
            upstream: upstream, cacheDirectory: nil, bundleDirectory: file, clock: clock, logger: silentLogger)
        // Then the first frame is a miss and the async read waits for the upstream
        #expect(cache.cachedCategories(edition: english).value == nil)
        #expect(try await cache.categories(edition: english).value == bundle.categories())
    }
}
