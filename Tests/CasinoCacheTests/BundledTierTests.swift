@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation
@_spi(CatalogTools) import Gzip
import Logging
import Testing

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Time limits are hang detectors: a busy machine (a release build beside the tests) is slow, not hung.
@Suite(.timeLimit(.minutes(5)))
struct BundledTierTests {
    // MARK: - Launch

    @Test func readsOnlyTheManifestAtLaunch() throws {
        // Given a bundled tier created on a complete snapshot directory
        let fixture = try BundledSnapshotFixture()
        let tier = fixture.tier()
        // When every snapshot file but one page is deleted after launch
        let kept = fixture.manifestEntry(fixture.firstPage).path
        for entry in fixture.manifest.files where entry.path != kept {
            try FileManager.default.removeItem(at: fixture.out.appendingPathComponent(entry.path))
        }
        // Then that page is still served: nothing but the manifest was read at launch
        let entry = try #require(tier.entry(for: CacheKey(fixture.firstPage)))
        #expect(entry.content == .gamesPage(fixture.page(fixture.firstPage)))
        #expect(tier.corruptFiles == 0)
    }

    // MARK: - Index

    @Test func withAnIndexAnEditionIsReadFromItsOwnPartAlone() throws {
        // Given a snapshot with its index, whose manifest and other edition's part are then garbage
        let fixture = try BundledSnapshotFixture()
        try fixture.writeIndex()
        try Data("garbage".utf8).write(to: fixture.out.appendingPathComponent(Manifest.fileName))
        try Data("garbage".utf8).write(to: fixture.out.appendingPathComponent(SnapshotIndex.path(of: bundledFrench)))
        let logs = LogRecorder()
        // When the tier launches and serves the default edition's categories and first page
        let tier = fixture.tier(logger: logs.logger)
        let categories = tier.entry(for: .categories(bundledEnglish))
        let page = tier.entry(for: CacheKey(fixture.firstPage))
        // Then both are served, dated by the index's head, and
        // neither the manifest nor the other edition's part was read
        #expect(tier.head == fixture.manifest.head)
        #expect(categories?.content == .categories(fixture.categories(bundledEnglish)))
        #expect(page?.content == .gamesPage(fixture.page(fixture.firstPage)))
        #expect(page?.storedAt == fixture.manifest.generatedAt)
        #expect(tier.corruptFiles == 0)
        #expect(!logs.records.contains { $0.level == .error })
    }

