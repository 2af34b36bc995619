@_spi(CatalogTools) import CasinoCatalog
import Foundation
@_spi(CatalogTools) import ProviderAPI
import Testing

@Suite struct ProviderMappingTests {
    /// A record as the provider sends it, with the quirks of PROVIDER_API.md.
    static let recordJSON = #"""
        {
          "href": "https://api.example.com/v1/casino/games/34795", "id": 34795, "gId": 34795,
          "slug": "lara-jones-is-cleopatra-rgs", "name": "  Lara Jones is Cleopatra ",
          "description": "<p>Did you grow up playing <b>Tomb Raider</b>? &amp; more</p><script>x()</script>",
          "launchUrl": "https://launch.example.com/Loader/Start/4093/lara-jones-is-cleopatra-rgs",
          "thumbnail": "//static.everymatrix.com/cms2/base/_casino/C/C1CD.jpg",
          "backgroundImageUrl": "http://insecure.example.com/b.jpg",
          "hasFunMode": "1", "hasAnonymousFunMode": "0", "isNew": true,
          "platform": "iPhone,Android,iPad,SmartTV", "popularity": "12.5",
          "vendor": {"href": "https://api.example.com/v1/casino/vendors/266"},
          "tags": {"count": 1, "total": 1, "items": [{"href": "https://api.example.com/v1/casino/tags/Free%20Spins"}]},
          "theoreticalPayOut": "96.21", "restrictedTerritories": ["AF", "ca-on", "??"],
          "experimentalFlags": {"a": [1, 2, {"b": null}]}
        }
        """#

    @Test func mapsEveryQuirkOfARealRecord() throws {
        // Given a provider record with string booleans, a numeric id, a percent RTP string…
        let record = try JSONDecoder().decode(ProviderGame.self, from: Data(Self.recordJSON.utf8))
        // When it is mapped
        let mapped = try ProviderMapping.game(from: record)
        let game = mapped.value
        // Then every field is in schema form
        #expect(game.id == "34795")
        #expect(game.name == "Lara Jones is Cleopatra")
        #expect(game.description == "Did you grow up playing Tomb Raider? & more")
        #expect(game.thumbnail == "https://static.everymatrix.com/cms2/base/_casino/C/C1CD.jpg")
        #expect(game.backgroundImageUrl == nil)
        #expect(game.hasFunMode && !game.hasAnonymousFunMode && game.isNew)
        #expect(game.platforms == [.android, .iPad, .iPhone])
        #expect(game.popularity == 12.5)
        #expect(game.vendor == Vendor(id: "266", name: "266"))
        #expect(game.tags == ["Free Spins"])
        #expect(game.rtp == 0.9621)
        #expect(game.restrictedTerritories == ["AF", "CA-ON"])
        #expect(game.violations().isEmpty)
        // And what was dropped is noted by field
        #expect(mapped.notes.contains { $0.hasPrefix("backgroundImageUrl:") })
        #expect(mapped.notes.contains { $0.hasPrefix("platform:") })
        #expect(mapped.notes.contains { $0.hasPrefix("restrictedTerritories:") })
    }

    @Test(arguments: [
        (FlexibleValue.double(0.9646), 0.9646), (.double(96.46), 0.9646), (.string("96.21"), 0.9621),
        (.string(" 0.95 "), 0.95),
        (.int(97), 0.97), (.string("96,5"), 0.965), (.string("96.5%"), 0.965),
    ])
    func coercesRTPToAFraction(value: FlexibleValue, expected: Double) throws {
        let game = try ProviderMapping.game(from: Self.minimal(rtp: value)).value
        #expect(game.rtp == expected)
    }

    @Test(arguments: [FlexibleValue.string("abc"), .double(0), .double(-3), .double(250), .bool(true)])
    func dropsAnRTPThatIsNoRTP(value: FlexibleValue) throws {
        let mapped = try ProviderMapping.game(from: Self.minimal(rtp: value))
        #expect(mapped.value.rtp == nil)
        #expect(mapped.notes.contains { $0.hasPrefix("theoreticalPayOut:") })
    }

    @Test(arguments: [
        (FlexibleValue.string("1"), true), (.string("0"), false), (.int(1), true), (.bool(true), true),
        (.string("true"), true),
        (.string("maybe"), false),
    ])
    func coercesBooleans(value: FlexibleValue, expected: Bool) throws {
        var record = Self.minimal()
        record.hasFunMode = value
        #expect(try ProviderMapping.game(from: record).value.hasFunMode == expected)
    }

    @Test func refusesARecordWithoutName() {
        var record = Self.minimal()
        record.name = " \n "
        let error = #expect(throws: RecordError.self) { try ProviderMapping.game(from: record) }
        #expect(error?.field == "name")
    }

    @Test(arguments: ["http://insecure.example.com/x", "javascript:alert(1)", "not a url", "/relative", ""])
    func refusesANonHTTPSLaunchURL(url: String) {
        var record = Self.minimal()
        record.launchUrl = url
        let error = #expect(throws: RecordError.self) { try ProviderMapping.game(from: record) }
        #expect(error?.field == "launchUrl")
    }

    @Test func takesTheIDFromGIdWhenIdIsMissing() throws {
        var record = Self.minimal()
        record.id = nil
        record.gId = .int(42)
        #expect(try ProviderMapping.game(from: record).value.id == "42")
    }

    @Test func derivesAMissingSlugFromTheName() throws {
        var record = Self.minimal()
        record.slug = nil
        record.name = "Machines à Sous: Édition Spéciale!"
        let mapped = try ProviderMapping.game(from: record)
        #expect(mapped.value.slug == "machines-a-sous-edition-speciale")
    }

    @Test func normalizesNamesToNFC() throws {
        var record = Self.minimal()
        record.name = "Cafe\u{301}  Royale"
        let name = try ProviderMapping.game(from: record).value.name
        #expect(name == "Caf\u{E9} Royale")
        #expect(name.unicodeScalars.count == 11)
    }

    @Test func mapsACategoryWithItsGamesTotal() throws {
        let json =
            #"{"href": "//api.example.com/v1/casino/categories/VIDEOSLOTS", "id": "VIDEOSLOTS", "name": "Video Slots", "games": {"count": 0, "total": 133, "items": []}}"#
        let record = try JSONDecoder().decode(ProviderCategory.self, from: Data(json.utf8))
        let category = try ProviderMapping.category(from: record).value
        #expect(
            category
                == Category(
                    id: "VIDEOSLOTS", name: "Video Slots",
                    href: "https://api.example.com/v1/casino/categories/VIDEOSLOTS", gamesTotal: 133))
    }

    @Test func keepsAnUndecodableItemAsItsErrorWithoutFailingThePage() throws {
        // Given a page whose second item has a name that is an object
        let json = #"{"count": 2, "total": 2, "items": [{"id": "1", "name": "A"}, {"id": "2", "name": {"en": "B"}}]}"#
        // When it is decoded leniently
        let page = try JSONDecoder().decode(ProviderCollection<Lossy<ProviderGame>>.self, from: Data(json.utf8))
        // Then the first item decodes and the second carries a message naming the field
        #expect(page.items?[0].value?.name == "A")
        #expect(page.items?[1].value == nil)
        #expect(page.items?[1].failure?.contains("name") == true)
    }

    static func minimal(rtp: FlexibleValue? = nil) -> ProviderGame {
        ProviderGame(
            id: .string("1"), slug: "one", name: "One", launchUrl: "https://launch.example.com/1",
            thumbnail: "https://static.example.com/1.jpg", theoreticalPayOut: rtp)
    }
}
