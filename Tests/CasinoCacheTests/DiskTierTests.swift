@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation
@_spi(CatalogTools) import Gzip
import Logging
import Testing

// Time limits are hang detectors: generous, for a machine busy with a build beside the tests.
@Suite(.timeLimit(.minutes(5)))
struct DiskTierTests {
    // MARK: - Round trips

    @Test(arguments: DiskSampleKind.allCases)
    func entryRoundTripsThroughTheDisk(_ kind: DiskSampleKind) async throws {
        // Given a tier and an entry
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let tier = diskTier(root)
        let entry = kind.entry(etag: "\"v1\"")

        // When it is stored and flushed
        tier.store(entry)
        await tier.flush()

        // Then it reads back equal, from one gzip file
        #expect(tier.entry(for: entry.key) == entry)
        let files = diskEntryFiles(root)
        #expect(files.count == 1)
        #expect(tier.bytesOnDisk == diskFileSize(root, files[0]))
        #expect(tier.corruptEntries == 0 && tier.writeFailures == 0)
    }

    @Test func readAfterStoreSeesThePendingEntryBeforeFlush() async throws {
        // Given a tier
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let tier = diskTier(root)
        let first = DiskSampleKind.gamesPage.entry(etag: "first")
        let second = DiskSampleKind.gamesPage.entry(etag: "second")

        // When two stores for one key are followed at once by a read
        tier.store(first)
        tier.store(second)
        let pending = tier.entry(for: second.key)

        // Then the read sees the later store, before and after the disk has it
        #expect(pending == second)
        await tier.flush()
        #expect(tier.entry(for: second.key) == second)
        #expect(diskTier(root).entry(for: second.key) == second)
    }

    @Test func removeQueuedAfterStoreWins() async throws {
        // Given a stored entry
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let tier = diskTier(root)
        let entry = DiskSampleKind.categories.entry()
        tier.store(entry)

        // When it is removed before the write lands
        tier.removeEntry(for: entry.key)

        // Then it is gone at once and after the queue drains
        #expect(tier.entry(for: entry.key) == nil)
        await tier.flush()
        #expect(diskTier(root).entry(for: entry.key) == nil)
        #expect(diskEntryFiles(root).isEmpty)
        #expect(tier.bytesOnDisk == 0)
    }

    @Test func relaunchedTierReadsWhatThePreviousOneFlushed() async throws {
        // Given a tier that stored two entries and flushed
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let categories = DiskSampleKind.categories.entry(etag: "c")
        let page = DiskSampleKind.gamesPage.entry(etag: "p")
        let before = diskTier(root)
        before.store(categories)
        before.store(page)
        await before.flush()

        // When a new tier opens the same directory (a relaunch)
        let after = diskTier(root)

        // Then it serves both entries and accounts for the same bytes
        #expect(after.entry(for: categories.key) == categories)
        #expect(after.entry(for: page.key) == page)
        await after.flush()
        #expect(after.bytesOnDisk == before.bytesOnDisk)
        #expect(after.bytesOnDisk > 0)
    }

    @Test func aScanReturnsEachGlobalEntryAsAReadWouldWithQueuedChangesWinning() async throws {
        // Given a relaunched tier over two global entries and a player's entry on disk
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let first = diskTier(root)
        let categories = DiskSampleKind.categories.entry(etag: "c1")
        let page = DiskSampleKind.gamesPage.entry(etag: "p1")
        first.store(categories)
        first.store(page)
        first.store(DiskSampleKind.categories.entry(scope: .user("player-1")))
        await first.flush()
        let tier = diskTier(root)
        #expect(
            Set(await tier.storedGlobalEntries()) == [diskStored(categories), diskStored(page)])

        // When a newer page is queued and the categories' removal is queued, before either lands
        let newer = DiskSampleKind.gamesPage.entry(etag: "p2")
        tier.store(newer)
        tier.removeEntry(for: categories.key)

