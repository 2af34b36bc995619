import Foundation
@_spi(CatalogTools) import ProviderAPI
import Testing

@Suite struct ProviderGameTests {
    @Test func aChangedCopyLeavesTheOriginalAlone() {
        // Given a game and a copy, which share their fields
        let original = ProviderGame(id: .string("34795"), name: "Cleopatra", tags: ProviderCollection(items: []))
        var copy = original
        // When the copy's fields change, one directly and one nested
        copy.name = "Book of Ra"
        copy.tags?.items?.append(ProviderReference(name: "Free Spins"))
        // Then only the copy sees them
        #expect(original.name == "Cleopatra" && original.tags?.items?.isEmpty == true)
        #expect(copy.name == "Book of Ra" && copy.tags?.items?.map(\.name) == ["Free Spins"])
        #expect(copy.id == original.id && copy != original)
        // And printing a game shows its fields, not its storage
        #expect(String(describing: copy).contains(#"name: Optional("Book of Ra")"#))
    }

    @Test func gamesWithEqualFieldsAreEqualAndHashAlike() {
        // Given two games built apart with the same fields, one field by field
        let built = ProviderGame(id: .int(7), slug: "seven", name: "Seven")
        var fields = ProviderGame.Fields()
        fields.id = .int(7)
        fields.slug = "seven"
        fields.name = "Seven"
        let filled = ProviderGame(fields)
        // Then they are equal, hash alike, and a change makes them differ
        #expect(built == filled && Set([built, filled]).count == 1)
        var changed = filled
        changed.slug = nil
        #expect(changed != filled)
    }

    @Test func encodesAndDecodesAsTheProviderWritesIt() throws {
        // Given a record as the provider writes it
        let json = Data(
            #"{"id":"12","launchUrl":"https://l.example.com/12","name":"Twelve","platform":"iPhone,iPad"}"#.utf8)
        // When it is decoded and encoded again
        let game = try JSONDecoder().decode(ProviderGame.self, from: json)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let encoded = try encoder.encode(game)
        // Then the fields read through, and the keys are the provider's, not the storage's
        #expect(game.name == "Twelve" && game.bestID == "12" && game.platform?.values == ["iPhone", "iPad"])
        #expect(encoded == json)
    }
}