    @Test(arguments: BundledBrokenIndex.allCases)
    func anUnusableIndexIsCountedAndTheManifestServes(_ breakage: BundledBrokenIndex) throws {
        // Given a snapshot whose index is broken in one way
        let fixture = try BundledSnapshotFixture()
        try fixture.writeIndex()
        try breakage.apply(to: fixture)
        let logs = LogRecorder()
        // When the tier launches and the default edition's first page is asked for
        let tier = fixture.tier(logger: logs.logger)
        let page = tier.entry(for: CacheKey(fixture.firstPage))
        // Then the page is served through manifest.json, and the broken file is counted once and
        // logged with the reason
        #expect(page?.content == .gamesPage(fixture.page(fixture.firstPage)))
        #expect(tier.entry(for: .categories(bundledEnglish)) != nil)
        #expect(tier.editions == [bundledEnglish, bundledFrench])
        #expect(tier.corruptFiles == 1)
        #expect(
            logs.records.contains {
                $0.level == .error && $0.metadata["cache.file"]?.hasSuffix(breakage.file) == true
                    && $0.metadata["cache.reason"]?.contains(breakage.expectedReason) == true
            })
    }

    @Test func anEditionWhosePartAndManifestAreBothUnusableIsNotServedButOthersAre() throws {
        // Given a snapshot whose English part and manifest are garbage
        let fixture = try BundledSnapshotFixture()
        try fixture.writeIndex()
        try Data("garbage".utf8).write(to: fixture.out.appendingPathComponent(Manifest.fileName))
        try Data("garbage".utf8).write(to: fixture.out.appendingPathComponent(SnapshotIndex.path(of: bundledEnglish)))
        // When both editions are asked for
        let tier = fixture.tier()
        // Then English answers nil, counted once however often it is asked, and French is served
        #expect(tier.entry(for: CacheKey(fixture.firstPage)) == nil)
        #expect(tier.entry(for: .categories(bundledEnglish)) == nil)
        #expect(tier.entry(for: .categories(bundledFrench))?.content == .categories(fixture.categories(bundledFrench)))
        #expect(tier.corruptFiles == 1)
    }

    @Test func aCorruptPageDoesNotAffectLaunch() throws {
        // Given a directory whose first page is garbage
        let fixture = try BundledSnapshotFixture()
        try fixture.overwrite(fixture.firstPage, with: Data("not gzip".utf8), updatingEntry: true)
        // When the tier launches
        let tier = fixture.tier()
        // Then the manifest is read, nothing is counted yet, and other content is served
        #expect(tier.head == fixture.manifest.head)
        #expect(tier.corruptFiles == 0)
        #expect(tier.entry(for: .categories(bundledEnglish)) != nil)
        // And the bad page only counts when it is asked for
        #expect(tier.entry(for: CacheKey(fixture.firstPage)) == nil)
        #expect(tier.corruptFiles == 1)
    }

    @Test func exposesTheManifest() throws {
        // Given a snapshot of two editions
        let fixture = try BundledSnapshotFixture()
        // When the tier launches
        let tier = fixture.tier()
        // Then it reports the manifest's editions, default edition and generation time
        #expect(tier.editions == [bundledEnglish, bundledFrench])
        #expect(tier.defaultEdition == bundledEnglish)
        #expect(tier.generatedAt == BundleFixture.recordedAt)
        #expect(tier.generatedAt == fixture.manifest.generatedAt)
    }

    // MARK: - Serving

    @Test func servesCategoriesAndTheFirstPageAsBundled() throws {
        // Given a tier on a snapshot directory
        let fixture = try BundledSnapshotFixture()
        let tier = fixture.tier()
        let categoriesKey = CacheKey.categories(bundledFrench)
        let pageKey = CacheKey(fixture.firstPage)
        // When the lobby and the first page of its first category are asked for
        let categories = try #require(tier.entry(for: categoriesKey))
        let page = try #require(tier.entry(for: pageKey))
        // Then both are the normalized content, marked bundled, stored at the snapshot's generation time
        #expect(categories.key == categoriesKey)
        #expect(categories.content == .categories(fixture.categories(bundledFrench)))
        #expect(categories.origin == .bundled)
        #expect(categories.storedAt == fixture.manifest.generatedAt)
        #expect(categories.etag == nil)
        #expect(page.key == pageKey)
        #expect(page.content == .gamesPage(fixture.page(fixture.firstPage)))
        #expect(page.origin == .bundled)
        #expect(page.storedAt == fixture.manifest.generatedAt)
        #expect(page.etag == nil)
    }

    @Test func answersNilForContentThatIsNotBundled() throws {
        // Given a tier whose categories hold fewer than 500 games
        let fixture = try BundledSnapshotFixture()
        let tier = fixture.tier()
        // When a page past the bundled ones and an unknown category are asked for
        let pastTheEnd = CacheKey.gamesPage(bundledEnglish, categoryId: "CATEGORY001", offset: 500)
        let unknown = CacheKey.gamesPage(bundledEnglish, categoryId: "NOPE", offset: 0)
        // Then both are nil, and neither counts as corrupt
        #expect(tier.entry(for: pastTheEnd) == nil)
        #expect(tier.entry(for: unknown) == nil)
        #expect(tier.corruptFiles == 0)
    }

    @Test func answersAnUnbundledEditionFromTheDefaultEdition() throws {
        // Given a snapshot of en-iPhone (the default) and fr-iPhone
        let fixture = try BundledSnapshotFixture()
        let tier = fixture.tier()
        let german = try Edition(language: "de", platform: .iPhone)
        let englishAndroid = try Edition(language: "en", platform: .android)
        let categoryId = fixture.categories(bundledEnglish).items[0].id
        // When a German user and an Android user ask for the lobby and a first page
        for edition in [german, englishAndroid] {
            let categoriesKey = CacheKey.categories(edition)
            let pageKey = CacheKey.gamesPage(edition, categoryId: categoryId, offset: 0)
            let categories = try #require(tier.entry(for: categoriesKey))
            let page = try #require(tier.entry(for: pageKey))
            // Then they get the default edition's content under the key they asked for
            #expect(categories.key == categoriesKey)
            #expect(categories.content == .categories(fixture.categories(bundledEnglish)))
            #expect(categories.origin == .bundled)
            #expect(page.key == pageKey)
            #expect(
                page.content == .gamesPage(fixture.page(.gamesPage(bundledEnglish, categoryId: categoryId, offset: 0))))
        }
        // And a bundled edition is never replaced by the default
        #expect(tier.entry(for: .categories(bundledFrench))?.content == .categories(fixture.categories(bundledFrench)))
    }

    @Test func sharesOneDecodedCopyBetweenAnEditionAndItsFallback() throws {
        // Given a tier that served an unbundled edition's lobby from the default edition
        let fixture = try BundledSnapshotFixture()
        let tier = fixture.tier()
        let german = try Edition(language: "de", platform: .iPhone)
        #expect(tier.entry(for: .categories(german)) != nil)
        // When the default edition's categories file disappears
        try FileManager.default.removeItem(at: fixture.url(of: .categories(bundledEnglish)))
        // Then the default edition's own lobby is still served, from the decoded copy
        #expect(
            tier.entry(for: .categories(bundledEnglish))?.content == .categories(fixture.categories(bundledEnglish)))
        #expect(tier.corruptFiles == 0)
    }

    @Test(arguments: [
        BundledEditionCase("en", .iPhone, "en-iPhone"),
        BundledEditionCase("fr", .iPhone, "fr-iPhone"),
        BundledEditionCase("pt-BR", .iPhone, "pt-iPhone"),
        BundledEditionCase("pt_BR", .iPhone, "pt-iPhone"),
        BundledEditionCase("FR-ca", .iPhone, "fr-iPhone"),
        BundledEditionCase("en", .android, "en-Android"),
        BundledEditionCase("en-GB", .android, "en-Android"),
        BundledEditionCase("zh-Hant-TW", .iPhone, "zh-Hant-iPhone"),
        BundledEditionCase("zh", .iPhone, "en-iPhone"),
        BundledEditionCase("fr", .android, "en-iPhone"),
        BundledEditionCase("pt-BR", .iPad, "en-iPhone"),
        BundledEditionCase("de", .iPhone, "en-iPhone"),
        BundledEditionCase("", .pc, "en-iPhone"),
    ])
    func picksTheEditionForADevice(_ example: BundledEditionCase) throws {
        // Given editions en/fr/pt/zh-Hant on iPhone and en on Android, with en-iPhone the default
        let fixture = try BundledSnapshotFixture(.fiveEditions)
        let tier = fixture.tier()
        // When a device asks for its edition
        let edition = tier.edition(language: example.language, platform: example.platform)
        // Then it gets the exact one, else a shorter tag on the same platform, else the default
        #expect(edition?.id == example.expected)
    }

    // MARK: - The decoded-entry memo

    @Test func servesTheSecondReadFromTheDecodedEntry() throws {
        // Given a page read once
        let fixture = try BundledSnapshotFixture()
        let tier = fixture.tier()
        let key = CacheKey(fixture.firstPage)
        let first = try #require(tier.entry(for: key))
        // When its file is deleted and it is read again
        try FileManager.default.removeItem(at: fixture.url(of: fixture.firstPage))
        let second = tier.entry(for: key)
        // Then the same entry is served without touching the disk
        #expect(second == first)
        #expect(tier.corruptFiles == 0)
    }

    @Test func remembersAFileThatFailedVerification() throws {
        // Given a page whose file is truncated, read once
        let fixture = try BundledSnapshotFixture()
        let logs = LogRecorder()
        let tier = fixture.tier(logger: logs.logger)
        let key = CacheKey(fixture.firstPage)
        let original = try Data(contentsOf: fixture.url(of: fixture.firstPage))
        try original.prefix(original.count / 2).write(to: fixture.url(of: fixture.firstPage))
        #expect(tier.entry(for: key) == nil)
        // When the file is repaired and the page is read again, twice
        try original.write(to: fixture.url(of: fixture.firstPage))
        let again = tier.entry(for: key)
        let andAgain = tier.entry(for: key)
        // Then the failure is remembered: still nil, counted once, logged once
        #expect(again == nil)
        #expect(andAgain == nil)
        #expect(tier.corruptFiles == 1)
        #expect(logs.records.filter { $0.metadata["cache.key"] != nil }.count == 1)
    }

    @Test func concurrentFirstReadsAgreeAndCountAFailureOnce() async throws {
        // Given a tier with one good page and one corrupt page, neither read yet
        let fixture = try BundledSnapshotFixture()
        let badKey = SnapshotKey.gamesPage(bundledEnglish, categoryId: "CATEGORY002", offset: 0)
        try fixture.overwrite(badKey, with: Data(repeating: 0x1F, count: 64), updatingEntry: true)
        let tier = fixture.tier()
        let goodKey = CacheKey(fixture.firstPage)
        // When 200 tasks read both at once
        let results = await withTaskGroup(of: (CacheEntry?, CacheEntry?).self) { group in
            for _ in 0..<200 {
                group.addTask { (tier.entry(for: goodKey), tier.entry(for: CacheKey(badKey))) }
            }
            var results: [(CacheEntry?, CacheEntry?)] = []
            for await result in group { results.append(result) }
            return results
        }
        // Then every reader gets the same good entry, no reader gets the bad one, and it counts once
        let expected = CacheEntry(
            key: goodKey, content: .gamesPage(fixture.page(fixture.firstPage)),
            storedAt: fixture.manifest.generatedAt, origin: .bundled)
        #expect(results.count == 200)
        #expect(results.allSatisfy { $0.0 == expected && $0.1 == nil })
        #expect(tier.corruptFiles == 1)
    }

    @Test func randomConcurrentReadsOfFreshTiersServeEveryPageAndLeaveNoDescriptorOpen() async throws {
        // Given the lobby's pages and what each holds
        let fixture = try BundledSnapshotFixture()
        let keys = fixture.manifest.files.filter { $0.kind == .gamesPage }.map(\.key)
        let expected = Dictionary(uniqueKeysWithValues: keys.map { ($0, fixture.page($0)) })
        var generator = SystemRandomNumberGenerator()
        // When, 200 times, a fresh tier is read by 2 to 16 tasks at once, each reading random pages
        // (the directories it keeps are opened by whichever task comes first)
        for _ in 0..<200 {
            let tier = fixture.tier()
            let readers = Int.random(in: 2...16, using: &generator)
            let plans = (0..<readers).map { _ in
                (0..<Int.random(in: 1...6, using: &generator)).map { _ in keys.randomElement()! }
            }
            let served = await withTaskGroup(of: [(SnapshotKey, GamesPage?)].self) { group in
                for plan in plans {
                    group.addTask {
                        plan.map { key in
                            guard case .gamesPage(let page)? = tier.entry(for: CacheKey(key))?.content else {
                                return (key, nil)
                            }
                            return (key, page)
                        }
                    }
                }
                var served: [(SnapshotKey, GamesPage?)] = []
                for await reads in group { served += reads }
                return served
            }
            // Then every read is the page its key names
            #expect(served.allSatisfy { expected[$0.0] == $0.1 })
            #expect(tier.corruptFiles == 0)
            // And the tier keeps at most 8 of the snapshot's directories open
            if let open = openDescriptors(under: fixture.out) { #expect(open <= 8) }
        }
        // And once the tiers are gone, so are the descriptors they kept
        if let open = openDescriptors(under: fixture.out) { #expect(open == 0) }
    }

    // MARK: - Scopes and writes

    @Test func neverServesUserScopedKeys() throws {
        // Given a tier holding the default edition's content
        let fixture = try BundledSnapshotFixture()
        let tier = fixture.tier()
        // When the same content is asked for in a user's scope
        let categories = tier.entry(for: .categories(bundledEnglish, scope: .user("42")))
        let page = tier.entry(for: CacheKey(fixture.firstPage, scope: .user("42")))
        // Then nothing is bundled for users
        #expect(categories == nil)
        #expect(page == nil)
        #expect(tier.entry(for: .categories(bundledEnglish)) != nil)
    }

    @Test func answersGlobalKeysOnly() throws {
        // Given a tier (read-only: it has no way to store or remove)
        let fixture = try BundledSnapshotFixture()
        let tier = fixture.tier()
        let german = CacheKey.categories(try Edition(language: "de", platform: .iPad), scope: .user("1"))
        // Then a player's key finds nothing, and the bundled content is there
        #expect(tier.entry(for: german) == nil)
        #expect(tier.entry(for: .categories(bundledEnglish))?.origin == .bundled)
    }

    // MARK: - A directory without a usable manifest

    @Test(arguments: BundledBrokenManifest.allCases)
    func aDirectoryWithoutAUsableManifestIsAnEmptyTier(_ breakage: BundledBrokenManifest) throws {
        // Given a snapshot directory whose manifest is broken in one way
        let fixture = try BundledSnapshotFixture()
        let directory = try breakage.apply(to: fixture)
        let logs = LogRecorder()
        // When a tier launches on it
        var limits = SnapshotLimits.default
        limits.maxManifestBytes = 64 << 10
        limits.maxFileCount = BundledBrokenManifest.maxFileCount
        let tier = BundledTier(configuration: .init(directory: directory, limits: limits), logger: logs.logger)
        // Then it is empty: no manifest, no editions, every lookup nil, nothing counted, one .error line
        #expect(tier.head == nil)
        #expect(tier.editions.isEmpty)
        #expect(tier.defaultEdition == nil)
        #expect(tier.generatedAt == nil)
        #expect(tier.edition(language: "en", platform: .iPhone) == nil)
        #expect(tier.entry(for: .categories(bundledEnglish)) == nil)
        #expect(tier.entry(for: CacheKey(fixture.firstPage)) == nil)
        #expect(tier.corruptFiles == 0)
        #expect(logs.records.map(\.level) == [.error])
        #expect(logs.records.first?.metadata["cache.file"]?.hasSuffix(Manifest.fileName) == true)
        #expect(logs.records.first?.metadata["cache.reason"]?.contains(breakage.expectedReason) == true)
    }

    // MARK: - Files that fail verification

    @Test(arguments: BundledTampering.allCases)
    func refusesAFileThatFailsVerification(_ tampering: BundledTampering) throws {
        // Given a snapshot directory whose first page was tampered with after the build
        let fixture = try BundledSnapshotFixture()
        try tampering.apply(to: fixture, key: fixture.firstPage)
        let logs = LogRecorder()
        let tier = fixture.tier(logger: logs.logger)
        // When the page is asked for
        let page = tier.entry(for: CacheKey(fixture.firstPage))
        // Then it is not served, counted once and logged at .error (the app's own bundle is broken)
        // with its key and file
        #expect(page == nil)
        #expect(tier.corruptFiles == 1)
        let failures = logs.records.filter { $0.metadata["cache.key"] != nil }
        #expect(failures.count == 1)
        #expect(failures.first?.level == .error)
        #expect(failures.first?.metadata["cache.key"] == fixture.firstPage.description)
        #expect(failures.first?.metadata["cache.file"] == fixture.manifestEntry(fixture.firstPage).path)
        #expect(logs.records.filter { $0.level > .info }.count == 1)
        // And the rest of the directory is still served
        #expect(tier.entry(for: .categories(bundledEnglish)) != nil)
    }

    @Test(arguments: BundledEnvelopeTampering.allCases)
    func refusesAFileWhoseContentDisagreesWithTheManifest(_ tampering: BundledEnvelopeTampering) throws {
        // Given a page whose JSON was edited, recompressed, and whose sizes in the manifest were updated
        let fixture = try BundledSnapshotFixture()
        try fixture.rewriteSnapshot(fixture.firstPage, as: GamesPage.self) { tampering.apply(to: &$0) }
        let tier = fixture.tier()
        // When it is asked for
        let page = tier.entry(for: CacheKey(fixture.firstPage))
        // Then it is refused and counted
        #expect(page == nil)
        #expect(tier.corruptFiles == 1)
    }

    @Test func servesAFileRecompressedWithConsistentSizes() throws {
        // Given a page decoded, re-encoded and recompressed unchanged, with its sizes updated
        let fixture = try BundledSnapshotFixture()
        try fixture.rewriteSnapshot(fixture.firstPage, as: GamesPage.self) { _ in }
        let tier = fixture.tier()
        // When it is asked for
        let page = tier.entry(for: CacheKey(fixture.firstPage))
        // Then it is served: the tampering tests fail on what they change, not on the rewrite
        #expect(page?.content == .gamesPage(fixture.page(fixture.firstPage)))
        #expect(tier.corruptFiles == 0)
    }

    @Test func refusesAFileWhoseSHA256DiffersFromTheManifests() throws {
        // Given a page with unchanged content, pretty-printed, whose sizes (not its SHA-256) the
        // manifest was given: every other check would pass
        let fixture = try BundledSnapshotFixture()
        let json = try Gzip.decompress(Data(contentsOf: fixture.url(of: fixture.firstPage)), limit: 64 << 20)
        let object = try JSONSerialization.jsonObject(with: json)
        let pretty = try Gzip.compress(
            try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]))
        let sha256 = fixture.manifestEntry(fixture.firstPage).sha256
        try fixture.overwrite(fixture.firstPage, with: pretty, updatingEntry: true)
        try fixture.updateManifest { manifest in
            manifest.files[manifest.files.firstIndex { $0.key == fixture.firstPage }!].sha256 = sha256
        }
        let logs = LogRecorder()
        let tier = fixture.tier(logger: logs.logger)
        // When it is asked for
        let page = tier.entry(for: CacheKey(fixture.firstPage))
        // Then it is refused, counted and logged as changed since the build
        #expect(page == nil)
        #expect(tier.corruptFiles == 1)
        #expect(logs.records.contains { $0.metadata["cache.reason"]?.contains("(checksum-mismatch)") == true })
        // And with the manifest's digest its own, the same bytes are served: canonical form is
        // what the validator proves at build time, not what each launch re-proves
        try fixture.overwrite(fixture.firstPage, with: pretty, updatingEntry: true)
        let served = fixture.tier().entry(for: CacheKey(fixture.firstPage))
        #expect(served?.content == .gamesPage(fixture.page(fixture.firstPage)))
    }

    @Test(arguments: [
        BundledUnsafePath.parentTraversal, .deepTraversal, .absoluteOutside, .absoluteSystemFile, .dotComponent,
        .emptyComponent,
    ])
    func neverOpensAPathOutsideTheDirectory(_ unsafe: BundledUnsafePath) throws {
        // Given a manifest entry whose path leads out of the directory, to a copy of a valid file
        let fixture = try BundledSnapshotFixture()
        let outside = fixture.root.appendingPathComponent("outside.json.gz")
        try FileManager.default.copyItem(at: fixture.url(of: fixture.firstPage), to: outside)
        let path = unsafe.path(outside: outside)
        try fixture.updateManifest { manifest in
            let index = manifest.files.firstIndex { $0.key == fixture.firstPage }!
            manifest.files[index].path = path
        }
        let logs = LogRecorder()
        let tier = fixture.tier(logger: logs.logger)
        // When the page is asked for
        let page = tier.entry(for: CacheKey(fixture.firstPage))
        // Then the manifest breaks the contract: the tier is empty, nothing is opened, and the log
        // names the manifest and the unsafe entry
        #expect(page == nil)
        #expect(tier.head == nil)
        #expect(tier.corruptFiles == 0)
        #expect(
            logs.records.contains {
                $0.level == .error && $0.metadata["cache.file"]?.hasSuffix(Manifest.fileName) == true
                    && $0.metadata["cache.reason"]?.contains("unsafe-path") == true
            })
    }

    @Test func refusesAManifestThatListsFilesOverTheConfiguredCap() throws {
        // Given a tier that accepts files of at most 256 bytes
        let fixture = try BundledSnapshotFixture()
        var limits = SnapshotLimits.default
        limits.maxFileBytes = 256
        let tier = BundledTier(
            configuration: .init(directory: fixture.out, limits: limits), logger: bundledQuietLogger())
        // When a page (a few KB) is asked for
        let page = tier.entry(for: CacheKey(fixture.firstPage))
        // Then the manifest that announces it is refused before any file is opened
        #expect(page == nil)
        #expect(tier.head == nil)
    }

    @Test func refusesAFileLargerThanTheCapAlthoughTheManifestUnderstatesIt() throws {
        // Given a page replaced by a file one byte over the cap while the manifest still announces
        // its old size, read by a tier whose cap is the largest size the manifest announces
        let fixture = try BundledSnapshotFixture()
        var limits = SnapshotLimits.default
        limits.maxFileBytes = fixture.manifest.files.map(\.compressedBytes).max()!
        try Data(repeating: 0x1F, count: limits.maxFileBytes + 1).write(to: fixture.url(of: fixture.firstPage))
        let tier = BundledTier(
            configuration: .init(directory: fixture.out, limits: limits), logger: bundledQuietLogger())
        // When it is asked for
        let page = tier.entry(for: CacheKey(fixture.firstPage))
        // Then fstat's size is refused before any byte is read, and counted
        #expect(page == nil)
        #expect(tier.corruptFiles == 1)
    }

    @Test func aDirectoryKeptOpenThatIsSwappedForALinkIsNotFollowed() throws {
        // Given a tier that has read a page, so keeps its edition's games directory open
        let fixture = try BundledSnapshotFixture()
        let tier = fixture.tier()
        #expect(tier.entry(for: CacheKey(fixture.firstPage)) != nil)
        // When that directory is swapped for a link to a copy of it
        let games = fixture.url(of: fixture.firstPage).deletingLastPathComponent().deletingLastPathComponent()
        let copy = fixture.root.appendingPathComponent("games-copy", isDirectory: true)
        try FileManager.default.copyItem(at: games, to: copy)
        try FileManager.default.removeItem(at: games)
        try FileManager.default.createSymbolicLink(at: games, withDestinationURL: copy)
        // Then another category's page is not read through the link, by that tier or a new one
        let second = SnapshotKey.gamesPage(
            bundledEnglish, categoryId: fixture.categories(bundledEnglish).items[1].id, offset: 0)
        #expect(tier.entry(for: CacheKey(second)) == nil)
        #expect(fixture.tier().entry(for: CacheKey(second)) == nil)
        // And a page of the original directory it had read stays as it was served
        #expect(tier.entry(for: CacheKey(fixture.firstPage)) != nil)
    }

    @Test func readsADirectoryReachedThroughASymbolicLink() throws {
        // Given the snapshot directory handed over through a link (as /var on Apple platforms is)
        let fixture = try BundledSnapshotFixture()
        let link = fixture.root.appendingPathComponent("linked-out")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: fixture.out)
        // When a tier reads it
        let tier = BundledTier(configuration: .init(directory: link), logger: bundledQuietLogger())
        // Then it serves it: only links inside the directory are refused
        #expect(tier.head == fixture.manifest.head)
        #expect(tier.entry(for: CacheKey(fixture.firstPage)) != nil)
        #expect(tier.corruptFiles == 0)
    }
}

