@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

@_spi(CatalogTools) @testable import CasinoCache

/// What leaves the cache through ``CacheAnswers``: updates, answers and values, each without the
/// games its ``GameFilter`` withholds (here: a player in Great Britain, one game withdrawn
/// everywhere), and the updates counted. A stream is read after `finish()`: what was sent is
/// buffered, and the read ends.
@Suite(.timeLimit(.minutes(1)))
struct CacheAnswersTests {
    private let statistics = StatisticsCounter()
    private let answers: CacheAnswers

    init() throws {
        let filter = GameFilter(
            policy: .hideRestrictedAnywhere, directory: nil, savesChanges: false,
            memory: MemoryTier(countLimit: 10, costLimit: 1 << 20), logger: silentLogger)
        filter.setTerritory(Territory("GB"))
        _ = try filter.changeWithdrawals { list throws(WithdrawalListError) in
            try list.replace(with: WithdrawalList(sequence: 1, games: [Withdrawal(id: "gone")]))
        }
        answers = CacheAnswers(
            snapshotGeneratedAt: answersSnapshotDate, snapshotSource: .bundle, filter: filter, statistics: statistics)
    }

    @Test func publishingNewContentLeavesOutTheWithheldGamesAndTheirIdsAndCountsIt() async {
        // Given a subscriber, and a page with a game restricted in Great Britain and one withdrawn
        let stream = answers.subscribe(to: answersKey)
        let content = answersPage(
            answersGame("a"), answersGame("british", restrictedIn: ["GB"]), answersGame("b"), answersGame("gone"))
        let changes = ContentChanges(inserted: ["a", "british"], removed: ["old"], updated: ["b", "gone"])
        // When the page is published as new content
        answers.publish(CacheUpdate(key: answersKey, event: .updated(content, changes)))
        answers.finish()
        // Then the subscriber sees neither game, nor their ids among the inserted and updated
        let received = await answersDrain(stream)
        #expect(received.count == 1)
        guard case .updated(let shown, let shownChanges)? = received.first?.event else {
            Issue.record("no update: \(received)")
            return
        }
        #expect(shown.ids == ["a", "b"])
        #expect(shownChanges == ContentChanges(inserted: ["a"], removed: ["old"], updated: ["b"]))
        // And the update is counted
        #expect(statistics.current.updatesEmitted == 1)
    }

    @Test func publishingAnEventThatIsNotNewContentCountsNothing() async {
        // Given a subscriber
        let stream = answers.subscribe(to: answersKey)
        // When a pending update is published
        answers.publish(CacheUpdate(key: answersKey, event: .pendingUpdate(ContentChanges(inserted: ["a"]))))
        answers.finish()
        // Then it arrives, and no update is counted
        #expect(await answersDrain(stream).count == 1)
        #expect(statistics.current.updatesEmitted == 0)
    }

    @Test func aChangeNobodyWatchesIsCountedAndSentToNoOne() async {
        // Given a subscriber of another key only
        let other = answers.subscribe(to: CacheKey.categories(french))
        // When new content for the key is published
        answers.publishChange(of: answersKey, from: nil, to: answersPage(answersGame("a")))
        answers.finish()
        // Then it is counted, and the other key's subscriber receives nothing
        #expect(statistics.current.updatesEmitted == 1)
        #expect(await answersDrain(other).isEmpty)
    }

    @Test func aChangeSomeoneWatchesIsSentWithWhatChanged() async {
        // Given a subscriber of the key
        let stream = answers.subscribe(to: answersKey)
        let old = answersPage(answersGame("a"), answersGame("b"), answersGame("c"))
        let new = answersPage(answersGame("c", name: "Renamed"), answersGame("a"), answersGame("d"))
        // When the key's content changes
        answers.publishChange(of: answersKey, from: old, to: new)
        answers.finish()
        // Then the subscriber receives the new content with the changes from the old
        let received = await answersDrain(stream)
        guard case .updated(let content, let changes)? = received.first?.event, received.count == 1 else {
            Issue.record("not one update: \(received)")
            return
        }
        #expect(content == new)
        #expect(changes == ContentChanges(from: old, to: new))
        #expect(changes == ContentChanges(inserted: ["d"], removed: ["b"], updated: ["c"], isReordered: true))
        #expect(received.first?.key == answersKey)
        #expect(statistics.current.updatesEmitted == 1)
    }

    @Test func anAnswerForAFilteredEntrySaysHowManyGamesItWithheld() {
        // Given a stale disk entry stored an hour ago with a game restricted in Great Britain
        let now = Date(timeIntervalSince1970: 1_795_168_800)
        let entry = CacheEntry(
            key: answersKey,
            content: answersPage(answersGame("a"), answersGame("british", restrictedIn: ["GB"]), answersGame("b")),
            storedAt: now.addingTimeInterval(-3600))
        // When it is answered
        let result = answers.result(entry, tier: .disk, state: .stale, now: now) { $0 }
        // Then the answer leaves the game out and says so in its metadata
        #expect(result.state == .stale)
        #expect(result.value?.ids == ["a", "b"])
        #expect(
            result.metadata
                == CacheMetadata(
                    tier: .disk, storedAt: entry.storedAt, age: 3600, snapshotGeneratedAt: answersSnapshotDate,
                    withheld: 1))
    }

    @Test func anAnswerForAnUnfilteredEntryWithholdsNothing() {
        // Given a fresh entry with no restricted or withdrawn game
        let now = Date(timeIntervalSince1970: 1_795_168_800)
        let content = answersPage(answersGame("a"), answersGame("b"))
        let entry = CacheEntry(key: answersKey, content: content, storedAt: now)
        // When it is answered
        let result = answers.result(entry, tier: .memory, state: .fresh, now: now) { $0 }
        // Then it is answered as it is, nothing withheld
        #expect(result.value == content)
        #expect(result.metadata?.withheld == 0)
    }

    @Test func aValueHandedToTheAppWithholds() {
        // Given content with a withdrawn game
        let content = answersPage(answersGame("gone"), answersGame("a"))
        // When its value is taken
        let ids = answers.value(of: content) { $0.ids }
        // Then the withdrawn game is not in it
        #expect(ids == ["a"])
    }
}

private let answersKey = CacheKey.gamesPage(english, categoryId: "SLOTS", offset: 0)
private let answersSnapshotDate = Date(timeIntervalSince1970: 1_795_000_000)

/// A game the provider restricts in `restricted` (nowhere by default).
private func answersGame(_ id: String, name: String? = nil, restrictedIn restricted: [String] = []) -> Game {
    Game(
        id: id, name: name ?? "Game \(id)", slug: "game-\(id)", launchUrl: "https://play.example.com/\(id)",
        thumbnail: "https://img.example.com/\(id).png", restrictedTerritories: restricted)
}

/// The first page of a category of forty games, holding `games`.
private func answersPage(_ games: Game...) -> CatalogContent {
    .gamesPage(GamesPage(categoryId: "SLOTS", offset: 0, limit: 10, total: 40, items: games))
}

/// Every update `stream` delivers until it ends.
private func answersDrain(_ stream: AsyncStream<CacheUpdate>) async -> [CacheUpdate] {
    var updates: [CacheUpdate] = []
    for await update in stream { updates.append(update) }
    return updates
}
