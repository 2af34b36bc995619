@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

/// RFC 8785's published examples that apply to the catalogue's data, and the rules the snapshot
/// contract adds (NFC text, exact integers).
@Suite struct CanonicalJSONTests {
    @Test func canonicalizesTheRFC8785SampleOfSection3_2_2() throws {
        // Given the RFC's sample input, with whitespace, escapes and numbers in other spellings
        let input = #"""
            {
              "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
              "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
              "literals": [null, true, false]
            }
            """#
        // When it is canonicalized
        let output = try CanonicalJSON.canonicalized(Data(input.utf8))
        // Then the bytes are the RFC's
        let expected =
            #"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#
        #expect(String(decoding: output, as: UTF8.self) == expected)
        #expect(throws: Never.self) { try CanonicalJSON.requireCanonical(output) }
    }

    @Test func sortsKeysByUTF16CodeUnitsAsInTheRFC8785SortingExample() throws {
        // Given the RFC's sorting example (§3.2.3), whose U+FB33 key is not NFC
        let input = #"""
            {"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One",
             "\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}
            """#
        // When it is canonicalized as plain RFC 8785, then as the snapshot contract requires
        let output = try CanonicalJSON.canonicalized(Data(input.utf8), requiringNFC: false)
        // Then the order is the RFC's (the emoji's surrogates sort before U+FB33), and the NFC rule refuses it
        let expected =
            "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u{80}\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\","
            + "\"€\":\"Euro Sign\",\"\u{1F600}\":\"Emoji: Grinning Face\",\"\u{FB33}\":\"Hebrew Letter Dalet With Dagesh\"}"
        #expect(String(decoding: output, as: UTF8.self) == expected)
        #expect(throws: CanonicalJSONError.self) { try CanonicalJSON.canonicalized(Data(input.utf8)) }
    }

    /// RFC 8785 Appendix B: IEEE 754 bit patterns and their canonical text.
    @Test(arguments: [
        ("0000000000000000", "0"), ("8000000000000000", "0"), ("0000000000000001", "5e-324"),
        ("8000000000000001", "-5e-324"), ("7fefffffffffffff", "1.7976931348623157e+308"),
        ("ffefffffffffffff", "-1.7976931348623157e+308"), ("4340000000000000", "9007199254740992"),
        ("c340000000000000", "-9007199254740992"), ("4430000000000000", "295147905179352830000"),
        ("44b52d02c7e14af5", "9.999999999999997e+22"), ("44b52d02c7e14af6", "1e+23"),
        ("44b52d02c7e14af7", "1.0000000000000001e+23"), ("444b1ae4d6e2ef4e", "999999999999999700000"),
        ("444b1ae4d6e2ef4f", "999999999999999900000"), ("444b1ae4d6e2ef50", "1e+21"),
        ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"), ("3eb0c6f7a0b5ed8d", "0.000001"),
        ("41b3de4355555553", "333333333.3333332"), ("41b3de4355555554", "333333333.33333325"),
        ("41b3de4355555555", "333333333.3333333"), ("41b3de4355555556", "333333333.3333334"),
        ("41b3de4355555557", "333333333.33333343"), ("becbf647612f3696", "-0.0000033333333333333333"),
        ("43143ff3c1cb0959", "1424953923781206.2"),
    ])
    func writesNumbersAsRFC8785AppendixB(bits: String, expected: String) throws {
        // Given a double from its bit pattern
        let value = Double(bitPattern: try #require(UInt64(bits, radix: 16)))
        // When it is written, alone and as a JSON number
        // Then the text is the RFC's
        #expect(CanonicalJSON.numberText(value) == expected)
        let reparsed = try CanonicalJSON.canonicalized(Data(expected.utf8))
        #expect(String(decoding: reparsed, as: UTF8.self) == expected)
    }

    @Test func refusesNaNAndInfinity() {
        // Given the non-finite doubles RFC 8785 has no text for
        // When they are written
        // Then there is none
        #expect(CanonicalJSON.numberText(.nan) == nil)
        #expect(CanonicalJSON.numberText(.infinity) == nil)
        #expect(CanonicalJSON.numberText(-.infinity) == nil)
    }

    @Test(arguments: [
        (#"{"a":1,"a":2}"#, CanonicalJSONError.Code.duplicateKey), (#"{"b":1,"a":2,"b":3}"#, .duplicateKey),
        (#"{"a":1,"\u0061":2}"#, .duplicateKey),
        (#"["\ud800"]"#, .loneSurrogate), (#"["\udc00x"]"#, .loneSurrogate),
        ("[9007199254740993]", .numberOutOfRange), ("[9223372036854775807]", .numberOutOfRange),
        ("[1152921504606846976]", .numberOutOfRange), ("[1e400]", .numberOutOfRange),
        ("[\"Nouveaute\u{301}s\"]", .notNFC), (#"{"cafe\u0301":1}"#, .notNFC),
        ("[01]", .syntax), ("[1.]", .syntax), ("[-]", .syntax), ("{\"a\":1,}", .syntax), ("[\"\u{1}\"]", .syntax),
        ("[true] x", .syntax), ("\"\\x\"", .syntax), ("", .syntax),
        (String(repeating: "[", count: 200) + String(repeating: "]", count: 200), .tooDeep),
    ])
    func refusesJSONWithoutACanonicalForm(json: String, code: CanonicalJSONError.Code) {
        // Given JSON that breaks I-JSON, the NFC rule or RFC 8259
        // When it is canonicalized
        // Then it is refused with the named code
        #expect {
            try CanonicalJSON.canonicalized(Data(json.utf8))
        } throws: { ($0 as? CanonicalJSONError)?.code == code }
    }

    @Test func refusesBytesThatAreNotUTF8() {
        // Given overlong, surrogate and truncated UTF-8 inside a string
        for bytes: [UInt8] in [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xF4, 0x90, 0x80, 0x80], [0xFF]] {
            // When it is canonicalized
            // Then it is refused as syntax
            #expect {
                try CanonicalJSON.canonicalized(Data([0x22] + bytes + [0x22]))
            } throws: { ($0 as? CanonicalJSONError)?.code == .syntax }
        }
    }

    @Test(arguments: [
        (#"{"b":1,"a":2}"#, #"{"a":2,"b":1}"#, 2), (#"{"a": 1}"#, #"{"a":1}"#, 5), ("[1.0]", "[1]", 2),
        (#"["\/"]"#, #"["/"]"#, 2), (#"["\u00e9"]"#, #"["é"]"#, 2), ("[-0]", "[0]", 1), ("[1E2]", "[100]", 2),
    ])
    func namesTheFirstByteThatIsNotCanonical(json: String, canonical: String, offset: Int) throws {
        // Given valid JSON in another spelling than its canonical one
        // When it is required to be canonical
        // Then the error names the first differing byte; the canonical spelling passes
        #expect(String(decoding: try CanonicalJSON.canonicalized(Data(json.utf8)), as: UTF8.self) == canonical)
        #expect {
            try CanonicalJSON.requireCanonical(Data(json.utf8))
        } throws: {
            ($0 as? CanonicalJSONError)?.code == .notCanonical && ($0 as? CanonicalJSONError)?.offset == offset
        }
        #expect(throws: Never.self) { try CanonicalJSON.requireCanonical(Data(canonical.utf8)) }
    }

    @Test(arguments: [
        "[0,10,-10,20,-20,100,1000000000000000,-999999999999999,9007199254740991,-9007199254740991]",
        #"{"":[],"a":{},"b":[true,false,null],"c":"x"}"#, "1", #""text""#, "0.5",
    ])
    func keepsCanonicalJSONByteForByte(json: String) throws {
        // Given JSON already canonical: integers of every length, empty containers, top-level scalars
        // When it is canonicalized
        // Then nothing changes
        #expect(String(decoding: try CanonicalJSON.canonicalized(Data(json.utf8)), as: UTF8.self) == json)
        #expect(throws: Never.self) { try CanonicalJSON.requireCanonical(Data(json.utf8)) }
    }

    @Test func keepsTextAsGivenBeyondTheRequiredEscapes() throws {
        // Given controls, DEL, line and paragraph separators, a slash and non-BMP text
        let value = ["k": "\u{0}\u{1F}\u{7F}\u{2028}\u{2029}/\u{1F600}\t"]
        // When it is encoded
        let json = try CanonicalJSON.encode(value)
        // Then only the controls are escaped, in lowercase hex or their short forms
        #expect(
            String(decoding: json, as: UTF8.self) == "{\"k\":\"\\u0000\\u001f\u{7F}\u{2028}\u{2029}/\u{1F600}\\t\"}")
    }

    @Test func encodesCatalogueValuesCanonicallyWhateverTheKeyOrder() throws {
        // Given a page of games with doubles and dates
        let game = Game(
            id: "1", name: "Café Royale", slug: "cafe-royale", launchUrl: "https://a.example/1",
            thumbnail: "https://a.example/1.png", popularity: 1e16, tags: ["Free Spins"], rtp: 0.9646)
        // When it is encoded canonically
        let json = try CanonicalJSON.encode(game)
        // Then the bytes are canonical, keys in order, and decode to the same game
        #expect(throws: Never.self) { try CanonicalJSON.requireCanonical(json) }
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.hasPrefix(#"{"hasAnonymousFunMode":false,"hasFunMode":false,"id":"1","isNew":false,"launchUrl""#))
        #expect(text.contains(#""popularity":10000000000000000,"#))
        #expect(text.contains(#""rtp":0.9646,"#))
        #expect(try CatalogCoding.decoder().decode(Game.self, from: json) == game)
    }
}
