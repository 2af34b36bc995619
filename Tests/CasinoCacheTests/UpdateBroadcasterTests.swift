@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Testing

@_spi(CatalogTools) @testable import CasinoCache

/// Who ``UpdateBroadcaster`` sends each update to, how long a subscription lasts, and what a slow
/// subscriber keeps. A stream is read after `finish()`: what was sent is buffered, and the read ends.
@Suite(.timeLimit(.minutes(1)))
struct UpdateBroadcasterTests {
    private let englishKey = CacheKey.categories(english)
    private let frenchKey = CacheKey.categories(french)

    @Test func aSubscriberOfOneKeyReceivesOnlyThatKeysUpdates() async {
        // Given a subscriber of the English categories
        let broadcaster = UpdateBroadcaster()
        let stream = broadcaster.subscribe(to: englishKey)
        // When updates of both editions are published
        broadcaster.publish(broadcastUpdate(frenchKey, "f1"))
        broadcaster.publish(broadcastUpdate(englishKey, "e1"))
        broadcaster.publish(broadcastUpdate(frenchKey, "f2"))
        broadcaster.publish(broadcastUpdate(englishKey, "e2"))
        broadcaster.finish()
        // Then it received the English ones, in order
        #expect(await broadcastTags(stream) == ["e1", "e2"])
    }

    @Test func aSubscriberOfAllKeysReceivesEveryUpdate() async {
        // Given a subscriber of every key
        let broadcaster = UpdateBroadcaster()
        let stream = broadcaster.subscribe()
        // When updates of both editions are published
        broadcaster.publish(broadcastUpdate(frenchKey, "f1"))
        broadcaster.publish(broadcastUpdate(englishKey, "e1"))
        broadcaster.publish(broadcastUpdate(frenchKey, "f2"))
        broadcaster.finish()
        // Then it received them all, in order
        #expect(await broadcastTags(stream) == ["f1", "e1", "f2"])
    }

    @Test func aKeySubscriberIsASubscriberOfItsKeyOnly() {
        // Given a subscriber of the English categories
        let broadcaster = UpdateBroadcaster()
        #expect(!broadcaster.hasSubscribers(for: englishKey))
        let stream = broadcaster.subscribe(to: englishKey)
        // Then the English categories have a subscriber, the French ones none
        #expect(broadcaster.hasSubscribers(for: englishKey))
        #expect(!broadcaster.hasSubscribers(for: frenchKey))
        withExtendedLifetime(stream) {}
    }

    @Test func anAllKeysSubscriberIsASubscriberOfEveryKey() {
        // Given a subscriber of every key
        let broadcaster = UpdateBroadcaster()
        let stream = broadcaster.subscribe()
        // Then every key has a subscriber
        #expect(broadcaster.hasSubscribers(for: englishKey))
        #expect(broadcaster.hasSubscribers(for: frenchKey))
        withExtendedLifetime(stream) {}
    }

    @Test func aSubscriberWhoseConsumerGoesAwayIsRemoved() async {
        // Given a key subscriber and an all-keys subscriber, each read by a task
        let broadcaster = UpdateBroadcaster()
        let keyStream = broadcaster.subscribe(to: englishKey)
        let allStream = broadcaster.subscribe()
        let keyReader = Task { for await _ in keyStream {} }
        let allReader = Task { for await _ in allStream {} }
        // When the all-keys reader goes away
        allReader.cancel()
        // Then only the English categories still have a subscriber
        await eventually(timeout: .seconds(10)) { !broadcaster.hasSubscribers(for: frenchKey) }
        #expect(!broadcaster.hasSubscribers(for: frenchKey))
        #expect(broadcaster.hasSubscribers(for: englishKey))
        // And when the key reader goes away too, nothing has one
        keyReader.cancel()
        await eventually(timeout: .seconds(10)) { !broadcaster.hasSubscribers(for: englishKey) }
        #expect(!broadcaster.hasSubscribers(for: englishKey))
    }

    @Test func aSlowSubscriberKeepsOnlyTheNewestUpdates() async {
        // Given a subscriber of a broadcaster that buffers three updates, not reading yet
        let broadcaster = UpdateBroadcaster(bufferSize: 3)
        let stream = broadcaster.subscribe()
        // When five updates are published
        for tag in ["u1", "u2", "u3", "u4", "u5"] { broadcaster.publish(broadcastUpdate(englishKey, tag)) }
        broadcaster.finish()
        // Then it reads the newest three
        #expect(await broadcastTags(stream) == ["u3", "u4", "u5"])
    }

    @Test func finishEndsEveryStream() async {
        // Given two subscribers, each read by a child task (cancelled with the test at its time limit)
        let broadcaster = UpdateBroadcaster()
        let keyStream = broadcaster.subscribe(to: englishKey)
        let allStream = broadcaster.subscribe()
        async let keyTags = broadcastTags(keyStream)
        async let allTags = broadcastTags(allStream)
        broadcaster.publish(broadcastUpdate(englishKey, "e1"))
        // When the broadcaster finishes
        broadcaster.finish()
        // Then both reads end (the suite's time limit catches one that does not), with what came before
        #expect(await keyTags == ["e1"])
        #expect(await allTags == ["e1"])
        // And no key has a subscriber left
        #expect(!broadcaster.hasSubscribers(for: englishKey))
    }
}

/// An update of `key` told apart from others by `tag` (a pending update inserting the id `tag`).
private func broadcastUpdate(_ key: CacheKey, _ tag: String) -> CacheUpdate {
    CacheUpdate(key: key, event: .pendingUpdate(ContentChanges(inserted: [tag])))
}

/// The tags of every update `stream` delivers until it ends.
private func broadcastTags(_ stream: AsyncStream<CacheUpdate>) async -> [String] {
    var tags: [String] = []
    for await update in stream {
        if case .pendingUpdate(let changes) = update.event { tags += changes.inserted }
    }
    return tags
}
