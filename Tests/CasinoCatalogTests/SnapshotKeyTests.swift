@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

@Suite struct SnapshotKeyTests {
    let edition = try! Edition(id: "en-iPhone")

    @Test func spellsCategoriesAndPagesReadably() {
        #expect(SnapshotKey.categories(edition).description == "en-iPhone/categories")
        #expect(
            SnapshotKey.gamesPage(edition, categoryId: "VIDEOSLOTS", offset: 10).description
                == "en-iPhone/games/VIDEOSLOTS/10")
    }

    @Test(arguments: [
        "VIDEOSLOTS", "../../etc/passwd", "a/b", "nul\u{0}byte", "🎰 slots", "100%", "Machines à sous", "..", "x%2Fy",
    ])
    func roundTripsHostileCategoryIDs(categoryId: String) throws {
        // Given a key for a category id with separators, NUL, emoji or escapes
        let key = SnapshotKey.gamesPage(edition, categoryId: categoryId, offset: 20)
        // When it is spelled and parsed back
        let text = key.description
        // Then the spelling has exactly four components and parses to the same key
        #expect(text.split(separator: "/", omittingEmptySubsequences: false).count == 4)
        #expect(!text.contains("\u{0}"))
        #expect(SnapshotKey(text) == key)
        let json = try CatalogCoding.encoder().encode([key])
        #expect(try CatalogCoding.decoder().decode([SnapshotKey].self, from: json) == [key])
    }

    @Test(arguments: [
        "", "en-iPhone", "en-iPhone/games", "en-iPhone/games/X/-1", "en-iPhone/games/X/01", "en-iPhone/games//0",
        "en-iPhone/games/a/b/0", "en-iPhone/games/%ZZ/0", "xx/categories", "en-iPhone/categories/extra",
        "en-iPhone/games/X/+1", "en-iPhone/games/X/1x", "en-iPhone/games/X/", "en-iPhone/games/X Y/0",
        "EN-iPhone/categories", "en-iphone/categories", "en-iPhone/games/X/99999999999999999999",
    ])
    func rejectsMalformedSpellings(text: String) {
        #expect(SnapshotKey(text) == nil)
    }
}
