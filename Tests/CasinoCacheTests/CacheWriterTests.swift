@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

@_spi(CatalogTools) @testable import CasinoCache

/// The write path on its own (``CacheWriter``): clear generations, what `install` stores and
/// announces, held updates, and dropping a scope. The tiers are wired as `CatalogCache.init` wires
/// them (``WriterFixture``). A stream is read after `finish()`: what was sent is buffered, and the
/// read ends.
@Suite(.timeLimit(.minutes(1)))
struct CacheWriterTests {
    // MARK: - Clear generations

    @Test(arguments: [nil, .user("alice")] as [CacheScope?])
    func aWriteBegunBeforeAClearOfEveryScopeOrItsOwnStoresNothing(_ cleared: CacheScope?) async throws {
        // Given a write for Alice's page that noted its generation, then a clear
        let fixture = try WriterFixture(onDisk: true)
        let entry = writerEntry(writerPage("a"), key: writerAliceKey, at: fixture.clock.now)
        let generation = fixture.writer.generation(of: writerAliceKey.scope)
        fixture.writer.clear(cleared)
        // When the write stores its entry
        fixture.writer.store(entry, ifStill: generation)
        // Then neither memory nor disk holds it
        #expect(fixture.memory.entry(for: writerAliceKey) == nil)
        #expect(fixture.disk?.entry(for: writerAliceKey) == nil)
        // And a write begun after the clear stores
        fixture.writer.store(entry, ifStill: fixture.writer.generation(of: writerAliceKey.scope))
        #expect(fixture.memory.entry(for: writerAliceKey)?.content == entry.content)
        #expect(fixture.disk?.entry(for: writerAliceKey)?.content == entry.content)
    }

    @Test(arguments: [.user("bob"), .global] as [CacheScope])
    func aWriteBegunBeforeAClearOfAnotherScopeStillStores(_ cleared: CacheScope) async throws {
        // Given a write for Alice's page that noted its generation, then a clear of another scope
        let fixture = try WriterFixture(onDisk: true)
        let entry = writerEntry(writerPage("a"), key: writerAliceKey, at: fixture.clock.now)
        let generation = fixture.writer.generation(of: writerAliceKey.scope)
        fixture.writer.clear(cleared)
        // When the write stores its entry
        fixture.writer.store(entry, ifStill: generation)
        // Then memory and disk hold it
        #expect(fixture.memory.entry(for: writerAliceKey)?.content == entry.content)
        #expect(fixture.disk?.entry(for: writerAliceKey)?.content == entry.content)
    }

    // MARK: - Installing