// MARK: - Fixtures

private let bundledEnglish = try! Edition(language: "en", platform: .iPhone)
private let bundledFrench = try! Edition(language: "fr", platform: .iPhone)

/// How many of this process's descriptors name `directory` or something in it (`/proc/self/fd`'s
/// links); `nil` where there is no `/proc`.
private func openDescriptors(under directory: URL) -> Int? {
    let files = FileManager.default
    guard let numbers = try? files.contentsOfDirectory(atPath: "/proc/self/fd") else { return nil }
    let path = directory.resolvingSymlinksInPath().path
    return numbers.filter { number in
        guard let target = try? files.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(number)") else { return false }
        return target == path || target.hasPrefix(path + "/")
    }.count
}

private func bundledQuietLogger() -> Logger {
    Logger(label: "t") { _ in SwiftLogNoOpLogHandler() }
}

/// A committed snapshot directory (``BundleFixture``) copied into a fresh temporary directory,
/// removed with it, without its index: the tests edit `manifest.json`, which a tier reads when
/// there is no index. The index's tests write it back (``writeIndex()``).
private final class BundledSnapshotFixture {
    let root: URL
    let out: URL
    let catalog: Catalog
    private(set) var manifest: Manifest
    private let directory: TemporaryDirectory

    init(_ name: BundleFixture.Name = .lobby) throws {
        directory = try TemporaryDirectory()
        let bundle = try BundleFixture(name, in: directory)
        root = directory.url
        out = bundle.directory
        catalog = bundle.catalog
        manifest = bundle.manifest
        try FileManager.default.removeItem(at: out.appendingPathComponent(SnapshotIndex.fileName))
        try FileManager.default.removeItem(at: out.appendingPathComponent(SnapshotIndex.partsDirectory))
    }

