@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

@Suite struct WithdrawalListTests {
    static func read(_ json: String) throws(WithdrawalListError) -> WithdrawalList {
        try WithdrawalList(json: Data(json.utf8))
    }

    @Test func readsTheDocumentedShape() throws {
        let list = try Self.read(
            #"{"sequence": 42, "games": [{"id": "10017"}, {"id": "10021", "territories": ["GB", "CA-ON"]}]}"#)
        #expect(list.sequence == 42)
        #expect(list.games == [Withdrawal(id: "10017"), Withdrawal(id: "10021", territories: ["GB", "CA-ON"])])
        #expect(list.games[0].isEverywhere && !list.games[1].isEverywhere)
        #expect(try WithdrawalList(json: list.json()) == list)
    }

    @Test func aSequenceOfIntMaxIsReadAndOnePastItIsRefusedByName() throws {
        #expect(try Self.read(#"{"sequence": 9223372036854775807, "games": []}"#).sequence == Int.max)
        let error = #expect(throws: WithdrawalListError.self) {
            try Self.read(#"{"sequence": 9223372036854775808, "games": []}"#)
        }
        #expect(error?.code == .malformed && error?.message.contains("sequence") == true)
    }

    @Test(arguments: [0, -1, Int.min])
    func aSequenceBelowOneIsRefused(_ sequence: Int) {
        let error = #expect(throws: WithdrawalListError.self) {
            try Self.read(#"{"sequence": \#(sequence), "games": []}"#)
        }
        #expect(error?.code == .badSequence)
    }

    @Test(arguments: [
        (#"{"sequence": 1, "games": [{"id": "a"}, {"id": 7}]}"#, "games[1].id"),
        (#"{"sequence": 1, "games": [{"id": "a", "territories": "GB"}]}"#, "games[0].territories"),
        (#"{"sequence": 1}"#, "games"),
        (#"{"sequence": "1", "games": []}"#, "sequence"),
        (#"[1, 2]"#, "the list"),
        ("{\"sequence\": 1, \"games\": [", "JSON"),
    ])
    func wrongTypesAreRefusedNamingTheRecord(_ json: String, _ named: String) {
        let error = #expect(throws: WithdrawalListError.self) { try Self.read(json) }
        #expect(error?.code == .malformed)
        #expect(error?.message.contains(named) == true, "\(String(describing: error))")
    }

    @Test func aGameNamedTwiceOrAnEmptyIdIsRefusedWithItsIndex() {
        let twice = #expect(throws: WithdrawalListError.self) {
            try Self.read(#"{"sequence": 1, "games": [{"id": "a"}, {"id": "b"}, {"id": "a"}]}"#)
        }
        #expect(twice?.code == .badRecord && twice?.record == 2)
        let empty = #expect(throws: WithdrawalListError.self) {
            try Self.read(#"{"sequence": 1, "games": [{"id": ""}]}"#)
        }
        #expect(empty?.code == .badRecord && empty?.record == 0)
    }

    @Test func aListOverTheByteCapIsRefusedBeforeItIsParsed() {
        // 10 MB of one withdrawal's territories: over the 8 MiB cap
        let json =
            #"{"sequence": 1, "games": [{"id": "a", "territories": ["# + String(repeating: #""GB","#, count: 2_000_000)
            + #""GB"]}]}"#
        let error = #expect(throws: WithdrawalListError.self) { try Self.read(json) }
        #expect(error?.code == .tooLarge)
    }

    @Test func aListOfAMillionGamesIsRefused() {
        // 10⁶ records is over the byte cap already; 100,001 short ones are under it and over the game cap
        let million =
            #"{"sequence": 1, "games": ["# + (0..<1_000_000).map { #"{"id":"\#($0)"}"# }.joined(separator: ",") + "]}"
        #expect((try? Self.read(million)) == nil)
        let justOver =
            #"{"sequence": 1, "games": ["#
            + (0...WithdrawalList.maxGames).map { #"{"id":"\#($0)"}"# }.joined(separator: ",") + "]}"
        let error = #expect(throws: WithdrawalListError.self) { try Self.read(justOver) }
        #expect(error?.code == .tooManyGames)
    }

    @Test func malformedTerritoryCodesAreKeptAndReported() throws {
        let list = try Self.read(#"{"sequence": 1, "games": [{"id": "a", "territories": ["GB", "G B", "ca-on"]}]}"#)
        #expect(list.games[0].territories.count == 3)
        #expect(list.malformedTerritories == [#"games[0].territories[1] "G B""#, #"games[0].territories[2] "ca-on""#])
    }
}

@Suite struct WithdrawalLookupTests {
    static func game(_ id: String, restricted: [String] = []) -> Game {
        Game(
            id: id, name: id, slug: id, launchUrl: "https://play.example.com/\(id)",
            thumbnail: "https://img.example.com/\(id).png", restrictedTerritories: restricted)
    }

    static let page = GamesPage(
        categoryId: "SLOTS", offset: 0, limit: 5, total: 9,
        items: [game("a"), game("b"), game("c", restricted: ["CA"]), game("d"), game("e")])

    @Test func aBundleLeavesOutGamesWithdrawnEverywhereAndRestrictsTheOthers() {
        // Given a withdrawn everywhere, b in GB, c in Ontario (already restricted in all of Canada), d in "G B"
        let lookup = WithdrawalLookup(
            WithdrawalList(
                sequence: 4,
                games: [
                    Withdrawal(id: "a"), Withdrawal(id: "b", territories: ["gb", "GB"]),
                    Withdrawal(id: "c", territories: ["CA-ON"]), Withdrawal(id: "d", territories: ["G B"]),
                ]))
        // When a page is built with it
        let (page, leftOut, restricted) = lookup.applied(to: Self.page)
        // Then a and d (a code that is not one) leave holes, b is restricted in GB, c is as it was
        #expect(page.items.map(\.id) == ["b", "c", "e"] && page.count == 3 && page.total == 9)
        #expect(page.items[0].restrictedTerritories == ["GB"] && page.items[1].restrictedTerritories == ["CA"])
        #expect(leftOut == 2 && restricted == 1)
        // And the page before fails the check with each game named, the page after passes
        #expect(lookup.problems(in: Self.page).map(\.index) == [0, 1, 3])
        #expect(lookup.problems(in: page).isEmpty)
    }
}