        // Then the scan answers what a read of each key answers: the queued page, no categories
        #expect(await tier.storedGlobalEntries() == [diskStored(newer)])
        #expect(tier.entry(for: newer.key) == newer && tier.entry(for: categories.key) == nil)
        await tier.flush()
        #expect(await diskTier(root).storedGlobalEntries() == [diskStored(newer)])
    }

    @Test func aListingNamesEachGlobalFileOnceAndSeesFilesWrittenSinceTheIndex() async throws {
        // Given five global pages and a player's entry on disk, and a relaunched tier
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let pages = (0..<5).map { number in
            diskEntry(.gamesPage(diskEdition, categoryId: "C\(number)", offset: 0), etag: "e\(number)")
        }
        let first = diskTier(root)
        for page in pages { first.store(page) }
        first.store(DiskSampleKind.categories.entry(scope: .user("player-1")))
        await first.flush()
        let tier = diskTier(root)
        await tier.flush()

        // When it lists the global files (its index built) and reads them
        let listing = try #require(await tier.globalListing(within: .seconds(60)))

        // Then the five are named, once each, and read as what was stored
        #expect(listing.names.count == 5 && Set(listing.names).count == 5 && listing.queued.isEmpty)
        let read = try #require(await tier.storedGlobalEntries(named: listing.names, within: .seconds(60)))
        #expect(Set(read) == Set(pages.map(diskStored)) && read.count == 5)
        // And once another tier has written a page, a listing of this one (its index built before)
        // names it too
        let added = diskEntry(.gamesPage(diskEdition, categoryId: "C5", offset: 0))
        first.store(added)
        await first.flush()
        let again = try #require(await tier.globalListing(within: .seconds(60)))
        let readAgain = try #require(await tier.storedGlobalEntries(named: again.names, within: .seconds(60)))
        #expect(again.names.count == 6 && Set(readAgain) == Set((pages + [added]).map(diskStored)))
    }

    @Test func aScanSkipsAFileWhoseHeaderSpellsItsKeyAnotherWay() async throws {
        // Given two flushed pages, one of them rewritten with its key spelled with a needless escape
        // (`%43` for `C`): the same key once parsed, and the name of its file still matches
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let pages = (0..<2).map { diskEntry(.gamesPage(diskEdition, categoryId: "C\($0)", offset: 0)) }
        let writer = diskTier(root)
        for page in pages { writer.store(page) }
        await writer.flush()
        let respelled = try #require(diskEntryFiles(root).first { $0.contains("C1") })
        try diskRewrite(root.appendingPathComponent(respelled)) {
            diskSet("key", to: "global/en-iPhone/games/%431/0", in: &$0)
        }

        // When a relaunched tier lists and reads the global files
        let tier = diskTier(root)
        let listing = try #require(await tier.globalListing(within: .seconds(60)))
        let read = try #require(await tier.storedGlobalEntries(named: listing.names, within: .seconds(60)))

        // Then only the page as the cache spells it is read; the other is a miss when asked for
        #expect(read == [diskStored(pages[0])])
        #expect(tier.entry(for: pages[1].key) == nil)
    }

    @Test func aRelaunchedTiersScanSkipsWhatDoesNotReadAndItsIndexCountsOnlyRegularEntryFiles() async throws {
        // Given three global pages, a player's entry, and, under global entry names, a file past the
        // entry cap, a link to a page and a directory
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let pages = (0..<3).map { diskEntry(.gamesPage(diskEdition, categoryId: "C\($0)", offset: 0), etag: "e\($0)") }
        let writer = diskTier(root, maxEntryBytes: 1 << 20)
        for page in pages { writer.store(page) }
        writer.store(DiskSampleKind.categories.entry(scope: .user("player-1")))
        await writer.flush()
        let first = try #require(diskEntryFiles(root).first { $0.hasPrefix("g_") && $0.contains("C0") })
        func name(_ readable: String) -> String { "g_\(readable)_00000000000000ff.json.gz" }
        let oversized = root.appendingPathComponent(name("big"))
        try Data(count: (1 << 20) + 1).write(to: oversized)
        let link = root.appendingPathComponent(name("link"))
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: root.appendingPathComponent(first))
        let folder = root.appendingPathComponent(name("folder"))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)

        // When a relaunched tier lists the global files and reads every one
        let tier = diskTier(root, maxEntryBytes: 1 << 20)
        let listing = try #require(await tier.globalListing(within: .seconds(60)))
        let read = try #require(await tier.storedGlobalEntries(named: listing.names, within: .seconds(60)))

        // Then the three pages are read, and the oversized file, the link and the directory skipped
        #expect(Set(read) == Set(pages.map(diskStored)) && read.count == 3)
        // And once its index is built, the oversized file is deleted, the link and the directory left
        // alone, and only the regular entry files counted
        await tier.flush()
        #expect(!FileManager.default.fileExists(atPath: oversized.path))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) != nil)
        #expect(FileManager.default.fileExists(atPath: folder.path))
        let counted = diskEntryFiles(root).filter { ![name("link"), name("folder")].contains($0) }
        #expect(tier.bytesOnDisk == counted.map { diskFileSize(root, $0) }.reduce(0, +) && counted.count == 4)
        #expect(tier.corruptEntries == 0)
    }

    @Test func aListingOfAHungTierEndsAtItsLimitOrWhenCancelledAndTheTierAnswersOnceReleased() async throws {
        // Given a page on disk, and a tier whose queue is held as a file system that hangs holds it
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let (tier, page) = await diskTierWithAPage(root)
        let release = tier.holdQueue()
        defer { release() }

        // When a listing waits at most 50 ms
        let start = ContinuousClock.now
        let timedOut = await tier.globalListing(within: .milliseconds(50))

        // Then it ends at the limit without an answer
        #expect(timedOut == nil && ContinuousClock.now - start >= .milliseconds(50))
        // And one that would wait a day ends when its task is cancelled
        let ended = Locked(false)
        let waiting = Task {
            defer { ended.withLock { $0 = true } }
            return await tier.globalListing(within: .seconds(86_400)) == nil
        }
        waiting.cancel()
        await eventually(timeout: .seconds(60)) { ended.withLock { $0 } }
        #expect(ended.withLock { $0 })
        #expect(await waiting.value)
        // And once released, the tier answers
        release()
        #expect(await diskListAndRead(tier, within: .seconds(60)) == [diskStored(page)])
    }

    @Test func randomHoldsLimitsAndCancellationsEndEveryListingAndAFreeTierAlwaysAnswers() async throws {
        // Given a tier with a page on disk
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let (tier, page) = await diskTierWithAPage(root)
        var random = SplitMix64(seed: 2611)
        for round in 0..<200 {
            // When, at random, its queue is held (a file system that hangs) and a listing waits 1-20 ms,
            // or it is free and a listing waits up to a minute, and the listing's task is cancelled before
            // it starts, while it waits, or not at all
            let isHeld = Bool.random(using: &random)
            let release = isHeld ? tier.holdQueue() : {}
            let limit = isHeld ? Duration.milliseconds(Int.random(in: 1...20, using: &random)) : .seconds(60)
            let cancelAfter = [nil, .zero, Duration.microseconds(Int.random(in: 1...5_000, using: &random))]
                .randomElement(using: &random)!
            let ended = Locked(false)
            let listing = Task {
                defer { ended.withLock { $0 = true } }
                return await diskListAndRead(tier, within: limit)
            }
            if let cancelAfter {
                if cancelAfter > .zero { try await Task.sleep(for: cancelAfter) }
                listing.cancel()
            }
            // Then every listing ends, held or not
            await eventually(timeout: .seconds(60)) { ended.withLock { $0 } }
            let didEnd = ended.withLock { $0 }
            release()
            try #require(didEnd, "round \(round): still waiting")
            let read = await listing.value
            // And a held tier answered nothing (it was released after), a free one that nobody
            // cancelled read the page, and a cancelled one read the page or nothing
            if isHeld {
                #expect(read == nil, "round \(round)")
            } else if cancelAfter == nil {
                #expect(read == [diskStored(page)], "round \(round)")
            } else {
                #expect(read == nil || read == [diskStored(page)], "round \(round)")
            }
        }
        // And the tier answers once every hold is released
        #expect(await diskListAndRead(tier, within: .seconds(60)) == [diskStored(page)])
    }

    @Test func aFileOfThePreviousFormatIsNotSentForValidationAndAReadDeletesIt() async throws {
        // Given a page written by 0.1.0: one gzip'd object, no header, no content hash
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let (_, page) = await diskTierWithAPage(root)
        let file = root.appendingPathComponent(try #require(diskEntryFiles(root).first))
        try diskDowngrade(file)
        #expect(try Data(contentsOf: file).prefix(2) == Data([0x1F, 0x8B]))
        // When a relaunched tier scans it for bulk validation
        let tier = diskTier(root)
        // Then the scan passes over it, and leaves it as it is
        #expect(await tier.storedGlobalEntries().isEmpty)
        #expect(FileManager.default.fileExists(atPath: file.path) && tier.corruptEntries == 0)
        // And a read of its key is a miss that deletes it, counted once
        #expect(tier.entry(for: page.key) == nil)
        #expect(tier.entry(for: page.key) == nil)
        await tier.flush()
        #expect(!FileManager.default.fileExists(atPath: file.path) && tier.corruptEntries == 1)
    }

    @Test func aRenewalMovesOnlyTheFilesModificationTime() async throws {
        // Given a page on disk, its file modified when it was stored
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let (tier, page) = await diskTierWithAPage(root)
        let file = root.appendingPathComponent(try #require(diskEntryFiles(root).first))
        let before = try Data(contentsOf: file)
        #expect(try diskModified(file) == diskStoredAt)
        // When a scan finds it, and the upstream confirms it a day later with the same ETag
        let stored = try #require(await tier.storedGlobalEntries().first)
        let later = diskStoredAt.addingTimeInterval(86_400)
        tier.renew([(stored, "p1")], at: later)
        // Then a read answers it renewed at once, before the renewal lands
        var renewed = page
        renewed.storedAt = later
        #expect(tier.entry(for: page.key) == renewed)
        await tier.flush()
        // And on disk not a byte changed: the file's modification time says when it was renewed
        #expect(try Data(contentsOf: file) == before)
        #expect(try diskModified(file) == later)
        #expect(diskTier(root).entry(for: page.key) == renewed)
        #expect(await diskTier(root).storedGlobalEntries() == [diskStored(renewed)])
    }

    @Test func aModificationTimeBeforeTheStoredTimeIsIgnored() async throws {
        // Given a page on disk whose file's modification time was set back a year
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let (_, page) = await diskTierWithAPage(root)
        let file = root.appendingPathComponent(try #require(diskEntryFiles(root).first))
        try FileManager.default.setAttributes(
            [.modificationDate: diskStoredAt.addingTimeInterval(-365 * 86_400)], ofItemAtPath: file.path)
        // When a relaunched tier reads it, then it is as old as its header says, never older
        #expect(diskTier(root).entry(for: page.key) == page)
    }

    @Test func aRenewalWithANewETagWritesANewHeaderBeforeTheSameCompressedContent() async throws {
        // Given a page on disk
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let (tier, page) = await diskTierWithAPage(root)
        let file = root.appendingPathComponent(try #require(diskEntryFiles(root).first))
        let (_, payload) = try diskSplit(file)
        // When a scan finds it, and the upstream confirms it a day later with a new ETag
        let stored = try #require(await tier.storedGlobalEntries().first)
        let later = diskStoredAt.addingTimeInterval(86_400)
        tier.renew([(stored, "p2")], at: later)
        // Then a read answers it renewed at once, as network content, before the write lands
        var renewed = page
        renewed.storedAt = later
        renewed.etag = "p2"
        #expect(tier.entry(for: page.key) == renewed)
        await tier.flush()
        // And on disk only the header changed: the compressed content is byte for byte the same
        #expect(try diskSplit(file).payload == payload)
        #expect(diskTier(root).entry(for: page.key) == renewed)
        #expect(await diskTier(root).storedGlobalEntries() == [diskStored(renewed)])
    }

    @Test func aRenewalOfOtherContentOrOfAFileChangedSinceTheScanDoesNothing() async throws {
        // Given a page on disk, as a scan found it
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let (tier, page) = await diskTierWithAPage(root)
        let file = root.appendingPathComponent(try #require(diskEntryFiles(root).first))
        let before = try Data(contentsOf: file)
        let scanned = try #require(await tier.storedGlobalEntries().first)
        let later = diskStoredAt.addingTimeInterval(86_400)
        // When a renewal with a new ETag names another content's hash
        var other = scanned
        other.contentHash = "sha256:" + String(repeating: "0", count: 64)
        tier.renew([(other, nil)], at: later)
        await tier.flush()
        // Then the file and what a read answers are unchanged
        #expect(try Data(contentsOf: file) == before)
        #expect(tier.entry(for: page.key) == page)
        // When the same content is stored again with a new ETag after the scan (queued or landed,
        // whichever comes first), then the scan's renewal arrives
        var newer = DiskSampleKind.gamesPage.entry(etag: "p2")
        newer.storedAt = later.addingTimeInterval(-60)
        tier.store(newer)
        tier.renew([(scanned, "p1")], at: later)
        // Then the new store wins, now and on disk
        #expect(tier.entry(for: page.key) == newer)
        await tier.flush()
        #expect(diskTier(root).entry(for: page.key) == newer)
        // When a removal is queued before a renewal of what a scan found
        let rescanned = try #require(await tier.storedGlobalEntries().first)
        tier.removeEntry(for: page.key)
        tier.renew([(rescanned, "p2")], at: later)
        await tier.flush()
        // Then the removal removes
        #expect(diskTier(root).entry(for: page.key) == nil)
        #expect(diskEntryFiles(root).isEmpty)
    }

    @Test func fileNameCarriesScopeReadablePrefixAndHash() async throws {
        // Given a global page and a user's page
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let tier = diskTier(root)
        let global = diskEntry(.gamesPage(diskEdition, categoryId: "VIDEOSLOTS", offset: 10))
        let personal = diskEntry(.gamesPage(diskEdition, categoryId: "VIDEOSLOTS", offset: 10), scope: .user("u1"))

        // When both are stored
        tier.store(global)
        tier.store(personal)
        await tier.flush()

        // Then each file is named <scope>_<readable>_<16 hex>.json.gz
        let names = diskEntryFiles(root)
        #expect(names.count == 2)
        let globalName = try #require(names.first { $0.hasPrefix("g_") })
        #expect(globalName.hasPrefix("g_en-iPhone-games-VIDEOSLOTS-10_"))
        #expect(diskIsHexStem(globalName, afterPrefix: "g_en-iPhone-games-VIDEOSLOTS-10_"))
        // the hash: 64-bit FNV-1a of "global/en-iPhone/games/VIDEOSLOTS/10" (computed outside Swift)
        #expect(globalName == "g_en-iPhone-games-VIDEOSLOTS-10_23da736a7ed61a15.json.gz")
        let userName = try #require(names.first { $0.hasPrefix("u") })
        #expect(userName.utf8.count == globalName.utf8.count + 16)
        #expect(!userName.contains("u1_"))
    }

    // MARK: - Unusable files

    @Test(arguments: DiskDamage.allCases)
    func unusableFileIsAMissDeletedAndCounted(_ damage: DiskDamage) async throws {
        // Given a flushed entry (and a second one to borrow a file from)
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let tier = diskTier(root, maxEntryBytes: 1 << 20)
        let victim = DiskSampleKind.gamesPage.entry()
        let other = DiskSampleKind.categories.entry()
        tier.store(victim)
        await tier.flush()
        let victimFile = try #require(diskEntryFiles(root).first)
        tier.store(other)
        await tier.flush()
        let otherFile = try #require(diskEntryFiles(root).first { $0 != victimFile })

        // When the victim's file is damaged
        try damage.apply(to: root.appendingPathComponent(victimFile), borrowing: root.appendingPathComponent(otherFile))

        // Then reading it is a miss, counted once, and the file is deleted
        #expect(tier.entry(for: victim.key) == nil)
        #expect(tier.entry(for: victim.key) == nil)
        #expect(tier.corruptEntries == 1)
        await tier.flush()
        #expect(!diskEntryFiles(root).contains(victimFile))
        #expect(tier.entry(for: other.key) == other)
        #expect(tier.corruptEntries == 1)
        // And the key can be stored again
        tier.store(victim)
        await tier.flush()
        #expect(diskTier(root).entry(for: victim.key) == victim)
    }

    @Test func aSymbolicLinkPlantedInPlaceOfAnEntryIsNotFollowed() async throws {
        // Given a flushed entry whose file is then replaced by a link to another entry's file
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let tier = diskTier(root)
        let victim = DiskSampleKind.gamesPage.entry()
        tier.store(victim)
        await tier.flush()
        let victimFile = try #require(diskEntryFiles(root).first)
        let elsewhere = root.appendingPathComponent("elsewhere.json.gz")
        try FileManager.default.moveItem(at: root.appendingPathComponent(victimFile), to: elsewhere)
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent(victimFile), withDestinationURL: elsewhere)
        // When a fresh tier reads the key
        // Then it is a miss: the link is refused, not followed to the (valid) file it points at
        #expect(diskTier(root).entry(for: victim.key) == nil)
    }

    @Test func cacheVersionBumpIgnoresAndRemovesOldEntries() async throws {
        // Given entries written with cache version 1
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let old = diskTier(root, cacheVersion: 1)
        let entry = DiskSampleKind.gamesPage.entry(etag: "old")
        old.store(entry)
        await old.flush()

        // When the app ships cache version 2
        let bumped = diskTier(root, cacheVersion: 2)

        // Then the old entry is a miss, deleted and counted
        #expect(bumped.entry(for: entry.key) == nil)
        #expect(bumped.corruptEntries == 1)
        await bumped.flush()
        #expect(diskEntryFiles(root).isEmpty)
        #expect(bumped.bytesOnDisk == 0)
        // And new entries work
        let fresh = DiskSampleKind.gamesPage.entry(etag: "new")
        bumped.store(fresh)
        await bumped.flush()
        #expect(diskTier(root, cacheVersion: 2).entry(for: fresh.key) == fresh)
    }

    // MARK: - Hostile keys

    @Test(
        arguments: ["a/b", "../../../etc/passwd", "..", "/", "nul\u{0}byte", "🎰🎲 Slots", "a\\b:c*?", ""]
            .map(DiskHostileID.init))
    func hostileCategoryIdRoundTripsInsideTheDirectory(_ hostile: DiskHostileID) async throws {
        let categoryId = hostile.text
        // Given a cache directory inside an otherwise empty folder
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let directory = root.appendingPathComponent("cache")
        let tier = DiskTier(configuration: .init(directory: directory), logger: diskLogger)
        // A page names its category as its key does, and the schema refuses control characters and
        // empty ids in content: such text is carried by the user scope alone.
        let isValidAsContent = !categoryId.isEmpty && !categoryId.unicodeScalars.contains { $0.value < 0x20 }
        let key = CacheKey.gamesPage(
            diskEdition, categoryId: isValidAsContent ? categoryId : "HOSTILE", offset: 0, scope: .user(categoryId))
        let entry = diskEntry(key.content, scope: key.scope)

        // When an entry whose key holds / .. NUL or emoji is stored
        tier.store(entry)
        await tier.flush()

        // Then it reads back, and its one file is a short ASCII name inside the directory
        #expect(tier.entry(for: key) == entry)
        #expect(diskTier(directory).entry(for: key) == entry)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["cache"])
        let names = diskEntryFiles(directory)
        #expect(names.count == 1)
        let name = try #require(names.first)
        #expect(name.utf8.count < 100)
        #expect(name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") })
        #expect(!name.contains(".."))
    }

    // MARK: - Size limit

    @Test func aFileOverTheEntryCapIsRemovedAtScanAndNeverCounted() async throws {
        // Given a flushed entry, and an entry file grown to a 1 GiB sparse file
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let first = diskTier(root)
        let kept = DiskSampleKind.categories.entry()
        let planted = DiskSampleKind.gamesPage.entry()
        first.store(kept)
        await first.flush()
        let keptFile = try #require(diskEntryFiles(root).first)
        first.store(planted)
        await first.flush()
        let plantedName = try #require(diskEntryFiles(root).first { $0 != keptFile })
        let handle = try FileHandle(forWritingTo: root.appendingPathComponent(plantedName))
        try handle.truncate(atOffset: 1 << 30)
        try handle.close()
        // When a relaunched tier scans the directory before its first write
        let relaunched = diskTier(root)
        relaunched.store(DiskSampleKind.gamesPage.entry(scope: .user("1")))
        await relaunched.flush()
        // Then the oversized file is gone, not counted, and the other entry was not evicted for it
        #expect(!diskEntryFiles(root).contains(plantedName))
        #expect(relaunched.bytesOnDisk < 1 << 20)
        #expect(relaunched.entry(for: kept.key) == kept)
        #expect(relaunched.evictions == 0)
    }

    @Test func aScanOfThousandsOfFilesCountsEachEntryOnceDeletesTheOversizedAndLeavesALinkAlone() async throws {
        // Given 5,000 entry files, an entry-named file grown past the entry cap, and an entry-named
        // link to one of the entries
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let first = diskTier(root)
        let kept = DiskSampleKind.categories.entry()
        first.store(kept)
        await first.flush()
        let keptName = try #require(diskEntryFiles(root).first)
        let bytes = try Data(contentsOf: root.appendingPathComponent(keptName))
        func name(_ readable: String, _ number: Int) -> String {
            let hex = String(number, radix: 16)
            return "g_\(readable)_\(String(repeating: "0", count: 16 - hex.count) + hex).json.gz"
        }
        for number in 1..<5_000 { try bytes.write(to: root.appendingPathComponent(name("copy", number))) }
        let oversized = root.appendingPathComponent(name("big", 1))
        try Data().write(to: oversized)
        let handle = try FileHandle(forWritingTo: oversized)
        try handle.truncate(atOffset: 1 << 30)
        try handle.close()
        let link = root.appendingPathComponent(name("link", 1))
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: root.appendingPathComponent(keptName))
        // When a relaunched tier scans the directory
        let relaunched = diskTier(root)
        await relaunched.flush()
        // Then each regular entry file counts once, the oversized one is gone, and the link is
        // neither counted nor deleted
        #expect(relaunched.bytesOnDisk == 5_000 * bytes.count)
        #expect(!FileManager.default.fileExists(atPath: oversized.path))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) != nil)
        #expect(relaunched.entry(for: kept.key) == kept)
    }

    @Test func leastRecentlyReadEntryIsEvictedFirst() async throws {
        // Given the size of one page entry on disk
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let measure = diskTier(root.appendingPathComponent("measure"))
        measure.store(diskPage("A"))
        await measure.flush()
        let size = measure.bytesOnDisk
        // and a tier that holds three and a half of them, holding A, B and C
        let tier = diskTier(root.appendingPathComponent("cache"), sizeLimit: size * 7 / 2)
        let (a, b, c, d) = (diskPage("A"), diskPage("B"), diskPage("C"), diskPage("D"))
        for entry in [a, b, c] { tier.store(entry) }
        await tier.flush()
        #expect(tier.evictions == 0)

        // When A is read and D is stored
        #expect(tier.entry(for: a.key) == a)
        tier.store(d)
        await tier.flush()

        // Then B, the least recently used, is evicted and the rest fit
        #expect(tier.evictions == 1)
        #expect(tier.entry(for: b.key) == nil)
        #expect(tier.entry(for: a.key) == a)
        #expect(tier.entry(for: c.key) == c)
        #expect(tier.entry(for: d.key) == d)
        #expect(tier.bytesOnDisk <= size * 7 / 2)
        #expect(diskEntryFiles(root.appendingPathComponent("cache")).count == 3)
    }

    @Test func entryLargerThanTheSizeLimitIsNotKept() async throws {
        // Given a tier whose size limit is smaller than one entry, holding an older copy
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let old = DiskSampleKind.categories.entry(etag: "old")
        let roomy = diskTier(root)
        roomy.store(old)
        await roomy.flush()
        let tier = diskTier(root, sizeLimit: 64)

        // When a new version is stored
        tier.store(DiskSampleKind.categories.entry(etag: "new"))
        await tier.flush()

        // Then nothing of the key is kept and the write counts as failed
        #expect(tier.writeFailures == 1)
        #expect(tier.entry(for: old.key) == nil)
        #expect(diskEntryFiles(root).isEmpty)
        #expect(tier.evictions == 0)
    }

    // MARK: - Unwritable directory

    @Test func unwritableDirectoryFailsWritesButReadsStillWork() async throws {
        // Given an entry on disk
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let readable = DiskSampleKind.categories.entry()
        let refused = DiskSampleKind.gamesPage.entry()
        let setup = diskTier(root)
        setup.store(refused)
        await setup.flush()
        let refusedFile = try #require(diskEntryFiles(root).first)
        setup.removeEntry(for: refused.key)
        setup.store(readable)
        await setup.flush()
        // and a directory that refuses writes: read-only, or (as root, where permission bits do
        // not stop writes) a directory squatting the entry's file name so the rename fails
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: root.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: root.path) }
        if diskCanWrite(root) {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(refusedFile), withIntermediateDirectories: false)
        }
        let tier = diskTier(root)

        // When an entry is stored
        tier.store(refused)
        await tier.flush()

        // Then the write fails without a crash, and reads keep working
        #expect(tier.writeFailures == 1)
        #expect(tier.entry(for: refused.key) == nil)
        #expect(tier.entry(for: readable.key) == readable)
        #expect(tier.corruptEntries == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).allSatisfy { !$0.hasSuffix(".tmp") })
    }

    @Test func directoryThatCannotBeCreatedFailsWritesWithoutCrashing() async throws {
        // Given a cache directory whose parent is a regular file
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let blocker = root.appendingPathComponent("blocker")
        #expect(FileManager.default.createFile(atPath: blocker.path, contents: Data("x".utf8)))
        let tier = diskTier(blocker.appendingPathComponent("cache"))
        let entry = DiskSampleKind.gamesPage.entry()

        // When entries are stored, read, removed and cleared
        tier.store(entry)
        await tier.flush()
        tier.store(DiskSampleKind.categories.entry())
        tier.removeEntry(for: entry.key)
        tier.removeAll(in: nil)
        await tier.flush()

        // Then writes fail and are counted, reads miss, nothing crashes
        #expect(tier.writeFailures >= 1)
        #expect(tier.entry(for: entry.key) == nil)
        #expect(tier.bytesOnDisk == 0)
    }

    // MARK: - Scopes

    @Test func removeAllForAUserRemovesOnlyThatUsersEntries() async throws {
        // Given global entries and entries of two users
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let tier = diskTier(root)
        let global = diskEntry(.categories(diskEdition))
        let u1 = [
            diskEntry(.categories(diskEdition), scope: .user("u1")),
            diskEntry(.gamesPage(diskEdition, categoryId: "VIDEOSLOTS", offset: 0), scope: .user("u1")),
        ]
        let u2 = diskEntry(.categories(diskEdition), scope: .user("u2"))
        for entry in [global, u2] + u1 { tier.store(entry) }
        await tier.flush()
        let queued = diskEntry(.gamesPage(diskEdition, categoryId: "LIVE", offset: 0), scope: .user("u1"))
        tier.store(queued)

        // When u1 logs out
        tier.removeAll(in: .user("u1"))

        // Then u1's entries are gone at once and on disk, the others stay
        for entry in u1 + [queued] { #expect(tier.entry(for: entry.key) == nil) }
        #expect(tier.entry(for: global.key) == global)
        #expect(tier.entry(for: u2.key) == u2)
        await tier.flush()
        let relaunched = diskTier(root)
        for entry in u1 + [queued] { #expect(relaunched.entry(for: entry.key) == nil) }
        #expect(relaunched.entry(for: global.key) == global)
        #expect(relaunched.entry(for: u2.key) == u2)
        #expect(diskEntryFiles(root).count == 2)
    }

    @Test func removeAllLeavesForeignFilesAlone() async throws {
        // Given entries and a file the tier did not write
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let tier = diskTier(root)
        tier.store(DiskSampleKind.categories.entry())
        tier.store(DiskSampleKind.gamesPage.entry(scope: .user("u1")))
        try Data("keep me".utf8).write(to: root.appendingPathComponent("notes.json.gz"))

        // When everything is removed
        tier.removeAll(in: nil)
        await tier.flush()

        // Then only the foreign file remains
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["notes.json.gz"])
        #expect(tier.bytesOnDisk == 0)
    }

    @Test func firstScanDeletesOldLeftoverTemporaryFiles() async throws {
        // Given a temporary file an interrupted write left an hour ago, and one being written now
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let leftover = root.appendingPathComponent(".casinocache-LEFTOVER.tmp")
        let recent = root.appendingPathComponent(".casinocache-RECENT.tmp")
        try Data("half".utf8).write(to: leftover)
        try Data("half".utf8).write(to: recent)
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: leftover.path)
        let tier = diskTier(root)

        // When the tier first writes
        tier.store(DiskSampleKind.categories.entry())
        await tier.flush()

        // Then the old leftover is gone, the recent one is left to its writer
        let names = try FileManager.default.contentsOfDirectory(atPath: root.path)
        #expect(!names.contains(leftover.lastPathComponent))
        #expect(names.contains(recent.lastPathComponent))
        #expect(diskEntryFiles(root).count == 1)
    }

    // MARK: - Concurrency

    @Test func concurrentStoresAndReadsEndWithTheLastWritePerKey() async throws {
        // Given a tier and eight keys
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let tier = diskTier(root)
        let keys = (0..<8).map { diskPage("C\($0)").key }

        // When 200 tasks each store two versions of one key and read others
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<200 {
                group.addTask {
                    let key = keys[task % keys.count]
                    tier.store(diskEntry(key.content, etag: "\(task)-first"))
                    let other = keys[(task * 7) % keys.count]
                    if let read = tier.entry(for: other) { #expect(read.key == other) }
                    tier.store(diskEntry(key.content, etag: "\(task)-last"))
                    _ = tier.entry(for: key)
                }
            }
        }

        // Then every key holds some task's last write, and the disk agrees after a flush
        let answers = keys.map { tier.entry(for: $0) }
        for (key, answer) in zip(keys, answers) {
            let answer = try #require(answer)
            #expect(answer.key == key)
            #expect(answer.etag?.hasSuffix("-last") == true)
        }
        await tier.flush()
        let relaunched = diskTier(root)
        #expect(keys.map { tier.entry(for: $0) } == answers)
        #expect(keys.map { relaunched.entry(for: $0) } == answers)
        #expect(diskEntryFiles(root).count == keys.count)
        #expect(tier.writeFailures == 0 && tier.corruptEntries == 0)
    }
}