    /// The first page of the default edition's first category.
    var firstPage: SnapshotKey {
        .gamesPage(bundledEnglish, categoryId: categories(bundledEnglish).items[0].id, offset: 0)
    }

    func tier(logger: Logger = bundledQuietLogger()) -> BundledTier {
        BundledTier(configuration: .init(directory: out), logger: logger)
    }

    func categories(_ edition: Edition) -> CategoryList {
        catalog.editions.first { $0.edition == edition }!.categories
    }

    func page(_ key: SnapshotKey) -> GamesPage {
        guard case .gamesPage(let edition, let categoryId, let offset) = key else { fatalError("not a page: \(key)") }
        return catalog.editions.first { $0.edition == edition }!.pages.first {
            $0.categoryId == categoryId && $0.offset == offset
        }!
    }

    /// Writes the index (``SnapshotIndex``) the manifest gives, as the pipeline does.
    func writeIndex() throws {
        try TestBundle.writeIndex(of: manifest, into: out)
    }

    func manifestEntry(_ key: SnapshotKey) -> Manifest.Entry {
        manifest.files.first { $0.key == key }!
    }

    func url(of key: SnapshotKey) -> URL {
        out.appendingPathComponent(manifestEntry(key).path)
    }

    func updateManifest(_ body: (inout Manifest) throws -> Void) throws {
        try body(&manifest)
        try CatalogCoding.prettyEncoder().encode(manifest).write(to: out.appendingPathComponent(Manifest.fileName))
    }