    @Test func installingAFirstFetchStoresItAndAnnouncesEveryIdAsInserted() async throws {
        // Given nothing cached for the key, and a subscriber
        let fixture = try WriterFixture()
        let updates = fixture.answers.subscribe(to: writerKey)
        let content = writerPage("a", "b")
        // When the upstream's content is installed
        let installed = fixture.writer.install(
            content, etag: "v1", for: writerKey, replacing: nil, ifStill: fixture.writer.generation(of: .global))
        // Then it is stored as network content, now, with its validator
        #expect(
            installed
                == CacheEntry(
                    key: writerKey, content: content, storedAt: fixture.clock.now, etag: "v1", origin: .network))
        #expect(fixture.memory.entry(for: writerKey) == installed)
        // And announced with every id inserted
        fixture.answers.finish()
        let received = await writerDrain(updates)
        #expect(writerContentUpdates(received) == [WriterUpdate(content, ContentChanges(inserted: ["a", "b"]))])
    }

    @Test func installingChangedContentStoresItAndAnnouncesWhatChanged() async throws {
        // Given a page cached an hour ago, and a subscriber
        let fixture = try WriterFixture()
        let current = writerEntry(writerPage("a", "b"), at: fixture.clock.now)
        fixture.memory.store(current)
        fixture.clock.advance(by: .seconds(3600))
        let updates = fixture.answers.subscribe(to: writerKey)
        let content = writerPage("b", "c")
        // When different content is installed over it
        _ = fixture.writer.install(
            content, etag: nil, for: writerKey, replacing: current, ifStill: fixture.writer.generation(of: .global))
        // Then it is stored, and announced with the changes since the old
        #expect(fixture.memory.entry(for: writerKey)?.content == content)
        fixture.answers.finish()
        let received = await writerDrain(updates)
        #expect(
            writerContentUpdates(received)
                == [WriterUpdate(content, ContentChanges(inserted: ["c"], removed: ["a"], isReordered: false))])
    }

    @Test func installingIdenticalContentRenewsItAndAnnouncesNothing() async throws {
        // Given a page cached an hour ago, and a subscriber
        let fixture = try WriterFixture()
        let current = writerEntry(writerPage("a", "b"), at: fixture.clock.now)
        fixture.memory.store(current)
        fixture.clock.advance(by: .seconds(3600))
        let updates = fixture.answers.subscribe(to: writerKey)
        // When the same content is installed over it
        _ = fixture.writer.install(
            current.content, etag: "v2", for: writerKey, replacing: current,
            ifStill: fixture.writer.generation(of: .global))
        // Then it is stored again as of now, and nothing is announced or counted
        #expect(fixture.memory.entry(for: writerKey)?.storedAt == fixture.clock.now)
        #expect(fixture.memory.entry(for: writerKey)?.etag == "v2")
        fixture.answers.finish()
        #expect(await writerDrain(updates).isEmpty)
        #expect(fixture.statistics.current.updatesEmitted == 0)
    }

    @Test func installingAPageTheCacheDoesNotKeepStoresAndAnnouncesNothing() async throws {
        // Given a page past the pages kept per category (five of ten games), and a subscriber
        let fixture = try WriterFixture()
        let key = CacheKey.gamesPage(english, categoryId: "SLOTS", offset: 50)
        let updates = fixture.answers.subscribe(to: key)
        // When it is installed
        _ = fixture.writer.install(
            writerPage("a"), etag: nil, for: key, replacing: nil, ifStill: fixture.writer.generation(of: .global))
        // Then memory does not hold it and nothing is announced
        #expect(fixture.memory.entry(for: key) == nil)
        fixture.answers.finish()
        #expect(await writerDrain(updates).isEmpty)
    }

    // MARK: - Held updates

    @Test(arguments: [HeldUpdates(kinds: [.gamesPages]), HeldUpdates(keys: [writerKey])])
    func heldContentIsAnnouncedOnceAsPendingAndShownWhenApplied(_ held: HeldUpdates) async throws {
        // Given refreshes of the page held, the page shown from the network, and a subscriber
        let fixture = try WriterFixture(heldUpdates: held)
        let shown = writerEntry(writerPage("a", "b"), at: fixture.clock.now, etag: "v1")
        fixture.memory.store(shown)
        fixture.clock.advance(by: .seconds(3600))
        let updates = fixture.answers.subscribe(to: writerKey)
        let newer = writerPage("a", "b", "c")
        let newest = writerPage("b", "c", "d")
        // When new content is installed twice, then other content once
        let first = fixture.writer.install(
            newer, etag: "v2", for: writerKey, replacing: shown, ifStill: fixture.writer.generation(of: .global))
        let again = fixture.writer.install(
            newer, etag: "v2", for: writerKey, replacing: first, ifStill: fixture.writer.generation(of: .global))
        _ = fixture.writer.install(
            newest, etag: "v3", for: writerKey, replacing: again, ifStill: fixture.writer.generation(of: .global))
        // Then what is shown stays, renewed and without the held content's validator
        #expect(first.content == shown.content && first.storedAt == fixture.clock.now && first.etag == nil)
        #expect(fixture.memory.entry(for: writerKey)?.content == shown.content)
        #expect(fixture.writer.held(for: writerKey)?.content == newest)
        // When the held content is applied
        #expect(fixture.writer.applyHeld(for: writerKey))
        // Then it is shown, nothing is held any more, and a second apply has nothing to show
        #expect(fixture.memory.entry(for: writerKey)?.content == newest)
        #expect(fixture.writer.held(for: writerKey) == nil)
        #expect(!fixture.writer.applyHeld(for: writerKey))
        // And the subscriber saw one pending update per new content, then the update that showed it
        fixture.answers.finish()
        let received = await writerDrain(updates)
        #expect(
            writerPendingUpdates(received) == [
                ContentChanges(from: shown.content, to: newer), ContentChanges(from: shown.content, to: newest),
            ])
        #expect(
            writerContentUpdates(received) == [
                WriterUpdate(newest, ContentChanges(from: shown.content, to: newest))
            ])
    }

    @Test func contentOfAKeyThatIsNotHeldIsShownAtOnce() async throws {
        // Given refreshes of another key held
        let fixture = try WriterFixture(heldUpdates: HeldUpdates(keys: [CacheKey.categories(english)]))
        let shown = writerEntry(writerPage("a"), at: fixture.clock.now)
        fixture.memory.store(shown)
        // When new content is installed for the page
        _ = fixture.writer.install(
            writerPage("b"), etag: nil, for: writerKey, replacing: shown,
            ifStill: fixture.writer.generation(of: .global))
        // Then it is shown, nothing held
        #expect(fixture.memory.entry(for: writerKey)?.content == writerPage("b"))
        #expect(fixture.writer.held(for: writerKey) == nil)
    }

    @Test func discardingHeldContentKeepsWhatIsShown() async throws {
        // Given new content held for two of Alice's pages and one global page
        let fixture = try WriterFixture(heldUpdates: HeldUpdates(kinds: [.gamesPages]))
        let aliceOther = CacheKey.gamesPage(english, categoryId: "TABLE", offset: 0, scope: .user("alice"))
        for key in [writerKey, writerAliceKey, aliceOther] {
            let shown = writerEntry(writerPage("a"), key: key, at: fixture.clock.now)
            fixture.memory.store(shown)
            _ = fixture.writer.install(
                writerPage("b"), etag: nil, for: key, replacing: shown,
                ifStill: fixture.writer.generation(of: key.scope))
            #expect(fixture.writer.held(for: key) != nil)
        }
        // When what is held for the global page, then for Alice's scope, is discarded
        fixture.writer.discardHeld(writerKey)
        #expect(fixture.writer.held(for: writerKey) == nil)
        #expect(fixture.writer.held(for: writerAliceKey) != nil)
        fixture.writer.discardHeld(in: .user("alice"))
        // Then nothing is held, applying shows nothing, and each page still shows the old content
        for key in [writerKey, writerAliceKey, aliceOther] {
            #expect(fixture.writer.held(for: key) == nil)
            #expect(!fixture.writer.applyHeld(for: key))
            #expect(fixture.memory.entry(for: key)?.content == writerPage("a"))
        }
    }

    // MARK: - Dropping a scope

    @Test func droppingAScopeForgetsItInMemoryAndOnDiskAndKeepsTheOthers() async throws {
        // Given a page each for Alice, Bob and everyone, in memory and on disk
        let fixture = try WriterFixture(onDisk: true)
        let bobKey = CacheKey.gamesPage(english, categoryId: "SLOTS", offset: 0, scope: .user("bob"))
        let keys = [writerAliceKey, bobKey, writerKey]
        for key in keys {
            fixture.writer.store(
                writerEntry(writerPage("a"), key: key, at: fixture.clock.now),
                ifStill: fixture.writer.generation(of: key.scope))
        }
        let aliceWrite = fixture.writer.generation(of: .user("alice"))
        await fixture.disk?.flush()
        // When Alice's scope is dropped
        fixture.writer.drop(.user("alice"))
        await fixture.disk?.flush()
        // Then memory, the disk tier and the files a next launch reads hold Bob's page and the global one only
        let relaunched = try #require(fixture.reopenedDisk())
        #expect(keys.map { fixture.memory.entry(for: $0) != nil } == [false, true, true])
        #expect(keys.map { fixture.disk?.entry(for: $0) != nil } == [false, true, true])
        #expect(keys.map { relaunched.entry(for: $0) != nil } == [false, true, true])
        // And a write for Alice begun before the drop stores nothing
        fixture.writer.store(
            writerEntry(writerPage("b"), key: writerAliceKey, at: fixture.clock.now), ifStill: aliceWrite)
        #expect(fixture.memory.entry(for: writerAliceKey) == nil)
    }

    // MARK: - Clears and withheld games in held updates

    @Test func contentFetchedBeforeAClearIsNotHeld() async throws {
        // Given refreshes of the page held, the page shown from the network, and a fetch that noted its generation
        let fixture = try WriterFixture(heldUpdates: HeldUpdates(kinds: [.gamesPages]))
        let shown = writerEntry(writerPage("a"), at: fixture.clock.now)
        fixture.memory.store(shown)
        let generation = fixture.writer.generation(of: .global)
        let updates = fixture.answers.subscribe(to: writerKey)
        // When the cache is cleared (as CatalogCache.clear() does: generations, then memory), then the fetch installs
        fixture.writer.clear(nil)
        fixture.memory.removeAll(in: nil)
        _ = fixture.writer.install(writerPage("b"), etag: nil, for: writerKey, replacing: shown, ifStill: generation)
        // Then nothing is held, no pending update is announced, and applying stores nothing
        #expect(fixture.writer.held(for: writerKey) == nil)
        #expect(!fixture.writer.applyHeld(for: writerKey))
        #expect(fixture.memory.entry(for: writerKey) == nil)
        fixture.answers.finish()
        #expect(await writerDrain(updates).isEmpty)
    }

    @Test func anInstallBegunBeforeAClearAnnouncesNothing() async throws {
        // Given a fetch of a page that noted its generation, and a subscriber
        let fixture = try WriterFixture()
        let generation = fixture.writer.generation(of: .global)
        let updates = fixture.answers.subscribe(to: writerKey)
        // When the cache is cleared, then the fetch installs its content
        fixture.writer.clear(nil)
        _ = fixture.writer.install(writerPage("a"), etag: nil, for: writerKey, replacing: nil, ifStill: generation)
        // Then nothing is stored, and no update says new content is cached
        #expect(fixture.memory.entry(for: writerKey) == nil)
        fixture.answers.finish()
        #expect(await writerDrain(updates).isEmpty)
        #expect(fixture.statistics.current.updatesEmitted == 0)
    }

    @Test func aPendingUpdateListsNoWithheldGame() async throws {
        // Given refreshes held, no territory known (every restricted game withheld), and a page shown
        let fixture = try WriterFixture(heldUpdates: HeldUpdates(kinds: [.gamesPages]))
        let shown = writerEntry(writerPage("a"), at: fixture.clock.now)
        fixture.memory.store(shown)
        let updates = fixture.answers.subscribe(to: writerKey)
        var restricted = writerPage("a", "r")
        if case .gamesPage(var page) = restricted {
            page.items[1].restrictedTerritories = ["GB"]
            restricted = .gamesPage(page)
        }
        // When new content whose only new game is withheld is held, then applied
        _ = fixture.writer.install(
            restricted, etag: nil, for: writerKey, replacing: shown, ifStill: fixture.writer.generation(of: .global))
        _ = fixture.writer.applyHeld(for: writerKey)
        fixture.answers.finish()
        // Then the pending update, like the update that shows it, names no withheld game
        let received = await writerDrain(updates)
        #expect(writerContentUpdates(received).map(\.changes.inserted) == [[]])
        #expect(writerPendingUpdates(received).map(\.inserted) == [[]])
    }
}