extension DiskTierTests {
    @Test func randomStoresRemovalsAndRenewalsEndAsTheirOrderSaysWhileReadsRun() async throws {
        // Given a tier, three keys and a reader that reads them all the while
        let root = try diskTemporaryDirectory()
        defer { diskRemove(root) }
        let tier = diskTier(root)
        let keys = (0..<3).map { diskPage("R\($0)").key }
        let reader = Task {
            var reads = 0
            while !Task.isCancelled {
                for key in keys {
                    if let entry = tier.entry(for: key) {
                        #expect(entry.key == key && entry.content.violations().isEmpty)
                    }
                    reads += 1
                }
                await Task.yield()
            }
            return reads
        }
        // What each key should hold: its last store or removal, renewed by a renewal of what a scan
        // found only when nothing was stored or removed since that scan.
        var expected: [CacheKey: CacheEntry] = [:]
        var versions: [CacheKey: Int] = [:]
        var scans: [(entries: [DiskTier.Stored], versions: [CacheKey: Int])] = []
        // Seeded, and the seed in every issue: the order of operations repeats (the reads' timing does not).
        let seed = UInt64.random(in: 0 ... .max)
        var generator = SplitMix64(seed: seed)

        // When 1,000 rounds each store, remove, scan, renew what an earlier scan found, or flush
        for round in 0..<1_000 {
            let key = keys.randomElement(using: &generator)!
            let now = diskStoredAt.addingTimeInterval(TimeInterval(2 * round))
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<4:
                // Content that differs per store: a renewal of older content must not apply to it
                var entry = diskEntry(key.content, etag: "e\(Int.random(in: 0..<3, using: &generator))")
                if case .gamesPage(var page) = entry.content {
                    page.items[0].name = "Round \(round)"
                    entry.content = .gamesPage(page)
                }
                entry.storedAt = now
                tier.store(entry)
                expected[key] = entry
                versions[key, default: 0] += 1
            case 4:
                tier.removeEntry(for: key)
                expected[key] = nil
                versions[key, default: 0] += 1
            case 5..<7:
                scans.append((await tier.storedGlobalEntries(), versions))
            case 7..<9:
                guard let scan = scans.randomElement(using: &generator), !scan.entries.isEmpty else { continue }
                let renewedAt = now.addingTimeInterval(1)
                let renewals = scan.entries.map { (stored: $0, etag: Bool.random(using: &generator) ? $0.etag : "n") }
                tier.renew(renewals, at: renewedAt)
                for (stored, etag) in renewals
                where scan.versions[stored.key, default: 0] == versions[stored.key, default: 0] {
                    expected[stored.key]?.storedAt = renewedAt
                    expected[stored.key]?.etag = etag
                }
            default:
                await tier.flush()
            }
            // Reads answer queued changes too: the order of calls holds at every step
            for key in keys {
                let read = tier.entry(for: key)
                guard read != expected[key] else { continue }
                Issue.record(
                    "seed \(seed), round \(round): \(key) read \(read.map { "\($0.storedAt) \($0.etag ?? "-") \($0.content.ids)" } ?? "nil"), expected \(expected[key].map { "\($0.storedAt) \($0.etag ?? "-")" } ?? "nil")"
                )
            }
        }
        await tier.flush()
        reader.cancel()
        let reads = await reader.value