    /// Writes `data` over the file of `key`; with `updatingEntry`, the manifest then announces its
    /// size, its SHA-256 and, when it inflates, its inflated size: a file built with its manifest,
    /// so what refuses it is the check under test, not the digest.
    func overwrite(_ key: SnapshotKey, with data: Data, updatingEntry: Bool) throws {
        try data.write(to: url(of: key))
        guard updatingEntry else { return }
        let inflated = try? Gzip.decompress(data, limit: 64 << 20)
        try updateManifest { manifest in
            let index = manifest.files.firstIndex { $0.key == key }!
            manifest.files[index].compressedBytes = data.count
            manifest.files[index].sha256 = SHA256Digest.hex(data)
            if let inflated { manifest.files[index].uncompressedBytes = inflated.count }
        }
    }

    /// Decompresses the file of `key`, edits its envelope, recompresses it and updates its manifest
    /// entry (sizes and SHA-256).
    func rewriteSnapshot<Payload: Codable & Sendable & Hashable>(
        _ key: SnapshotKey, as type: Payload.Type, _ edit: (inout Snapshot<Payload>) -> Void
    ) throws {
        let json = try Gzip.decompress(Data(contentsOf: url(of: key)), limit: 64 << 20)
        var snapshot = try CatalogCoding.decoder().decode(Snapshot<Payload>.self, from: json)
        edit(&snapshot)
        // Canonical where it can be (Int.max has no canonical form), so the edit is what is refused.
        let edited = try (try? CanonicalJSON.encode(snapshot)) ?? CatalogCoding.encoder().encode(snapshot)
        try overwrite(key, with: Gzip.compress(edited), updatingEntry: true)
    }
}