/// A ``CacheWriter`` over tiers wired as `CatalogCache.init` wires them: the answers' filter (no
/// territory, the default policy), a memory tier that filters by it, a disk tier on a temporary
/// directory when asked, no bundle, and a manual clock.
private struct WriterFixture {
    let clock = ManualClock()
    let statistics = StatisticsCounter()
    let answers: CacheAnswers
    let memory: MemoryTier
    let disk: DiskTier?
    let directory: TemporaryDirectory?
    let writer: CacheWriter

    init(heldUpdates: HeldUpdates = .none, onDisk: Bool = false) throws {
        var configuration = CatalogCache.Configuration.default
        configuration.heldUpdates = heldUpdates
        memory = MemoryTier(countLimit: configuration.memoryCountLimit, costLimit: configuration.memoryCostLimit)
        let filter = GameFilter(
            policy: configuration.unknownTerritoryPolicy, directory: nil, savesChanges: false, memory: memory,
            logger: silentLogger)
        answers = CacheAnswers(
            snapshotGeneratedAt: nil, snapshotSource: .bundle, filter: filter, statistics: statistics)
        directory = onDisk ? try TemporaryDirectory() : nil
        disk = directory.map { DiskTier(configuration: .init(directory: $0.child("cache")), logger: silentLogger) }
        let tiers = CacheTiers(
            memory: memory, disk: disk, bundled: nil, answers: answers, images: ImagePrefetcher(),
            statistics: statistics, configuration: configuration, pageSize: 10)
        writer = CacheWriter(tiers: tiers, clock: clock)
    }

