@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

@Suite struct CanonicalPayloadTests {
    @Test func writesTheBytesCanonicalJSONWritesForRandomPagesAndLists() throws {
        // Given 2,000 random pages and category lists: every optional present or not, text with
        // quotes, backslashes, controls, accents composed and not, emoji; numbers of every size
        var generator = SystemRandomNumberGenerator()
        var compared = 0
        var refused = 0
        for _ in 0..<2_000 {
            let page = Self.page(using: &generator)
            let list = Self.categories(using: &generator)
            // When both writers write them, then they agree: the same bytes, or both refuse
            switch (Result { try CanonicalPayload.encode(page) }, Result { try CanonicalJSON.encode(page) }) {
            case (.success(let direct), .success(let transcoded)):
                #expect(direct == transcoded, "\(String(decoding: direct, as: UTF8.self))")
                compared += 1
            case (.failure, .failure): refused += 1
            case (let direct, let transcoded): Issue.record("one writer refused: \(direct) against \(transcoded)")
            }
            switch (Result { try CanonicalPayload.encode(list) }, Result { try CanonicalJSON.encode(list) }) {
            case (.success(let direct), .success(let transcoded)): #expect(direct == transcoded)
            case (.failure, .failure): refused += 1
            case (let direct, let transcoded): Issue.record("one writer refused: \(direct) against \(transcoded)")
            }
        }
        #expect(compared > 1_000 && refused > 0, "\(compared) compared, \(refused) refused")
    }

    @Test func refusesWhatCanonicalJSONCannotWrite() {
        // Given text that is not NFC, a number that is not finite, an integer past 2^53
        var page = GamesPage(categoryId: "e\u{301}", offset: 0, limit: 10, total: 0, items: [])
        #expect(throws: CanonicalJSONError.self) { try CanonicalPayload.encode(page) }
        page.categoryId = "SLOTS"
        page.total = 1 << 60 + 1
        #expect(throws: CanonicalJSONError.self) { try CanonicalPayload.encode(page) }
        page.total = 0
        page.items = [Game(id: "1", name: "a", slug: "a", launchUrl: "u", thumbnail: "t", popularity: .nan)]
        #expect(throws: CanonicalJSONError.self) { try CanonicalPayload.encode(page) }
    }

    // MARK: - Random values

    private static func page(using generator: inout some RandomNumberGenerator) -> GamesPage {
        let games = (0..<Int.random(in: 0...4, using: &generator)).map { _ in game(using: &generator) }
        return GamesPage(
            categoryId: text(using: &generator), offset: integer(using: &generator),
            limit: integer(using: &generator), total: integer(using: &generator), items: games)
    }

    private static func categories(using generator: inout some RandomNumberGenerator) -> CategoryList {
        CategoryList(
            items: (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                Category(
                    id: text(using: &generator), name: text(using: &generator),
                    href: Bool.random(using: &generator) ? text(using: &generator) : nil,
                    gamesTotal: integer(using: &generator))
            })
    }

    private static func game(using generator: inout some RandomNumberGenerator) -> Game {
        func maybe(_ make: () -> String) -> String? { Bool.random(using: &generator) ? make() : nil }
        return Game(
            id: text(using: &generator), name: text(using: &generator), slug: text(using: &generator),
            launchUrl: text(using: &generator), thumbnail: text(using: &generator),
            backgroundImageUrl: maybe { text(using: &generator) }, description: maybe { text(using: &generator) },
            hasFunMode: .random(using: &generator), hasAnonymousFunMode: .random(using: &generator),
            platforms: Platform.allCases.filter { _ in .random(using: &generator) },
            popularity: number(using: &generator), isNew: .random(using: &generator),
            vendor: Bool.random(using: &generator)
                ? Vendor(
                    id: text(using: &generator), name: text(using: &generator), logo: maybe { text(using: &generator) })
                : nil,
            tags: (0..<Int.random(in: 0...3, using: &generator)).map { _ in text(using: &generator) },
            rtp: Bool.random(using: &generator) ? number(using: &generator) : nil,
            restrictedTerritories: (0..<Int.random(in: 0...2, using: &generator)).map { _ in text(using: &generator) })
    }

    private static let pieces = [
        "SLOTS", "a", "Ünïcödé", "\u{E9}", "\"", "\\", "/", "\n", "\t", "\u{1}", "\u{1F}", "\u{7F}",
        "🎰", "\u{2028}", "한국어", "\u{FB01}", " ", "https://cdn.example.com/x.jpg", "\u{0}",
    ]

    private static func text(using generator: inout some RandomNumberGenerator) -> String {
        let text = (0..<Int.random(in: 0...4, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
            .joined()
        // Now and then text that is not NFC, which both must refuse
        return Int.random(in: 0..<400, using: &generator) == 0 ? text + "e\u{301}" : text
    }

    private static func integer(using generator: inout some RandomNumberGenerator) -> Int {
        switch Int.random(in: 0..<40, using: &generator) {
        case 0: 1 << 53
        case 1: Int.random(in: Int.min...Int.max, using: &generator)
        case 2: 999_999_999_999_999 + Int.random(in: 0...2, using: &generator)
        case 3..<10: 0
        default: Int.random(in: -1_000...1_000, using: &generator)
        }
    }

    private static func number(using generator: inout some RandomNumberGenerator) -> Double {
        switch Int.random(in: 0..<60, using: &generator) {
        case 0: 0
        case 1: -0.0
        case 2: Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator))
        case 3:
            [1e21, 1e-7, 0x1p70, .leastNonzeroMagnitude, 1e15, 123_456_789_012_345].randomElement(using: &generator)!
        case 4: Double.random(in: -1e300...1e300, using: &generator)
        case 5: .infinity
        case 6..<30: Double(Int.random(in: 0...100, using: &generator))
        default: Double.random(in: 0...1, using: &generator)
        }
    }
}