struct BundledEditionCase: Sendable, CustomTestStringConvertible {
    var language: String
    var platform: Platform
    var expected: String

    init(_ language: String, _ platform: Platform, _ expected: String) {
        self.language = language
        self.platform = platform
        self.expected = expected
    }

    var testDescription: String { "\(language.isEmpty ? "\"\"" : language) on \(platform.rawValue) → \(expected)" }
}

enum BundledBrokenManifest: String, CaseIterable, Sendable {
    case missingDirectory, missingManifest, emptyManifest, garbageManifest, truncatedManifest
    case foreignSchemaVersion, defaultEditionNotBundled, oversizedManifest, manifestIsADirectory
    case negativeSizes, pageOffsetOfIntMax, sizesOfIntMax, overTheFileCountCap, announcesAGzipBomb

    /// The file-count cap of the tier under test: above the fixture's count of files.
    static let maxFileCount = 40

    /// What the log's reason names.
    var expectedReason: String {
        switch self {
        case .missingDirectory, .missingManifest: "not-found"
        case .emptyManifest, .garbageManifest, .truncatedManifest: "undecodable"
        case .foreignSchemaVersion: "foreign-schema"
        case .oversizedManifest: "too-large"
        case .manifestIsADirectory: "not-regular-file"
        case .defaultEditionNotBundled, .negativeSizes, .sizesOfIntMax, .overTheFileCountCap, .announcesAGzipBomb:
            "invalid-manifest"
        case .pageOffsetOfIntMax: "undecodable"  // a key's offset has at most 18 digits
        }
    }

