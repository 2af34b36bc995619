import Foundation
import Testing

@testable import CatalogPipeline

/// The writer reproduces `json.dumps(value, indent=2, ensure_ascii=False)` and the few Python text
/// functions the curated data uses. Expected texts come from python3 3.11.
@Suite struct PythonJSONTests {
    @Test func writesIndentedJSONLikeJSONDumpsWithSortedKeys() {
        // Given a value with nested containers, floats in both notations and escapes
        let value: PythonJSON = .object([
            ("b", .double(1.5)),
            (
                "a",
                .array([.bool(true), .null, .int(-3), .double(1e16), .double(1e-05), .double(0.9646), .double(96.46)])
            ),
            ("ü\u{2028}", .string("x\u{1F}y\u{7F}")),
            ("c", .object([])), ("d", .array([])),
        ])
        // When it is dumped with sort_keys=True
        // Then the text is Python's
        #expect(
            value.dumps(sortKeys: true) == """
                {
                  "a": [
                    true,
                    null,
                    -3,
                    1e+16,
                    1e-05,
                    0.9646,
                    96.46
                  ],
                  "b": 1.5,
                  "c": {},
                  "d": [],
                  "ü\u{2028}": "x\\u001fy\u{7F}"
                }
                """)
    }

    @Test func keepsInsertionOrderWithoutSortKeys() {
        let value: PythonJSON = .object([("z", .int(1)), ("a", .string("\"\\\n\t"))])
        #expect(value.dumps() == "{\n  \"z\": 1,\n  \"a\": \"\\\"\\\\\\n\\t\"\n}")
    }

    @Test(arguments: [
        ("Nouveaute\u{0301}s", #""Nouveaute\u0301s""#), ("Machines à sous", #""Machines \u00e0 sous""#),
        ("é\u{1F600}", #""\u00e9\ud83d\ude00""#),
    ])
    func escapesEverythingBeyondASCIIWhenAskedLikeEnsureASCII(text: String, expected: String) {
        #expect(PythonJSON.quoted(text, asciiOnly: true) == expected)
    }

    @Test func reproducesSlugifyQuoteGFormatAndRound() {
        #expect(PythonText.slugify("Château Fortune") == "chateau-fortune")
        #expect(PythonText.slugify("Robin's Arrow") == "robin-s-arrow")
        #expect(PythonText.quote("Hold & Win") == "Hold%20%26%20Win")
        #expect(PythonText.xmlEscape(#"a<b & "c">"#, quotes: true) == "a&lt;b &amp; &quot;c&quot;&gt;")
        #expect(
            ["9650", "9600", "9646", "9405"].map { PythonText.generalFormat(hundredths: Int($0)!) } == [
                "96.5", "96", "96.46", "94.05",
            ])
        // round(97.935, 2) == 97.94, round(0.125, 2) == 0.12, round(2.675, 2) == 2.67
        #expect([97.935, 0.125, 2.675].map(PythonText.round2) == [97.94, 0.12, 2.67])
    }
}
