@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

@Suite struct MemoryTierTests {
    static func entry(_ id: String, games: Int = 1, scope: CacheScope = .global) -> CacheEntry {
        let items = (0..<games).map { index in
            Game(
                id: "\(id)-\(index)", name: "Game \(index)", slug: "game-\(index)",
                launchUrl: "https://l.example.com/\(index)", thumbnail: "https://t.example.com/\(index).jpg")
        }
        let page = GamesPage(categoryId: id, offset: 0, limit: max(games, 1), total: max(games, 1), items: items)
        return CacheEntry(
            key: .gamesPage(english, categoryId: id, offset: 0, scope: scope), content: .gamesPage(page),
            storedAt: Date(timeIntervalSince1970: 0))
    }

    @Test func evictsTheLeastRecentlyUsedEntryPastTheCountLimit() {
        // Given a tier of 3 holding a, b, c, with a read recently
        let tier = MemoryTier(countLimit: 3)
        for id in ["a", "b", "c"] { tier.store(Self.entry(id)) }
        _ = tier.entry(for: Self.entry("a").key)
        // When d arrives
        tier.store(Self.entry("d"))
        // Then b (the least recently used) is gone
        #expect(tier.entry(for: Self.entry("b").key) == nil)
        #expect(
            tier.keysByRecency.map { key -> String in
                if case .gamesPage(_, let id, _) = key.content { return id }
                return ""
            } == ["c", "a", "d"])
        #expect(tier.evictions == 1)
    }

    @Test(arguments: CacheKeyTests.equivalentIds)
    func findsAnEntryByACanonicallyEquivalentId(first: String, second: String) {
        // Given an entry stored under one spelling of its category id (the tier hashes its own way)
        let tier = MemoryTier()
        tier.store(Self.entry(first))
        // When it is read under the other spelling, which Swift's == calls equal
        // Then it is found, and storing under that spelling replaces it instead of adding one
        #expect(tier.entry(for: Self.entry(second).key) == Self.entry(first))
        tier.store(Self.entry(second))
        #expect(tier.count == 1)
    }

    @Test func idsOfEveryLengthAreFoundByAnEqualKeyAndKeptApart() {
        // Given 41 entries whose category ids are 0 to 40 bytes long (every tail length of the
        // tier's eight-byte hash words)
        let tier = MemoryTier()
        let ids = (0...40).map { length in String((0..<length).map { Character(UnicodeScalar(UInt8(65 + $0 % 26))) }) }
        for id in ids { tier.store(Self.entry(id)) }
        // Then each is found by a key built from a separate copy of its id, and all are kept
        #expect(tier.count == ids.count)
        for id in ids {
            let twin = String(decoding: Array(id.utf8), as: UTF8.self)
            #expect(tier.entry(for: Self.entry(twin).key)?.key == Self.entry(id).key, "\(id.count) bytes")
        }
    }

    @Test func keepsKeysApartThatDifferOnlyInWhatTheKeyHashLeavesOut() throws {
        // Given pages of one category and offset for two platforms, two languages and two scopes
        // (the key's hash skips the edition and the global scope; equality must not)
        let tier = MemoryTier()
        let editions = [english, try Edition(id: "en-Android"), try Edition(id: "fr-iPhone")]
        let scopes: [CacheScope] = [.global, .user("u1")]
        var keys: [CacheKey] = []
        for edition in editions {
            for scope in scopes {
                let key = CacheKey.gamesPage(edition, categoryId: "SLOTS", offset: 0, scope: scope)
                var entry = Self.entry("SLOTS")
                entry.key = key
                entry.storedAt = Date(timeIntervalSince1970: Double(keys.count))
                tier.store(entry)
                keys.append(key)
            }
        }
        // Then each key answers its own entry
        #expect(tier.count == keys.count)
        for (index, key) in keys.enumerated() {
            #expect(tier.entry(for: key)?.storedAt == Date(timeIntervalSince1970: Double(index)), "\(key)")
        }
    }

    @Test func evictsByCostButKeepsTheNewestEntry() {
        let big = Self.entry("big", games: 50)
        let tier = MemoryTier(countLimit: 100, costLimit: big.content.approximateCost + 10)
        tier.store(Self.entry("small"))
        tier.store(big)
        #expect(tier.count == 1)
        #expect(tier.entry(for: big.key) != nil)
        #expect(tier.totalCost == big.content.approximateCost)
    }

    @Test func replacesAnEntryAndKeepsTheCostExact() {
        let tier = MemoryTier()
        tier.store(Self.entry("a", games: 3))
        tier.store(Self.entry("a", games: 1))
        #expect(tier.count == 1)
        #expect(tier.totalCost == Self.entry("a", games: 1).content.approximateCost)
    }

    @Test func trimsAndClearsByScope() {
        let tier = MemoryTier()
        tier.store(Self.entry("a"))
        tier.store(Self.entry("b", scope: .user("u1")))
        tier.removeAll(in: .user("u1"))
        #expect(tier.count == 1)
        tier.trim()
        #expect(tier.count == 0 && tier.totalCost == 0)
    }

    @Test func keepsEveryOtherEntryReachableAndOrderedAfterRemovals() {
        // Given a tier holding a…f, stored in order, then c read
        let tier = MemoryTier()
        let ids = ["a", "b", "c", "d", "e", "f"]
        for id in ids { tier.store(Self.entry(id)) }
        _ = tier.entry(for: Self.entry("c").key)
        // When the first, a middle and the last stored entries are removed
        for id in ["a", "d", "f"] { tier.removeEntry(for: Self.entry(id).key) }
        // Then the rest still answer, in their order of use, and the cost is theirs alone
        for id in ["b", "c", "e"] { #expect(tier.entry(for: Self.entry(id).key)?.key == Self.entry(id).key, "\(id)") }
        for id in ["a", "d", "f"] { #expect(tier.entry(for: Self.entry(id).key) == nil, "\(id)") }
        #expect(tier.keysByRecency == ["b", "c", "e"].map { Self.entry($0).key })
        #expect(tier.totalCost == 3 * Self.entry("b").content.approximateCost)
    }

    @Test func trimmingKeepsTheMostRecentlyUsedEntries() {
        // Given a, b, c, d stored in order, then a read
        let tier = MemoryTier()
        for id in ["a", "b", "c", "d"] { tier.store(Self.entry(id)) }
        _ = tier.entry(for: Self.entry("a").key)
        // When trimmed to two
        let dropped = tier.trim(keepingMostRecent: 2)
        // Then d and a (the two most recently used) stay
        #expect(dropped == 2)
        #expect(tier.keysByRecency == ["d", "a"].map { Self.entry($0).key })
    }

    @Test(arguments: [1_000, 40])
    func agreesWithAModelLRUOverRandomStoresReadsAndRemovals(countLimit: Int) {
        // Given a tier, a model of it (what each id holds, ids from least to most recently used),
        // and a seeded stream of stores, reads and removals over 300 ids of 2 to 40 bytes (with a
        // limit of 40, most stores evict)
        let tier = MemoryTier(countLimit: countLimit, costLimit: .max)
        var model: [String: Date] = [:]
        var recency: [String] = []
        var evictions = 0
        var random = SplitMix64(seed: UInt64(countLimit))
        let ids = (0..<300).map { "c\($0)" + String(repeating: "x", count: $0 % 39) }
        func use(_ id: String) {
            recency.removeAll { $0 == id }
            recency.append(id)
        }
        for step in 0..<6_000 {
            let id = ids[Int(random.next() % UInt64(ids.count))]
            var entry = Self.entry(id)
            switch random.next() % 10 {
            case 0..<4:
                // When an entry is stored
                entry.storedAt = Date(timeIntervalSince1970: Double(step))
                tier.store(entry)
                model[id] = entry.storedAt
                use(id)
                if model.count > countLimit {
                    model[recency.removeFirst()] = nil
                    evictions += 1
                }
            case 4..<9:
                // When an entry is read, then it is there exactly when the model has it
                let found = tier.entry(for: entry.key)
                #expect(found?.storedAt == model[id], "step \(step): \(id)")
                #expect(found.map { $0.key == entry.key } ?? true, "step \(step): \(id)")
                if model[id] != nil { use(id) }
            default:
                // When an entry is removed
                tier.removeEntry(for: entry.key)
                model[id] = nil
                recency.removeAll { $0 == id }
            }
        }
        // Then the tier holds what the model holds, in the same order of use
        #expect(tier.count == model.count)
        #expect(tier.keysByRecency == recency.map { Self.entry($0).key })
        #expect(tier.evictions == evictions)
        #expect((countLimit < ids.count) == (evictions > 0))
    }

    @Test(.timeLimit(.minutes(5)))  // a hang detector
    func staysConsistentUnderConcurrentReadsAndWrites() async {
        let tier = MemoryTier(countLimit: 50)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<2000 {
                        let entry = Self.entry("k\((index * 7 + worker) % 120)")
                        if index % 3 == 0 { tier.store(entry) } else { _ = tier.entry(for: entry.key) }
                    }
                }
            }
        }
        #expect(tier.count <= 50)
        #expect(tier.keysByRecency.count == tier.count)
    }
}