    /// Breaks the fixture's manifest; returns the directory to open.
    fileprivate func apply(to fixture: BundledSnapshotFixture) throws -> URL {
        let manifestURL = fixture.out.appendingPathComponent(Manifest.fileName)
        switch self {
        case .missingDirectory:
            return fixture.root.appendingPathComponent("no-such-directory")
        case .missingManifest:
            try FileManager.default.removeItem(at: manifestURL)
        case .emptyManifest:
            try Data().write(to: manifestURL)
        case .garbageManifest:
            try Data("{\"schemaVersion\": 1, \"files\": 42}".utf8).write(to: manifestURL)
        case .truncatedManifest:
            let data = try Data(contentsOf: manifestURL)
            try data.prefix(data.count / 2).write(to: manifestURL)
        case .foreignSchemaVersion:
            try fixture.updateManifest { $0.schemaVersion = 99 }
        case .defaultEditionNotBundled:
            try fixture.updateManifest { $0.defaultEdition = try Edition(language: "de", platform: .iPhone) }
        case .oversizedManifest:
            // The tier under test accepts 64 KiB; pad a valid manifest past it.
            var data = try Data(contentsOf: manifestURL)
            data.append(Data(repeating: UInt8(ascii: " "), count: 65 << 10))
            try data.write(to: manifestURL)
        case .manifestIsADirectory:
            try FileManager.default.removeItem(at: manifestURL)
            try FileManager.default.createDirectory(at: manifestURL, withIntermediateDirectories: false)
        case .negativeSizes:
            try fixture.updateManifest { manifest in
                manifest.files[1].compressedBytes = -1
                manifest.files[1].uncompressedBytes = -2
            }
        case .pageOffsetOfIntMax:
            let text = try String(contentsOf: manifestURL, encoding: .utf8)
            let key = fixture.firstPage.description
            try text.replacingOccurrences(of: "\"\(key)\"", with: "\"\(key.dropLast())9223372036854775807\"")
                .write(to: manifestURL, atomically: false, encoding: .utf8)
        case .sizesOfIntMax:
            try fixture.updateManifest { manifest in
                manifest.files[1].compressedBytes = Int.max
                manifest.files[1].uncompressedBytes = Int.max
            }
        case .announcesAGzipBomb:
            // The manifest honestly announces 64 MiB of JSON: over the contract's inflated cap.
            try fixture.overwrite(fixture.firstPage, with: Gzip.compress(Data(count: 64 << 20)), updatingEntry: true)
        case .overTheFileCountCap:
            try fixture.updateManifest { manifest in
                let entry = manifest.files[1]
                manifest.files = (0...Self.maxFileCount).map { _ in entry }
            }
        }
        return fixture.out
    }
}

enum BundledBrokenIndex: String, CaseIterable, Sendable {
    case garbageIndex, foreignSchemaIndex, editionsOutOfOrder, tableCutShort, tableCutAtARow, notATable
    case tableIsASymbolicLink, tableOfAnotherEdition, tableMissing

    /// The file the log names.
    var file: String {
        switch self {
        case .garbageIndex, .foreignSchemaIndex, .editionsOutOfOrder: SnapshotIndex.fileName
        default: SnapshotIndex.path(of: bundledEnglish)
        }
    }

    /// What the log's reason names.
    var expectedReason: String {
        switch self {
        case .garbageIndex, .tableCutShort, .tableCutAtARow, .notATable: "undecodable"
        case .foreignSchemaIndex: "foreign-schema"
        case .editionsOutOfOrder, .tableOfAnotherEdition: "invalid-manifest"
        case .tableIsASymbolicLink: "not-regular-file"
        case .tableMissing: "not-found"
        }
    }

    fileprivate func apply(to fixture: BundledSnapshotFixture) throws {
        let indexURL = fixture.out.appendingPathComponent(SnapshotIndex.fileName)
        let tableURL = fixture.out.appendingPathComponent(SnapshotIndex.path(of: bundledEnglish))
        func editIndex(_ edit: (inout SnapshotIndex) throws -> Void) throws {
            var index = try CatalogCoding.decoder().decode(SnapshotIndex.self, from: Data(contentsOf: indexURL))
            try edit(&index)
            try CatalogCoding.encoder().encode(index).write(to: indexURL)
        }
        switch self {
        case .garbageIndex:
            try Data("{\"schemaVersion\": 1, \"editions\": 42}".utf8).write(to: indexURL)
        case .foreignSchemaIndex:
            try editIndex { $0.head.schemaVersion = 99 }
        case .editionsOutOfOrder:
            try editIndex { $0.head.editions.reverse() }
        case .tableCutShort:
            try Data(contentsOf: tableURL).dropLast(40).write(to: tableURL)
        case .tableCutAtARow:
            // Every row whole, the count line gone: only the count tells.
            let lines = try String(contentsOf: tableURL, encoding: .utf8).split(separator: "\n")
            try Data((lines.dropLast().joined(separator: "\n") + "\n").utf8).write(to: tableURL)
        case .notATable:
            // A row of seven fields.
            let text = try String(contentsOf: tableURL, encoding: .utf8)
            try Data(text.replacingOccurrences(of: "\tsha256:", with: " sha256:").utf8).write(to: tableURL)
        case .tableIsASymbolicLink:
            let copy = fixture.root.appendingPathComponent("table-copy.tsv")
            try FileManager.default.copyItem(at: tableURL, to: copy)
            try FileManager.default.removeItem(at: tableURL)
            try FileManager.default.createSymbolicLink(at: tableURL, withDestinationURL: copy)
        case .tableOfAnotherEdition:
            // The French table under the English name: every row well formed, of the wrong edition.
            try Data(contentsOf: fixture.out.appendingPathComponent(SnapshotIndex.path(of: bundledFrench)))
                .write(to: tableURL)
        case .tableMissing:
            try FileManager.default.removeItem(at: tableURL)
        }
    }
}