        // Then the tier, and a relaunched one, answer what the order of calls says
        let relaunched = diskTier(root)
        for key in keys {
            #expect(tier.entry(for: key) == expected[key])
            #expect(relaunched.entry(for: key) == expected[key])
        }
        #expect(reads > 0)
        #expect(tier.writeFailures == 0 && tier.corruptEntries == 0)
    }
}

// MARK: - Samples

/// The two kinds of content a disk entry holds.
enum DiskSampleKind: String, CaseIterable, Sendable {
    case categories
    case gamesPage

    func entry(etag: String? = nil, scope: CacheScope = .global) -> CacheEntry {
        switch self {
        case .categories: diskEntry(.categories(diskEdition), scope: scope, etag: etag)
        case .gamesPage:
            diskEntry(.gamesPage(diskEdition, categoryId: "VIDEOSLOTS", offset: 10), scope: scope, etag: etag)
        }
    }
}

/// A category id that is hard on file systems, shown escaped in test output (it may hold NUL).
struct DiskHostileID: Sendable, CustomTestStringConvertible {
    var text: String
    var testDescription: String { text.unicodeScalars.map { $0.escaped(asASCII: true) }.joined() }
}

/// Ways a disk entry file goes bad.
enum DiskDamage: String, CaseIterable, Sendable {
    case corruptBytes
    case truncated
    case zeroBytes
    case gzipBomb
    case foreignSchemaVersion
    case storedKeyDiffers
    case contentBreaksSchema
    /// A page offset of Int.max: it trapped at every launch in `violations()`.
    case pageOffsetOfIntMax
    case pageOfAnotherOffset
    /// Over the tier's `maxEntryBytes` (1 MiB here): refused from `fstat`, never read.
    case overTheEntryCap
    /// A header of 16 KiB and more: no empty line ends it.
    case headerWithoutEnd
    case headerWithoutContentHash
    case malformedContentHash
    case headerFieldsReordered
    case headerWithAnUnknownField
    case headerWithANonASCIIByte
    case storedTimeOfInt64Min
    case storedTimeOfOneTooManyDigits
    case etagNotPercentEscaped
    case aLineAfterTheETag
    case aFieldNameRunIntoItsValue
    case formatOfAnotherVersion
    /// As 0.1.0 wrote it: one gzip'd object, no header.
    case previousFormat

