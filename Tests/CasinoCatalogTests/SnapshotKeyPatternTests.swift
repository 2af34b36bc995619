@_spi(CatalogTools) import CasinoCatalog
import Testing

@Suite struct SnapshotKeyPatternTests {
    let edition = try! Edition(id: "en-iPhone")

    @Test func parsesKeysAndCategoryWildcardsAndPrintsThemBack() throws {
        let wildcard = try #require(SnapshotKeyPattern("en-iPhone/games/A%2FB/*"))
        #expect(wildcard == .categoryPages(edition, categoryId: "A/B"))
        #expect(wildcard.description == "en-iPhone/games/A%2FB/*")
        let key = try #require(SnapshotKeyPattern("en-iPhone/categories"))
        #expect(key == .key(.categories(edition)))
        #expect(key.description == "en-iPhone/categories")
    }

    @Test(arguments: [
        "", "*", "en-iPhone/*", "en-iPhone/categories/*", "en-iPhone/games//*", "en-iPhone/games/X/**",
        "en-iPhone/games/X/0*", "../games/X/*", "xx-Nowhere/games/X/*", "en-iPhone/games/X/01",
        "en-iPhone/games/\u{0}/*", "en-iPhone/games/" + String(repeating: "A", count: 600) + "/*",
    ])
    func refusesEverythingElse(text: String) {
        #expect(SnapshotKeyPattern(text) == nil)
    }

    @Test func aWildcardMatchesEveryPageOfItsCategoryInItsEditionOnly() throws {
        let pattern = SnapshotKeyPattern.categoryPages(edition, categoryId: "SLOTS")
        #expect(pattern.matches(.gamesPage(edition, categoryId: "SLOTS", offset: 0)))
        #expect(pattern.matches(.gamesPage(edition, categoryId: "SLOTS", offset: 40)))
        #expect(!pattern.matches(.gamesPage(edition, categoryId: "SLOTS2", offset: 0)))
        #expect(!pattern.matches(.gamesPage(try Edition(id: "fr-iPhone"), categoryId: "SLOTS", offset: 0)))
        #expect(!pattern.matches(.categories(edition)))
    }
}
