@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

@Suite struct EditionTests {
    @Test(arguments: [
        ("en-iPhone", "en", Platform.iPhone), ("fr-Android", "fr", .android), ("pt-BR-PC", "pt-BR", .pc),
        ("zh-Hant-iPad", "zh-Hant", .iPad), ("es-419-Android", "es-419", .android), ("haw-iPhone", "haw", .iPhone),
    ])
    func parsesLanguageAndPlatform(id: String, language: String, platform: Platform) throws {
        let edition = try Edition(id: id)
        #expect(edition.language == language)
        #expect(edition.platform == platform)
        #expect(edition.id == id)
    }

    @Test(arguments: [
        "", "en", "en-", "-iPhone", "en-iphone", "EN-iPhone", "../en-iPhone", "en/x-iPhone", "e\u{0}n-iPhone",
        "english-iPhone", "en-B-iPhone", "en-ABCDEFGHI-iPhone", "en--iPhone", "\u{E9}-iPhone", "en-iPhone\u{301}",
        "pt-BR-\u{301}iPhone", "e-iPhone", "en-BR-",
    ])
    func rejectsMalformedIDs(id: String) {
        #expect(throws: Edition.InvalidID.self) { try Edition(id: id) }
    }

    @Test func encodesAsItsIDString() throws {
        let edition = try Edition(id: "fr-iPhone")
        let json = try CatalogCoding.encoder().encode([edition])
        #expect(String(decoding: json, as: UTF8.self) == #"["fr-iPhone"]"#)
        #expect(try CatalogCoding.decoder().decode([Edition].self, from: json) == [edition])
    }

    @Test func failsToDecodeAnUnknownPlatform() {
        let json = Data(#"["en-Windows"]"#.utf8)
        #expect(throws: DecodingError.self) { try CatalogCoding.decoder().decode([Edition].self, from: json) }
    }
}