    func apply(to file: URL, borrowing other: URL) throws {
        let original = try Data(contentsOf: file)
        switch self {
        case .corruptBytes:
            var bytes = [UInt8](original)
            for index in stride(from: 12, to: bytes.count - 8, by: 7) { bytes[index] ^= 0x5A }
            try Data(bytes).write(to: file)
        case .truncated:
            try original.prefix(original.count / 2).write(to: file)
        case .zeroBytes:
            try Data().write(to: file)
        case .gzipBomb:
            try Gzip.compress(Data(count: 64 << 20)).write(to: file)
        case .foreignSchemaVersion:
            try diskRewrite(file) { diskSet("schema", to: "\(CatalogSchema.version + 1)", in: &$0) }
        case .storedKeyDiffers:
            try FileManager.default.removeItem(at: file)
            try FileManager.default.copyItem(at: other, to: file)
        case .contentBreaksSchema:
            try diskRewriteContent(file) { $0.replacingOccurrences(of: "https://", with: "http://") }
        case .pageOffsetOfIntMax, .pageOfAnotherOffset:
            let offset = self == .pageOffsetOfIntMax ? "\(Int.max)" : "20"
            try diskRewriteContent(file) { $0.replacingOccurrences(of: #""offset":10"#, with: #""offset":"# + offset) }
        case .overTheEntryCap:
            try Data(repeating: 0x1F, count: (1 << 20) + 1).write(to: file)
        case .headerWithoutEnd:
            try diskRewrite(file) { diskSet("key", to: String(repeating: "a", count: 16 << 10), in: &$0) }
        case .headerWithoutContentHash:
            try diskRewrite(file) { $0.removeAll { $0.name == "hash" } }
        case .malformedContentHash:
            try diskRewrite(file) { diskSet("hash", to: "sha256:../../etc", in: &$0) }
        case .headerFieldsReordered:
            try diskRewrite(file) { $0.swapAt(2, 3) }
        case .headerWithAnUnknownField:
            try diskRewrite(file) { $0.append((name: "priority", value: "high")) }
        case .headerWithANonASCIIByte:
            try diskRewrite(file) { diskSet("origin", to: "netwörk", in: &$0) }
        case .storedTimeOfInt64Min:
            try diskRewrite(file) { diskSet("stored", to: "\(Int64.min)", in: &$0) }
        case .storedTimeOfOneTooManyDigits:
            try diskRewrite(file) { diskSet("stored", to: "99999999999999999999", in: &$0) }
        case .etagNotPercentEscaped:
            try diskRewrite(file) { $0.append((name: "etag", value: "%zz")) }
        case .aLineAfterTheETag:
            try diskRewrite(file) {
                $0.append((name: "etag", value: "v1"))
                $0.append((name: "etag", value: "v2"))
            }
        case .aFieldNameRunIntoItsValue:
            try diskRewrite(file) { $0[$0.firstIndex { $0.name == "origin" }!].name = "originnetwork" }
        case .formatOfAnotherVersion:
            try diskRewrite(file) { diskSet("casinocache-entry", to: "3", in: &$0) }
        case .previousFormat:
            try diskDowngrade(file)
        }
    }
}

private let diskEdition = try! Edition(id: "en-iPhone")

private let diskLogger = Logger(label: "DiskTierTests") { _ in SwiftLogNoOpLogHandler() }

/// Whole seconds: the envelope stores ISO 8601 dates.
private let diskStoredAt = Date(timeIntervalSince1970: 1_795_168_800)

private func diskEntry(_ content: SnapshotKey, scope: CacheScope = .global, etag: String? = nil) -> CacheEntry {
    let key = CacheKey(content, scope: scope)
    switch content {
    case .categories:
        let list = CategoryList(items: [
            Category(
                id: "VIDEOSLOTS", name: "Video Slots", href: "https://api.example.com/categories/VIDEOSLOTS",
                gamesTotal: 120),
            Category(id: "LIVE", name: "Live Casino", gamesTotal: 40),
        ])
        return CacheEntry(key: key, content: .categories(list), storedAt: diskStoredAt, etag: etag)
    case .gamesPage(_, let categoryId, let offset):
        let games = (0..<10).map { index in
            Game(
                id: "\(offset + index)", name: "Game \(offset + index)", slug: "game-\(offset + index)",
                launchUrl: "https://play.example.com/games/\(offset + index)",
                thumbnail: "https://cdn.example.com/thumbs/\(offset + index).jpg",
                platforms: [.iPhone], popularity: Double(100 - index), tags: ["Free Spins"], rtp: 0.96)
        }
        let page = GamesPage(categoryId: categoryId, offset: offset, limit: 10, total: 120, items: games)
        return CacheEntry(key: key, content: .gamesPage(page), storedAt: diskStoredAt, etag: etag, origin: .network)
    }
}

private func diskPage(_ categoryId: String) -> CacheEntry {
    diskEntry(.gamesPage(diskEdition, categoryId: categoryId, offset: 0))
}

// MARK: - Files

private func diskTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("DiskTierTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

private func diskRemove(_ url: URL) {
    try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
    try? FileManager.default.removeItem(at: url)
}

private func diskTier(
    _ directory: URL, cacheVersion: Int = 1, sizeLimit: Int = 50 << 20, maxEntryBytes: Int = 16 << 20
) -> DiskTier {
    DiskTier(
        configuration: .init(
            directory: directory, cacheVersion: cacheVersion, sizeLimit: sizeLimit, maxEntryBytes: maxEntryBytes),
        logger: diskLogger)
}

/// A tier on `directory` with a page (ETag `p1`) stored and on disk.
private func diskTierWithAPage(_ directory: URL) async -> (tier: DiskTier, page: CacheEntry) {
    let page = DiskSampleKind.gamesPage.entry(etag: "p1")
    let tier = diskTier(directory)
    tier.store(page)
    await tier.flush()
    return (tier, page)
}

/// The entry files in `directory`, sorted.
private func diskEntryFiles(_ directory: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
        .filter { $0.hasSuffix(".json.gz") }.sorted()
}

private func diskFileSize(_ directory: URL, _ name: String) -> Int {
    let attributes = try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
    return (attributes?[.size] as? NSNumber)?.intValue ?? -1
}

private func diskIsHexStem(_ name: String, afterPrefix prefix: String) -> Bool {
    let hash = name.dropFirst(prefix.count).dropLast(".json.gz".count)
    return hash.count == 16 && hash.allSatisfy { $0.isHexDigit && !$0.isUppercase }
}

/// Whether a file can be created in `directory` (permission bits do not stop root).
private func diskCanWrite(_ directory: URL) -> Bool {
    let probe = directory.appendingPathComponent("probe-\(UUID().uuidString)")
    guard FileManager.default.createFile(atPath: probe.path, contents: Data()) else { return false }
    try? FileManager.default.removeItem(at: probe)
    return true
}

/// The global entries `tier` lists and then reads, each wait at most `limit`; `nil` when either
/// did not answer.
private func diskListAndRead(_ tier: DiskTier, within limit: Duration) async -> [DiskTier.Stored]? {
    guard let listing = await tier.globalListing(within: limit) else { return nil }
    return await tier.storedGlobalEntries(named: listing.names, within: limit)
}

/// What a scan of the disk tier answers for `entry`.
private func diskStored(_ entry: CacheEntry) -> DiskTier.Stored {
    DiskTier.Stored(entry, contentHash: (try? entry.content.contentHash()) ?? "")
}

/// When `file` was last modified.
private func diskModified(_ file: URL) throws -> Date? {
    try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date
}

/// An entry file's header fields (the first line's too: `casinocache-entry`, `2`), in order, and
/// its gzip'd content.
private func diskSplit(_ file: URL) throws -> (header: [(name: String, value: String)], payload: Data) {
    let data = try Data(contentsOf: file)
    let end = try #require(data.firstRange(of: Data("\n\n".utf8)))
    let lines = String(decoding: data[..<end.lowerBound], as: UTF8.self).split(separator: "\n")
    let header = lines.map { line in
        let space = line.firstIndex(of: " ") ?? line.endIndex
        return (name: String(line[..<space]), value: String(line[space...].dropFirst()))
    }
    return (header, data[end.upperBound...])
}

/// `header` and `payload` as one file's bytes.
private func diskJoin(_ header: [(name: String, value: String)], _ payload: Data) -> Data {
    Data(header.map { "\($0.name) \($0.value)\n" }.joined().utf8) + Data("\n".utf8) + payload
}

/// Sets the header field `name` to `value`.
private func diskSet(_ name: String, to value: String, in header: inout [(name: String, value: String)]) {
    header = header.map { $0.name == name ? (name, value) : $0 }
}

/// Rewrites an entry file as the previous version wrote it: one gzip'd JSON object, the content
/// (as `CatalogContent` encodes) inside it, no content hash.
private func diskDowngrade(_ file: URL) throws {
    let (header, payload) = try diskSplit(file)
    let value = { (name: String) in header.first { $0.name == name }?.value }
    let key = try #require(value("key"))
    var object: [String: Any] = [
        "key": key, "schemaVersion": Int(try #require(value("schema")))!,
        "cacheVersion": Int(try #require(value("cache")))!, "origin": try #require(value("origin")),
        "storedAt": ISO8601DateFormatter().string(
            from: Date(timeIntervalSince1970: TimeInterval(Int(try #require(value("stored")))!))),
    ]
    object["etag"] = value("etag")?.removingPercentEncoding
    let content = try JSONSerialization.jsonObject(with: Gzip.decompress(payload, limit: 1 << 20))
    object["content"] = [key.contains("/games/") ? "gamesPage" : "categories": ["_0": content]]
    try Gzip.compress(try JSONSerialization.data(withJSONObject: object)).write(to: file)
}

/// Rewrites the header of an entry file.
private func diskRewrite(_ file: URL, _ change: (inout [(name: String, value: String)]) -> Void) throws {
    var (header, payload) = try diskSplit(file)
    change(&header)
    try diskJoin(header, payload).write(to: file)
}

/// Rewrites the content JSON of an entry file, leaving its header (and the hash in it) as it was.
private func diskRewriteContent(_ file: URL, _ change: (String) -> String) throws {
    let (header, payload) = try diskSplit(file)
    let json = String(decoding: try Gzip.decompress(payload, limit: 1 << 20), as: UTF8.self)
    let changed = change(json)
    #expect(changed != json)
    try diskJoin(header, try Gzip.compress(Data(changed.utf8))).write(to: file)
}
