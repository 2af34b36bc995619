@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

@Suite struct CacheKeyTests {
    /// Pairs of ids Swift's `==` calls equal though their UTF-8 differs: precomposed and decomposed
    /// "é", the Kelvin sign and "K", the Greek question mark and ";".
    static let equivalentIds: [(String, String)] = [
        ("caf\u{E9}", "cafe\u{301}"),
        ("\u{212A}ELVIN-SLOTS", "KELVIN-SLOTS"),
        ("live\u{037E}vip", "live;vip"),
        ("a-longer-category-\u{E9}-past-sixteen-bytes", "a-longer-category-e\u{301}-past-sixteen-bytes"),
    ]

    @Test(arguments: equivalentIds)
    func canonicallyEquivalentIdsMakeOneKey(first: String, second: String) throws {
        // Given two keys whose category ids, or user ids, are canonically equivalent
        let pages = (
            CacheKey.gamesPage(english, categoryId: first, offset: 0),
            CacheKey.gamesPage(english, categoryId: second, offset: 0)
        )
        let users = (
            CacheKey.gamesPage(english, categoryId: "SLOTS", offset: 0, scope: .user(first)),
            CacheKey.gamesPage(english, categoryId: "SLOTS", offset: 0, scope: .user(second))
        )
        for (one, other) in [pages, users] {
            // Then they are equal, hash alike, and find each other's value in a dictionary
            #expect(one == other)
            #expect(one.hashValue == other.hashValue)
            #expect(Set([one, other]).count == 1)
            #expect([one: 1][other] == 1)
        }
    }

    @Test func keysDifferingInAnyFieldAreDifferentKeys() throws {
        // Given keys that differ in one field each: kind, edition, category, offset, scope
        let keys: [CacheKey] = [
            .categories(english),
            .categories(try Edition(id: "en-Android")),
            .categories(try Edition(id: "fr-iPhone")),
            .categories(english, scope: .user("u1")),
            .gamesPage(english, categoryId: "SLOTS", offset: 0),
            .gamesPage(english, categoryId: "SLOTS", offset: 10),
            .gamesPage(english, categoryId: "SLOTZ", offset: 0),
            .gamesPage(try Edition(id: "en-Android"), categoryId: "SLOTS", offset: 0),
            .gamesPage(english, categoryId: "SLOTS", offset: 0, scope: .user("u1")),
            .gamesPage(english, categoryId: "SLOTS", offset: 0, scope: .user("u2")),
        ]
        // Then no two are equal, and each finds only its own value
        for (index, key) in keys.enumerated() {
            for (otherIndex, other) in keys.enumerated() {
                #expect((key == other) == (index == otherIndex), "\(key) vs \(other)")
            }
        }
        let values = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($0.element, $0.offset) })
        for (index, key) in keys.enumerated() { #expect(values[key] == index) }
    }
}