enum BundledTampering: String, CaseIterable, Sendable {
    case flippedDeflateByte, flippedCRCByte, truncated, truncatedWithEntryUpdated, emptyWithEntryUpdated
    case trailingBytesWithEntryUpdated, missing, directoryInPlace, fifoInPlace, symbolicLinkToACopy
    case symbolicLinkedCategoryDirectory, symbolicLinkedGamesDirectory, gzipBombManifestUnchanged,
        gzipBombWithCompressedSizeAndDigestUpdated
    case anotherPagesBytesWithEntryUpdated

    fileprivate func apply(to fixture: BundledSnapshotFixture, key: SnapshotKey) throws {
        let url = fixture.url(of: key)
        let original = try Data(contentsOf: url)
        let files = FileManager.default
        switch self {
        case .flippedDeflateByte:
            var data = original
            data[data.count / 2] ^= 0xFF
            try data.write(to: url)
        case .flippedCRCByte:
            var data = original
            data[data.count - 8] ^= 0x01
            try data.write(to: url)
        case .truncated:
            try original.dropLast(10).write(to: url)
        case .truncatedWithEntryUpdated:
            try fixture.overwrite(key, with: original.dropLast(10), updatingEntry: true)
        case .emptyWithEntryUpdated:
            try fixture.overwrite(key, with: Data(), updatingEntry: true)
        case .trailingBytesWithEntryUpdated:
            try fixture.overwrite(key, with: original + Data([0, 0, 0, 0]), updatingEntry: true)
        case .missing:
            try files.removeItem(at: url)
        case .directoryInPlace:
            try files.removeItem(at: url)
            try files.createDirectory(at: url, withIntermediateDirectories: false)
        case .fifoInPlace:
            try files.removeItem(at: url)
            #expect(mkfifo(url.path, 0o644) == 0)
        case .symbolicLinkToACopy:
            let copy = fixture.root.appendingPathComponent("copy.json.gz")
            try original.write(to: copy)
            try files.removeItem(at: url)
            try files.createSymbolicLink(at: url, withDestinationURL: copy)
        case .symbolicLinkedCategoryDirectory:
            let directory = url.deletingLastPathComponent()
            let copy = fixture.root.appendingPathComponent("category-copy", isDirectory: true)
            try files.copyItem(at: directory, to: copy)
            try files.removeItem(at: directory)
            try files.createSymbolicLink(at: directory, withDestinationURL: copy)
        case .symbolicLinkedGamesDirectory:
            // A directory a tier keeps open, above the category's.
            let directory = url.deletingLastPathComponent().deletingLastPathComponent()
            let copy = fixture.root.appendingPathComponent("games-copy", isDirectory: true)
            try files.copyItem(at: directory, to: copy)
            try files.removeItem(at: directory)
            try files.createSymbolicLink(at: directory, withDestinationURL: copy)
        case .gzipBombManifestUnchanged:
            try Gzip.compress(Data(count: 64 << 20)).write(to: url)
        case .gzipBombWithCompressedSizeAndDigestUpdated:
            let bomb = try Gzip.compress(Data(count: 64 << 20))
            try bomb.write(to: url)
            try fixture.updateManifest { manifest in
                let index = manifest.files.firstIndex { $0.key == key }!
                manifest.files[index].compressedBytes = bomb.count
                manifest.files[index].sha256 = SHA256Digest.hex(bomb)
            }
        case .anotherPagesBytesWithEntryUpdated:
            guard case .gamesPage(let edition, let categoryId, _) = key else { return }
            let next = try Data(contentsOf: fixture.url(of: .gamesPage(edition, categoryId: categoryId, offset: 10)))
            try fixture.overwrite(key, with: next, updatingEntry: true)
        }
    }
}

enum BundledEnvelopeTampering: String, CaseIterable, Sendable {
    case keyOfAnotherCategory, keyOfAnotherOffset, schemaVersion2, contentHash, payloadOffset, brokenRule
    case editionOfAnotherLanguage, payloadOffsetOfIntMax, payloadOffsetAndLimitOverflow, payloadTotalOfIntMin

    func apply(to snapshot: inout Snapshot<GamesPage>) {
        guard case .gamesPage(let edition, let categoryId, let offset) = snapshot.key else { return }
        switch self {
        case .keyOfAnotherCategory:
            snapshot.key = .gamesPage(edition, categoryId: "CATEGORY002", offset: offset)
        case .keyOfAnotherOffset:
            snapshot.key = .gamesPage(edition, categoryId: categoryId, offset: offset + 10)
        case .schemaVersion2:
            snapshot.schemaVersion = 2
        case .contentHash:
            snapshot.contentHash = "sha256:" + String(repeating: "0", count: 64)
        case .payloadOffset:
            snapshot.payload.offset = offset + 10
        case .brokenRule:
            snapshot.payload.items[0].launchUrl = "http://insecure.example.com/play"
        case .editionOfAnotherLanguage:
            snapshot.edition = bundledFrench
        case .payloadOffsetOfIntMax:  // ../shared/repro: page-offset-max
            snapshot.payload.offset = .max
        case .payloadOffsetAndLimitOverflow:  // ../shared/repro: page-offset-limit
            snapshot.payload.offset = 1 << 62
            snapshot.payload.limit = 1 << 62
            snapshot.payload.total = (1 << 62) + 1
        case .payloadTotalOfIntMin:
            snapshot.payload.total = .min
        }
    }
}

enum BundledUnsafePath: String, CaseIterable, Sendable {
    case parentTraversal, deepTraversal, absoluteOutside, absoluteSystemFile, dotComponent, emptyComponent

    func path(outside: URL) -> String {
        switch self {
        case .parentTraversal: "../outside.json.gz"
        case .deepTraversal: "../../etc/passwd"
        case .absoluteOutside: outside.path
        case .absoluteSystemFile: "/etc/passwd"
        case .dotComponent: "./en-iPhone/categories.json.gz"
        case .emptyComponent: "en-iPhone//categories.json.gz"
        }
    }
}
