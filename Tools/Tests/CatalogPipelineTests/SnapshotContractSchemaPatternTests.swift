@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Testing

/// The schema's string patterns against the Swift checks they mirror, on the same inputs: what Swift
/// accepts the schema must accept (a valid file never fails the schema), and what Swift refuses the
/// schema refuses too, but for the gaps a regular expression cannot close, which are listed.
@Suite struct SnapshotContractSchemaPatternTests {
    /// The strings of one definition, the Swift check they are held to, and its known gaps.
    struct Samples: Sendable, CustomTestStringConvertible {
        var definition: String
        var isAcceptedBySwift: @Sendable (String) -> Bool
        var values: [String]
        /// Strings Swift refuses and the schema accepts, on purpose.
        var gaps: Set<String> = []
        var testDescription: String { definition }
    }

    @Test(arguments: Self.all)
    func patternsAcceptWhatSwiftAcceptsAndRefuseTheRest(_ samples: Samples) throws {
        // Given each string in a file of its own
        let scratch = try TemporaryDirectory()
        let files = try samples.values.enumerated().map { index, value in
            let file = scratch.url.appendingPathComponent("\(index).json")
            try JSONEncoder().encode(value).write(to: file)
            return file
        }

        // When jsonschema validates them against the definition
        let outcomes = try PythonJSONSchema.validate(
            files, against: try scratch.schema(), definition: samples.definition)

        // Then the schema agrees with Swift, but for the listed gaps
        try #require(outcomes.count == samples.values.count)
        for (value, outcome) in zip(samples.values, outcomes) {
            let isAcceptedBySchema = outcome.errors.isEmpty
            let expected = samples.isAcceptedBySwift(value) || samples.gaps.contains(value)
            #expect(isAcceptedBySchema == expected, "'\(value.prefix(80))' (\(value.count)): \(outcome)")
        }
        #expect(samples.gaps.allSatisfy { !samples.isAcceptedBySwift($0) && samples.values.contains($0) })
    }

    static let all: [Samples] = [
        Samples(
            definition: "HTTPSURL", isAcceptedBySwift: CatalogRules.isAbsoluteHTTPS,
            values: [
                "https://static.example.com/c/C1CD.jpg", "https://launch.example.com:8443/Loader/Start/4093?x=1#top",
                "https://a.b/%20x", "https://a", "https://host?x=1", "https://host#top", "https://a/b@c",
                "https://host.-/x", "https://1.2.3.4/x", "https://a/b:c;d=e!$&'()*+,~[]",
                "https://" + String(repeating: "a", count: 2040), "https://" + String(repeating: "a", count: 2041),
                "", "http://static.example.com/x.jpg", "//static.example.com/x.jpg", "/relative/x.jpg",
                "javascript:alert(1)", "https://", "https:///path", "https://exa mple.com/", "https://example.com/a b",
                "https://user@evil.com/", "https://example.com/\u{0}", "https://ex<ample.com/", "garbage",
                "ftp://x.com/", "https://-bad.com/", "https://.bad.com/", "https://exämple.com/", "https://ho_st/",
                "https://host:/", "https://host:80:90/", "https://host:123456/", "https://host/a{b}",
                "https://host/é", "HTTPS://host/", "https://host/a\\b",
                "https://example.com:99999/", "https://example.com:0/",
            ],
            gaps: ["https://example.com:99999/", "https://example.com:0/"]),  // the port's range
        Samples(
            definition: "SnapshotPath", isAcceptedBySwift: CatalogRules.isSafeRelativePath,
            values: [
                "en-iPhone/categories.json.gz", "en-iPhone/games/videoslots-3f2a9c1b0d/0.json.gz", "manifest.json",
                "a/.../b", ".hidden/x", "a/..b", "..a", String(repeating: "a", count: 255),
                Array(repeating: String(repeating: "a", count: 204), count: 5).joined(separator: "/"),
                Array(repeating: String(repeating: "a", count: 204), count: 5).joined(separator: "/") + "a",
                String(repeating: "a", count: 256), "", "/etc/passwd", "../x", "a/../b", "a//b", "a/./b", "a\\b",
                "a/b\u{0}", "a/🎰", "a/b/", "a b", ".", "..", "a/..", "./a",
            ]),
        Samples(
            definition: "SnapshotKey", isAcceptedBySwift: { SnapshotKey($0) != nil },
            values: [
                "en-iPhone/categories", "en-iPhone/games/SLOTS/0", "en-iPhone/games/SLOTS/10",
                "pt-BR-Android/games/A%2FB/990", "fr-iPhone/games/a%2fb/5", "en-PC/games/~._-/1",
                "en-iPhone/games/%00/0", "en-iPhone/games/S/123456789012345678",
                "en-iPhone/games/S/1234567890123456789", "", "en-iPhone", "en-iPhone/categories/x",
                "en-iPhone/games/SLOTS", "en-iPhone/games/SLOTS/010", "en-iPhone/games/SLOTS/-1",
                "en-iPhone/games/SLOTS/+1", "en-iPhone/games//0", "en-iPhone/games/A/B/0", "en-iPhone/games/A%2/0",
                "en-iPhone/games/A%ZZ/0", "en-iPhone/games/A B/0", "en-iphone/categories", "EN-iPhone/categories",
                "en-iPhone/games/SLOTS/1x", "en-iPhone/gamesPage/SLOTS/0",
                "en-iPhone/games/%FF/0",
            ],
            gaps: ["en-iPhone/games/%FF/0"]),  // an escaped category id that is not UTF-8
        Samples(
            definition: "Edition", isAcceptedBySwift: { (try? Edition(id: $0)) != nil },
            values: [
                "en-iPhone", "pt-BR-Android", "zh-Hant-PC", "haw-iPad", "en-PC-iPhone", "es-419-Android",
                "EN-iPhone", "e-iPhone", "engl-iPhone", "en-iphone", "en", "en-", "-iPhone", "en-B-iPhone",
                "en-ABCDEFGHI-iPhone", "en--iPhone", "en_US-iPhone", "",
            ]),
        Samples(
            definition: "TerritoryCode", isAcceptedBySwift: CatalogRules.isTerritoryCode,
            values: ["FR", "CA-ON", "GB-ENG", "US-1", "fr", "FRA", "CA-", "", "CA-ONTA", "C1", "CA_ON", "CA-on"]),
        Samples(
            definition: "Identifier", isAcceptedBySwift: { Vendor(id: $0, name: "Name").violations().isEmpty },
            values: [
                "SLOTS", "a", " a ", "a b", String(repeating: "a", count: 128), String(repeating: "é", count: 128),
                // 100 characters of 2 code points each, and 128 of 2: Swift counts characters
                String(repeating: "🇫🇷", count: 100), String(repeating: "e\u{301}", count: 128),
                "", " ", "    ", String(repeating: "a", count: 129), "\t", "a\tb", "a\u{7}", "a\u{85}b", "a\u{7F}",
                "\u{1F}x", "a\nb",
                "\u{A0}", String(repeating: "é", count: 129),
            ],
            // Unicode whitespace other than spaces, and lengths beyond printable ASCII
            gaps: ["\u{A0}", String(repeating: "é", count: 129)]),
        Samples(
            definition: "Name", isAcceptedBySwift: { Vendor(id: "id", name: $0).violations().isEmpty },
            values: [String(repeating: "a", count: 256), String(repeating: "a", count: 257), "Live Casino", "  "]),
    ]
}