    /// A new disk tier on the same directory: what the next launch reads.
    func reopenedDisk() -> DiskTier? {
        directory.map { DiskTier(configuration: .init(directory: $0.child("cache")), logger: silentLogger) }
    }
}

/// An `.updated` event's content and changes.
private struct WriterUpdate: Equatable {
    var content: CatalogContent
    var changes: ContentChanges

    init(_ content: CatalogContent, _ changes: ContentChanges) {
        self.content = content
        self.changes = changes
    }
}

private let writerKey = CacheKey.gamesPage(english, categoryId: "SLOTS", offset: 0)
private let writerAliceKey = CacheKey.gamesPage(english, categoryId: "SLOTS", offset: 0, scope: .user("alice"))

/// A first page of ten holding games with these ids, none restricted.
private func writerPage(_ ids: String...) -> CatalogContent {
    .gamesPage(
        GamesPage(
            categoryId: "SLOTS", offset: 0, limit: 10, total: 40,
            items: ids.map { id in
                Game(
                    id: id, name: "Game \(id)", slug: "game-\(id)", launchUrl: "https://play.example.com/\(id)",
                    thumbnail: "https://img.example.com/\(id).png")
            }))
}

/// Network content for `key`, stored `at`.
private func writerEntry(
    _ content: CatalogContent, key: CacheKey = writerKey, at storedAt: Date, etag: String? = nil
) -> CacheEntry {
    CacheEntry(key: key, content: content, storedAt: storedAt, etag: etag, origin: .network)
}

/// Every update `stream` delivers until it ends.
private func writerDrain(_ stream: AsyncStream<CacheUpdate>) async -> [CacheUpdate] {
    var updates: [CacheUpdate] = []
    for await update in stream { updates.append(update) }
    return updates
}

private func writerContentUpdates(_ updates: [CacheUpdate]) -> [WriterUpdate] {
    updates.compactMap { update in
        if case .updated(let content, let changes) = update.event { return WriterUpdate(content, changes) }
        return nil
    }
}

private func writerPendingUpdates(_ updates: [CacheUpdate]) -> [ContentChanges] {
    updates.compactMap { update in
        if case .pendingUpdate(let changes) = update.event { return changes }
        return nil
    }
}
