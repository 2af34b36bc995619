@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

@Suite struct ValidationTests {
    static func game(_ id: String) -> Game {
        Game(
            id: id, name: "Game \(id)", slug: "game-\(id)", launchUrl: "https://launch.example.com/\(id)",
            thumbnail: "https://static.example.com/\(id).jpg", platforms: [.android, .iPhone], rtp: 0.96)
    }

    @Test func acceptsAWellFormedPage() {
        let page = GamesPage(
            categoryId: "SLOTS", offset: 10, limit: 10, total: 13, items: (1...3).map { Self.game("\($0)") })
        #expect(page.violations().isEmpty)
        #expect(!page.hasMore)
    }

    @Test(arguments: [
        (Int.max, 10, 1), (1 << 62, 1 << 62, (1 << 62) + 1), (Int.max - 5, 10, Int.max), (-10, 10, 30),
        (0, Int.max, 30),
        (Int.min, 10, 30), (10, 10, Int.min),
    ])
    func reportsPageNumbersAtTheEdgesOfIntInsteadOfTrapping(offset: Int, limit: Int, total: Int) {
        // Given a page whose numbers come from a hostile file
        let page = GamesPage(categoryId: "SLOTS", offset: offset, limit: limit, total: total, items: [Self.game("1")])
        // Then its rules name what is wrong, and the derived positions do not trap
        #expect(page.violations().contains { $0.code == .pageArithmetic })
        _ = page.hasMore
        _ = page.nextOffset
    }

    /// `../shared/repro/page-envelope-offset-intmax.json`: found by fuzzing, it trapped in
    /// `violations()` (`offset + items.count`).
    @Test func reportsTheMinimisedIntMaxOffsetReproducer() throws {
        let json = #"""
            {"contentHash":"sa8","edition":"en-iPhone","generatedAt":"2-11-20T0:00:00Z","key":"en-iPhone/games/CE/0","kind":"gamesPage","payload":{"categoryId":"T001","count":10,"items":[{"re":true,"id":"1","isNew":false,"launchUrl":"t","name":"B","platforms":["Android"],"popularity":7,"restrictedTerritories":["A"],"slug":"bla","tags":["Fr"],"thumbnail":"us.","hasAnonymousFunMode":false,"hasFunMode":true,"in":{"id":"202"}}],"limit":10,"offset":9223372036854775807,"total":1},"schemaVersion":1}
            """#
        struct Envelope: Decodable { var payload: GamesPage }
        let page = try JSONDecoder().decode(Envelope.self, from: Data(json.utf8)).payload
        #expect(page.violations().contains { $0.path == "offset" && $0.code == .pageArithmetic })
    }

    @Test func reportsACountThatDisagreesWithItems() {
        var page = GamesPage(
            categoryId: "SLOTS", offset: 0, limit: 10, total: 30, items: (1...10).map { Self.game("\($0)") })
        page.count = 9
        #expect(page.violations().contains { $0.code == .pageArithmetic && $0.path == "count" })
    }

    @Test func acceptsAPageWithHolesLeftByRefusedRecords() {
        // Given the first of three pages, two of its records refused by the normalizer
        let page = GamesPage(
            categoryId: "SLOTS", offset: 0, limit: 10, total: 30, items: (1...8).map { Self.game("\($0)") })
        // Then it is valid, and the next page still starts at the provider's offset 10
        #expect(page.violations().isEmpty)
        #expect(page.hasMore)
        #expect(page.nextOffset == 10)
    }

    @Test func reportsAPageThatStartsPastTheTotalOrHoldsMoreThanItsLimit() {
        let late = GamesPage(categoryId: "SLOTS", offset: 30, limit: 10, total: 30, items: [Self.game("1")])
        #expect(late.violations().contains { $0.code == .pageArithmetic && $0.path == "offset" })
        let full = GamesPage(
            categoryId: "SLOTS", offset: 0, limit: 2, total: 30, items: (1...3).map { Self.game("\($0)") })
        #expect(full.violations().contains { $0.code == .pageArithmetic && $0.path == "items" })
    }

    @Test func reportsAnOffsetThatIsNotAMultipleOfTheLimit() {
        let page = GamesPage(
            categoryId: "SLOTS", offset: 5, limit: 10, total: 30, items: (1...10).map { Self.game("\($0)") })
        #expect(page.violations().contains { $0.path == "offset" })
    }

    @Test func reportsDuplicateGameIDsWithBothPositions() {
        let page = GamesPage(
            categoryId: "SLOTS", offset: 0, limit: 10, total: 3,
            items: [Self.game("1"), Self.game("2"), Self.game("1")])
        let violation = page.violations().first { $0.code == .duplicateID }
        #expect(violation?.path == "items[2].id")
        #expect(violation?.message.contains("items[0]") == true)
    }

    @Test func namesTheFieldOfAnInvalidGame() {
        var game = Self.game("7")
        game.launchUrl = "http://insecure.example.com/7"
        game.name = "  "
        game.rtp = 96.5
        let page = GamesPage(categoryId: "SLOTS", offset: 0, limit: 10, total: 1, items: [game])
        let paths = Set(page.violations().map(\.path))
        #expect(paths.isSuperset(of: ["items[0].launchUrl", "items[0].name", "items[0].rtp"]))
    }

    @Test func rejectsEmptyCategoriesAndDuplicateCategoryIDs() {
        let list = CategoryList(items: [
            Category(id: "A", name: "A", gamesTotal: 3), Category(id: "B", name: "B", gamesTotal: 0),
            Category(id: "A", name: "A again", gamesTotal: 1),
        ])
        let codes = list.violations().map(\.code)
        #expect(codes.contains(.outOfRange))
        #expect(codes.contains(.duplicateID))
    }
}
