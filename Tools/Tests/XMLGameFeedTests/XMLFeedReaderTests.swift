@_spi(CatalogTools) import CasinoCacheTesting
import Foundation
@_spi(CatalogTools) import ProviderAPI
import Testing

@_spi(CatalogTools) @testable import XMLGameFeed

@Suite struct XMLFeedReaderTests {
    // MARK: - Reading

    @Test func readsTheDocumentedExampleFieldByField() throws {
        // Given the example feed from PROVIDER_API.md, in a file
        let directory = try TemporaryDirectory()
        let url = try directory.write(Self.documentedExample, to: "feed.xml")

        // When it is read
        let feed = try XMLFeedReader.read(contentsOf: url)

        // Then the header, the category and every game field come through raw
        #expect(feed.provider == "acme")
        #expect(feed.generatedAt == Date(timeIntervalSince1970: 1_795_168_800))
        #expect(feed.version == "1")
        #expect(
            feed.categories == [
                XMLFeed.Category(
                    id: "VIDEOSLOTS", position: 1, names: ["en": "Video Slots", "fr": "Machines à sous"], line: 4)
            ])
        try #require(feed.games.count == 1)
        let game = feed.games[0]
        #expect(game.line == 9)
        #expect(game.memberships == [XMLFeed.Membership(categoryId: "VIDEOSLOTS", position: 3)])
        let record = game.record
        #expect(record.id == .string("34795"))
        #expect(record.slug == "lara-jones-is-cleopatra-rgs")
        #expect(record.isNew == .string("false"))
        #expect(record.hasFunMode == .string("true"))
        #expect(record.hasAnonymousFunMode == .string("true"))
        #expect(record.name == "Lara Jones is Cleopatra")
        #expect(record.vendor == ProviderVendor(id: .string("266"), name: "RGS_Matrix"))
        #expect(record.description == "Did you grow up playing <b>Tomb Raider</b>?")
        #expect(record.thumbnail == "//static.example.com/c/C1CD.jpg")
        #expect(record.backgroundImageUrl == "//static.example.com/b/B770.jpg")
        #expect(record.launchUrl == "https://launch.example.com/Loader/Start/4093/lara-jones-is-cleopatra-rgs")
        #expect(record.platform == .array(["iPhone", "Android"]))
        #expect(record.popularity == .string("0.0"))
        #expect(record.theoreticalPayOut == .string("96.46"))
        #expect(record.tags == ProviderCollection(items: [ProviderReference(name: "Free Spins")]))
        #expect(record.restrictedTerritories == .string("AF AD CA-ON"))
        #expect(record.href == nil && record.gId == nil && record.gameId == nil && record.defaultThumbnail == nil)
    }

    @Test func readsTheSameFeedFromDataAsFromAFile() throws {
        // Given the example feed as a file and as bytes
        let directory = try TemporaryDirectory()
        let url = try directory.write(Self.documentedExample, to: "feed.xml")

        // When both are read
        let fromFile = try XMLFeedReader.read(contentsOf: url)
        let fromData = try XMLFeedReader.read(data: Data(Self.documentedExample.utf8), name: "feed.xml")

        // Then they are equal
        #expect(fromFile == fromData)
    }

    @Test func readsCategoriesWithNamesPerLanguageAndPositions() throws {
        // Given three categories: two languages, no position, a name without lang
        let xml = """
            <feed provider="acme">
              <categories>
                <category id="VIDEOSLOTS" position="1">
                  <name lang="en">Video Slots</name>
                  <name lang="fr">Machines à sous</name>
                  <name lang="de">Videoslots</name>
                </category>
                <category id="TABLE" position=" 2 "><name lang="en">Table Games</name><name lang="en">Ignored</name></category>
                <category id="NEW"><name>New</name></category>
              </categories>
              <games>
                <game id="1"><categories><category ref="TABLE" position="7"/><category ref="NEW"/></categories></game>
              </games>
            </feed>
            """

        // When it is read
        let feed = try XMLFeedReader.read(data: Data(xml.utf8), name: "categories.xml")

        // Then each category keeps its names by language, its position and its line, in order
        #expect(
            feed.categories == [
                XMLFeed.Category(
                    id: "VIDEOSLOTS", position: 1,
                    names: ["en": "Video Slots", "fr": "Machines à sous", "de": "Videoslots"], line: 3),
                XMLFeed.Category(id: "TABLE", position: 2, names: ["en": "Table Games"], line: 8),
                XMLFeed.Category(id: "NEW", position: nil, names: ["": "New"], line: 9),
            ])
        #expect(
            feed.games.first?.memberships == [
                XMLFeed.Membership(categoryId: "TABLE", position: 7), XMLFeed.Membership(categoryId: "NEW"),
            ])
        #expect(feed.generatedAt == nil)
        #expect(feed.version == nil)
    }

    @Test func ignoresUnknownElementsAndAttributes() throws {
        // Given a feed with unknown elements at every level, some nested, and unknown attributes
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- exported by acme -->
            <feed provider="acme" colour="blue">
              <meta><owner><name>Not a game</name></owner></meta>
              <categories><extra/><category id="A" colour="red"><icon>x</icon><name lang="en">A</name></category></categories>
              <games>
                <promo><game id="999"/></promo>
                <game id="1" colour="green">
                  <name>One<sup>TM</sup></name>
                  <studio><name>Wrong</name></studio>
                  <ext:launchUrl xmlns:ext="urn:x">https://wrong.example.com</ext:launchUrl>
                  <platforms><platform>iPhone</platform><device>Fridge</device></platforms>
                  <tags><tag>Hot</tag><label>Cold</label></tags>
                  <?processing instruction?>
                </game>
              </games>
              <trailer><game id="2"/></trailer>
            </feed>
            <!-- end -->
            """

        // When it is read
        let feed = try XMLFeedReader.read(data: Data(xml.utf8), name: "unknown.xml")

        // Then only the known parts are taken
        #expect(feed.categories.map(\.id) == ["A"])
        #expect(feed.categories.first?.names == ["en": "A"])
        try #require(feed.games.count == 1)
        let record = feed.games[0].record
        #expect(record.id == .string("1"))
        #expect(record.name == "One")
        #expect(record.launchUrl == nil)
        #expect(record.platform == .array(["iPhone"]))
        #expect(record.tags == ProviderCollection(items: [ProviderReference(name: "Hot")]))
    }

    @Test func keepsAGameWithoutAnIdForTheMappingToReport() throws {
        // Given a game with no attributes and empty elements
        let xml = #"<feed provider="acme"><games><game><name/><rtp></rtp></game></games></feed>"#

        // When it is read
        let feed = try XMLFeedReader.read(data: Data(xml.utf8), name: "noid.xml")

        // Then the game is there with a nil id and empty raw values
        #expect(feed.games.map(\.record) == [ProviderGame(name: "", theoreticalPayOut: .string(""))])
    }

    @Test func keepsEscapedTextAndCharacterReferencesRaw() throws {
        // Given predefined entities and character references, which are not forbidden
        let xml =
            #"<feed provider="a&amp;b"><games><game id="&#x31;"><name>Rock &amp; Roll &lt;3 &#233;</name></game></games></feed>"#

        // When it is read
        let feed = try XMLFeedReader.read(data: Data(xml.utf8), name: "escapes.xml")

        // Then they are decoded
        #expect(feed.provider == "a&b")
        #expect(feed.games.first?.record.id == .string("1"))
        #expect(feed.games.first?.record.name == "Rock & Roll <3 é")
    }

    @Test(arguments: [InputKind.file, .data])
    func readsLongTextAndEscapedValuesWhole(input: InputKind) throws {
        // Given a description of 150 KB of one- to four-byte characters, which libxml2 hands over
        // in pieces and which crosses the parser's chunks, and values with escaped ampersands,
        // one of them spelling an escape literally
        let description = String(repeating: "Spin é€😀 & win <3. ", count: 6_000)
        let escaped = description.replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;")
        let xml = """
            <feed provider="a&amp;b &#38; c"><games>
            <game id="1" slug="x&amp;#38;y"><description>\(escaped)</description><name>Ok</name></game>
            </games></feed>
            """
        var limits = XMLFeedReader.Limits.default
        limits.maxTextBytes = 1 << 20

        // When it is read from a file and from memory
        let feed: XMLFeed
        switch input {
        case .data: feed = try XMLFeedReader.read(data: Data(xml.utf8), name: "long.xml", limits: limits)
        case .file:
            let directory = try TemporaryDirectory()
            let url = directory.url.appendingPathComponent("long.xml")
            try Data(xml.utf8).write(to: url)
            feed = try XMLFeedReader.read(contentsOf: url, limits: limits)
        }

        // Then the text is whole and every escape decoded once
        #expect(feed.provider == "a&b & c")
        #expect(feed.games.first?.record.slug == "x&#38;y")
        #expect(feed.games.first?.record.description == description)
        #expect(feed.games.first?.record.name == "Ok")
    }

    @Test func allowsCommentsAndInstructionsBeforeTheRoot() throws {
        // Given a prolog whose comment and processing instruction mention a DOCTYPE
        let xml = """
            \u{FEFF}<?xml version="1.0"?>
            <?note <!DOCTYPE in an instruction ?>
            <!-- <!DOCTYPE feed> in a comment -->
            <feed provider="acme"/>
            """

        // When it is read
        let feed = try XMLFeedReader.read(data: Data(xml.utf8), name: "prolog.xml")

        // Then it is an empty feed
        #expect(feed == XMLFeed(provider: "acme"))
    }

    @Test func readsAGeneratedFeedOf10000Games() throws {
        // Given a generated feed of 10,000 games in two categories
        let directory = try TemporaryDirectory()
        let url = try directory.write(Self.generatedFeed(games: 10_000), to: "big.xml")

        // When it is read
        let feed = try XMLFeedReader.read(contentsOf: url)

        // Then every game is there in order, and a spot check matches
        #expect(feed.games.count == 10_000)
        #expect(feed.games.map(\.record.id) == (0..<10_000).map { .string("g\($0)") })
        let game = feed.games[7_345]
        #expect(game.record.name == "Game 7345 & Co")
        #expect(game.record.vendor == ProviderVendor(id: .string("45"), name: "Vendor 45"))
        #expect(game.record.platform == .array(["iPhone", "Android"]))
        #expect(game.memberships == [XMLFeed.Membership(categoryId: "ODD", position: 7_345)])
        #expect(game.line == 5 + 7_345 * 7)
        // Exact past line 65,535 too (libxml2's nodes keep 16 bits of it; the parser an int)
        #expect(feed.games.last?.line == 5 + 9_999 * 7)
    }

    @Test(.timeLimit(.minutes(5)))  // a hang detector: a busy machine takes minutes
    func readsFeedsConcurrently() async throws {
        // Given eight feeds of different sizes
        let feeds = (1...8).map { Data(Self.generatedFeed(games: $0 * 250).utf8) }

        // When they are read on eight tasks at once
        let counts = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for (index, data) in feeds.enumerated() {
                group.addTask { (index, try XMLFeedReader.read(data: data, name: "feed\(index).xml").games.count) }
            }
            return try await group.reduce(into: [Int: Int]()) { $0[$1.0] = $1.1 }
        }

        // Then each read is whole and independent
        #expect(counts == Dictionary(uniqueKeysWithValues: (0..<8).map { ($0, ($0 + 1) * 250) }))
    }

    @Test(arguments: [
        ("2026-11-20T10:00:00Z", 1_795_168_800.0),
        ("2026-11-20T12:00:00+02:00", 1_795_168_800.0),
        ("2026-11-20T10:00:00.250Z", 1_795_168_800.25),
    ])
    func readsTheGeneratedDate(text: String, seconds: Double) throws {
        // Given a feed generated at `text`
        let xml = #"<feed provider="acme" generated="\#(text)"/>"#

        // When it is read
        let feed = try XMLFeedReader.read(data: Data(xml.utf8), name: "date.xml")

        // Then the date is that instant
        #expect(feed.generatedAt == Date(timeIntervalSince1970: seconds))
    }

    // MARK: - Hostile input

    @Test(arguments: [
        ("<!DOCTYPE feed>\n<feed provider=\"a\"/>", 1),
        (
            "<?xml version=\"1.0\"?>\n<!-- <feed> -->\n<!DOCTYPE feed SYSTEM \"http://127.0.0.1:9/feed.dtd\">\n<feed provider=\"a\"/>",
            3
        ),
        ("<!DOCTYPE feed [\n<!ELEMENT feed ANY>\n<!ATTLIST feed provider CDATA \"x\">\n]>\n<feed/>", 1),
        ("<!DOCTYPE feed PUBLIC \"-//A//DTD//EN\" \"file:///etc/passwd\"><feed provider=\"a\"/>", 1),
    ])
    func rejectsADoctype(xml: String, line: Int) {
        // Given a feed with a DOCTYPE (internal subset, external DTD, after a comment)
        // When it is read
        // Then it fails with doctypeForbidden and the DOCTYPE's line
        let error = #expect(throws: XMLFeedError.self) {
            try XMLFeedReader.read(data: Data(xml.utf8), name: "doctype.xml")
        }
        #expect(error?.code == .doctypeForbidden)
        #expect(error?.line == line)
        #expect(error?.description.hasPrefix("doctype.xml:\(line): ") == true)
    }

    @Test func rejectsADoctypeTheByteScannerCannotSee() throws {
        // Given a feed with a DOCTYPE in UTF-16, where the DOCTYPE bytes are interleaved with zeros
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<!DOCTYPE feed>\n<feed provider=\"a\"/>"
        let data = TextEncoding.utf16.data(xml)

        // When it is read
        // Then libxml2's document-type node is refused
        let error = #expect(throws: XMLFeedError.self) {
            try XMLFeedReader.read(data: data, name: "utf16.xml")
        }
        #expect(error?.code == .doctypeForbidden)
    }

    @Test(arguments: [TextEncoding.utf8, .utf16])
    func rejectsAnExternalEntityWithoutReadingIt(encoding: TextEncoding) throws {
        // Given the classic XXE feed, as a file and as bytes (UTF-16 gets past the byte scanner)
        let xml = #"<!DOCTYPE feed [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><feed>&xxe;</feed>"#
        let directory = try TemporaryDirectory()
        let url = try directory.write(encoding.data(xml), to: "xxe.xml")

        // When it is read both ways
        let errors = [
            #expect(throws: XMLFeedError.self) { try XMLFeedReader.read(contentsOf: url) },
            #expect(throws: XMLFeedError.self) { try XMLFeedReader.read(data: encoding.data(xml), name: "xxe.xml") },
        ]

        // Then both fail on the DOCTYPE and nothing of /etc/passwd shows anywhere
        for error in errors {
            let error = try #require(error)
            #expect(error.code == .doctypeForbidden)
            #expect(error.line == 1)
            for text in [error.description, error.message, String(reflecting: error)] {
                #expect(!text.contains("root:"))
            }
        }
    }

    @Test(arguments: ["&xxe;", "&lt;&nbsp;", "<name>&amp;&copy;</name>"])
    func rejectsAnEntityReferenceWithoutADoctype(content: String) {
        // Given a feed using an undeclared entity
        let xml = "<feed provider=\"a\">\n<games><game id=\"1\">\(content)</game></games></feed>"

        // When it is read
        // Then it fails with entityForbidden on the entity's line
        let error = #expect(throws: XMLFeedError.self) {
            try XMLFeedReader.read(data: Data(xml.utf8), name: "entity.xml")
        }
        #expect(error?.code == .entityForbidden)
        #expect(error?.line == 2)
    }

    @Test(arguments: [TextEncoding.utf8, .utf16])
    func rejectsBillionLaughsQuickly(encoding: TextEncoding) {
        // Given the billion-laughs document (in UTF-16 it gets past the byte scanner to libxml2)
        var xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n<!ENTITY lol \"lol\">\n"
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            xml += "<!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">\n"
        }
        xml += "]>\n<lolz>&lol9;</lolz>\n"

        // When it is read
        let clock = ContinuousClock()
        var error: XMLFeedError?
        let elapsed = clock.measure {
            error = #expect(throws: XMLFeedError.self) {
                try XMLFeedReader.read(data: encoding.data(xml), name: "lolz.xml")
            }
        }

        // Then it fails on the DOCTYPE (or libxml2's entity-loop guard), without expanding
        // anything: an expansion would take minutes and gigabytes, so a loose bound that a busy
        // CI machine cannot miss still tells them apart (speed itself is for `make bench`)
        switch encoding {
        case .utf8:
            #expect(error?.code == .doctypeForbidden)
            #expect(error?.line == 2)
        case .utf16:
            #expect(error?.code == .doctypeForbidden || error?.code == .entityForbidden)
        }
        #expect(elapsed < .seconds(30))
    }

    @Test(arguments: [InputKind.file, .data])
    func rejectsAFeedOverMaxBytes(input: InputKind) throws {
        // Given a well-formed feed of more than 1 KiB and a 1 KiB limit
        let xml = Self.generatedFeed(games: 20)
        #expect(xml.utf8.count > 1_024)
        let limits = XMLFeedReader.Limits(maxBytes: 1_024)
        let directory = try TemporaryDirectory()

        // When it is read
        let error = #expect(throws: XMLFeedError.self) {
            switch input {
            case .file: try XMLFeedReader.read(contentsOf: directory.write(xml, to: "big.xml"), limits: limits)
            case .data: try XMLFeedReader.read(data: Data(xml.utf8), name: "big.xml", limits: limits)
            }
        }

        // Then it fails as too large, naming the limit
        #expect(error?.code == .tooLarge)
        #expect(error?.message.contains("1024") == true)
    }

    @Test func rejectsBytesPastMaxBytesWhileStreaming() {
        // Given a stream that yields more than it measured (a file growing while read): a
        // complete feed, then a long comment
        let feed = Self.generatedFeed(games: 2)
        let xml = feed + "<!--" + String(repeating: "x", count: 10_000) + "-->"
        let input = FeedInput(data: Data(xml.utf8), limits: .init(maxBytes: feed.utf8.count + 100))

        // When it is parsed
        // Then it fails as too large once the limit is passed, though the feed itself was whole
        let error = #expect(throws: XMLFeedError.self) {
            try FeedParser.parse(input, file: "growing.xml", limits: .default)
        }
        #expect(error?.code == .tooLarge)
        #expect(input.stop == .overLimit)
    }

    @Test func rejectsMalformedXMLWithALineNumber() {
        // Given a feed whose <game> is never closed
        let xml = "<feed provider=\"a\">\n<games>\n<game id=\"1\">\n</games></feed>"

        // When it is read
        // Then it fails as malformed with libxml2's message and line
        let error = #expect(throws: XMLFeedError.self) {
            try XMLFeedReader.read(data: Data(xml.utf8), name: "broken.xml")
        }
        #expect(error?.code == .malformed)
        #expect(error?.line == 4)
        #expect(error?.message.contains("mismatch") == true)
        #expect(error?.description.hasPrefix("broken.xml:4: ") == true)
    }

    @Test(arguments: [
        #"<feed><games><game id="1"></games></feed>"#,
        #"<feed provider="a"></feed><feed provider="b"></feed>"#,
        #"<feed provider="a"><name>a & b</name></feed>"#,
        #"<feed provider="a" provider="b"/>"#,
        "<feed provider=\"a\"><name>\u{FFFF}</name></feed>",
        "<feed provider=\"a\"><x:y/></feed>",
    ])
    func rejectsMalformedXML(xml: String) {
        // Given a document that is not well-formed
        // When it is read
        // Then it fails as malformed, with a line
        let error = #expect(throws: XMLFeedError.self) {
            try XMLFeedReader.read(data: Data(xml.utf8), name: "broken.xml")
        }
        #expect(error?.code == .malformed)
        #expect(error?.line != nil)
    }

    @Test func rejectsATruncatedFeed() throws {
        // Given a generated feed cut off in the middle of a game
        let xml = Self.generatedFeed(games: 100)
        let cut = String(xml.utf8.prefix(xml.utf8.count / 2))!

        // When it is read
        // Then it fails as malformed and says the feed is truncated
        let error = #expect(throws: XMLFeedError.self) {
            try XMLFeedReader.read(data: Data(cut.utf8), name: "cut.xml")
        }
        #expect(error?.code == .malformed)
        #expect(error?.message.contains("truncated") == true)
        #expect(error?.line != nil)
    }

    @Test(arguments: ["<feed provider=\"a\"/>\n<feed/>", "<feed provider=\"a\"></feed>\ntrailing text"])
    func rejectsContentAfterTheFeed(xml: String) {
        // Given a complete feed followed by more content
        // When it is read
        // Then it fails as malformed on the line of the extra content
        let error = #expect(throws: XMLFeedError.self) {
            try XMLFeedReader.read(data: Data(xml.utf8), name: "extra.xml")
        }
        #expect(error?.code == .malformed)
        #expect(error?.message.contains("after the root element") == true)
        #expect(error?.line == 2)
    }

    @Test(arguments: ["", "   \n", "not xml at all"])
    func rejectsADocumentWithoutARootElement(xml: String) {
        // Given bytes with no element at all (or none at all)
        // When they are read
        // Then it fails as malformed (0 bytes too: the file exists, as an empty JSON file does)
        let error = #expect(throws: XMLFeedError.self) {
            try XMLFeedReader.read(data: Data(xml.utf8), name: "none.xml")
        }
        #expect(error?.code == .malformed)
    }

    @Test func rejectsAnEmptyFile() throws {
        // Given a 0-byte file
        let directory = try TemporaryDirectory()
        let url = try directory.write("", to: "empty.xml")

        // When it is read (and the same bytes as data)
        let fromFile = #expect(throws: XMLFeedError.self) { try XMLFeedReader.read(contentsOf: url) }
        let fromData = #expect(throws: XMLFeedError.self) { try XMLFeedReader.read(data: Data(), name: "empty.xml") }

        // Then both fail as malformed input (exit 65, as an empty JSON file), not as missing
        #expect(fromFile?.code == .malformed)
        #expect(fromFile?.file == url.path)
        #expect(fromData?.code == .malformed)
    }

    @Test func rejectsAMissingFile() throws {
        // Given a path with no file
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("absent.xml")

        // When it is read
        // Then it fails as missing input
        let error = #expect(throws: XMLFeedError.self) { try XMLFeedReader.read(contentsOf: url) }
        #expect(error?.code == .missingInput)
    }

    @Test func rejectsADirectory() throws {
        // Given a directory where the feed should be
        let directory = try TemporaryDirectory()

        // When it is read
        // Then it fails as malformed input (exit 65: the input is not a feed), not as an I/O error
        let error = #expect(throws: XMLFeedError.self) { try XMLFeedReader.read(contentsOf: directory.url) }
        #expect(error?.code == .malformed)
    }

    @Test func rejectsTooManyGames() {
        // Given a feed of 6 games and a limit of 5
        let xml = Self.generatedFeed(games: 6)

        // When it is read
        // Then it fails on the sixth game
        let error = #expect(throws: XMLFeedError.self) {
            try XMLFeedReader.read(data: Data(xml.utf8), name: "many.xml", limits: .init(maxGames: 5))
        }
        #expect(error?.code == .tooManyGames)
        #expect(error?.line == 5 + 5 * 7)
    }

    @Test func acceptsExactlyMaxGames() throws {
        // Given a feed of 5 games and a limit of 5
        let xml = Self.generatedFeed(games: 5)

        // When it is read
        let feed = try XMLFeedReader.read(data: Data(xml.utf8), name: "five.xml", limits: .init(maxGames: 5))

        // Then all five are there
        #expect(feed.games.count == 5)
    }

    @Test func rejectsTextOverMaxTextBytes() {
        // Given a name of 200 bytes and a limit of 100
        let xml =
            "<feed provider=\"a\"><games>\n<game id=\"1\"><name>\(String(repeating: "x", count: 200))</name></game></games></feed>"

        // When it is read
        // Then it fails as too large on the element's line
        let error = #expect(throws: XMLFeedError.self) {
            try XMLFeedReader.read(data: Data(xml.utf8), name: "long.xml", limits: .init(maxTextBytes: 100))
        }
        #expect(error?.code == .tooLarge)
        #expect(error?.line == 2)
    }

    @Test func rejectsAnAttributeOverMaxTextBytes() {
        // Given an id of 200 bytes and a limit of 100
        let xml = "<feed provider=\"a\"><games><game id=\"\(String(repeating: "9", count: 200))\"/></games></feed>"

        // When it is read
        // Then it fails as too large
        let error = #expect(throws: XMLFeedError.self) {
            try XMLFeedReader.read(data: Data(xml.utf8), name: "long.xml", limits: .init(maxTextBytes: 100))
        }
        #expect(error?.code == .tooLarge)
    }

    @Test func rejectsNestingDeeperThanMaxDepth() {
        // Given unknown elements nested 40 deep inside a game, and the default limit of 32
        let xml =
            "<feed provider=\"a\"><games><game id=\"1\">" + String(repeating: "<x>", count: 40)
            + String(repeating: "</x>", count: 40) + "</game></games></feed>"

        // When it is read
        // Then it fails as too large, even though the elements would be skipped
        let error = #expect(throws: XMLFeedError.self) {
            try XMLFeedReader.read(data: Data(xml.utf8), name: "deep.xml")
        }
        #expect(error?.code == .tooLarge)
        #expect(error?.message.contains("32") == true)
    }

    @Test func rejectsADocumentThatIsNotAFeed() {
        // Given a well-formed document with another root
        let xml = "<rss><channel/></rss>"

        // When it is read
        // Then it fails as malformed, naming the root
        let error = #expect(throws: XMLFeedError.self) {
            try XMLFeedReader.read(data: Data(xml.utf8), name: "rss.xml")
        }
        #expect(error?.code == .malformed)
        #expect(error?.message.contains("<rss>") == true)
    }

    @Test(arguments: [
        #"<feed/>"#,
        #"<feed provider=" "/>"#,
        #"<feed provider="a" generated="yesterday"/>"#,
        #"<feed provider="a"><categories><category position="1"/></categories></feed>"#,
        #"<feed provider="a"><categories><category id="A" position="first"/></categories></feed>"#,
        #"<feed provider="a"><games><game id="1"><categories><category position="1"/></categories></game></games></feed>"#,
        #"<feed provider="a"><games><game id="1"><categories><category ref="A" position="1.5"/></categories></game></games></feed>"#,
    ])
    func rejectsAnInvalidStructuralValue(xml: String) {
        // Given a feed missing its provider, with a bad date, a category without id, or a bad position
        // When it is read
        // Then it fails as an invalid value, with the element's line
        let error = #expect(throws: XMLFeedError.self) {
            try XMLFeedReader.read(data: Data(xml.utf8), name: "values.xml")
        }
        #expect(error?.code == .invalidValue)
        #expect(error?.line == 1)
    }

    @Test func describesAnErrorWithFileAndLine() {
        // Given errors with and without a line
        let withLine = XMLFeedError(.malformed, "bad", file: "feed.xml", line: 12)
        let withoutLine = XMLFeedError(.io, "gone", file: "feed.xml")

        // When they are described
        // Then they read like compiler diagnostics
        #expect(withLine.description == "feed.xml:12: bad")
        #expect(withoutLine.description == "feed.xml: gone")
        #expect(XMLFeedError.Code.doctypeForbidden.description == "doctype-forbidden")
    }

    @Test func exposesTheDocumentedDefaultLimits() {
        // Given the default limits
        let limits = XMLFeedReader.Limits.default

        // Then they are the documented values
        #expect(limits.maxBytes == 64 * 1_024 * 1_024)
        #expect(limits.maxGames == 200_000)
        #expect(limits.maxTextBytes == 64 * 1_024)
        #expect(limits.maxDepth == 32)
        #expect(limits.maxAttributes == 64)
    }

    @Test(arguments: [InputKind.file, .data])
    func rejectsAStartTagWithMoreThanMaxAttributesBeforeParsingIt(input: InputKind) throws {
        // Given a game on line 3 with 100,000 attributes (libxml2 alone would take minutes on it)
        let attributes = (0..<100_000).map { " a\($0)=\"\($0)\"" }.joined()
        let xml = "<feed provider=\"a\">\n<games>\n<game id=\"1\"\(attributes)/></games></feed>"
        let data = Data(xml.utf8)

        // When it is read
        // Then it fails at once as too large, on the tag's line
        let error = #expect(throws: XMLFeedError.self) {
            switch input {
            case .data: _ = try XMLFeedReader.read(data: data, name: "attributes.xml")
            case .file:
                let directory = try TemporaryDirectory()
                let url = directory.url.appendingPathComponent("attributes.xml")
                try data.write(to: url)
                _ = try XMLFeedReader.read(contentsOf: url)
            }
        }
        #expect(error?.code == .tooLarge)
        #expect(error?.line == 3)
        #expect(error?.message.contains("64") == true)
    }

    @Test func countsOnlyAttributesOfStartTags() throws {
        // Given `=` signs in text, comments, CDATA, instructions and quoted values (with `>`),
        // and a limit of 2 attributes per tag
        let xml = """
            <?xml version="1.0"?><!-- a=1 b=2 c=3 --><feed provider="a=b=c" version='1>2=3'>
            <games><game id="1"><name>x=1 y=2 z=3</name><description><![CDATA[<a b=1 c=2 d=3>]]></description>
            <?pi a=1 b=2 c=3?></game></games></feed>
            """

        // When it is read
        let feed = try XMLFeedReader.read(data: Data(xml.utf8), name: "quoted.xml", limits: .init(maxAttributes: 2))

        // Then nothing was counted but the attributes themselves
        #expect(feed.version == "1>2=3")
        #expect(feed.games.first?.record.description == "<a b=1 c=2 d=3>")
    }
}

// MARK: - Fixtures

enum InputKind: String, CustomTestStringConvertible, Sendable {
    case file, data
    var testDescription: String { rawValue }
}

enum TextEncoding: String, CustomTestStringConvertible, Sendable {
    case utf8, utf16
    var testDescription: String { rawValue }

    /// `text` in this encoding (UTF-16 with a byte-order mark).
    func data(_ text: String) -> Data {
        switch self {
        case .utf8: Data(text.utf8)
        case .utf16: Data([0xFF, 0xFE]) + Data(text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        }
    }
}

extension XMLFeedReaderTests {
    /// The example feed from PROVIDER_API.md, verbatim.
    static let documentedExample = """
        <?xml version="1.0" encoding="UTF-8"?>
        <feed provider="acme" generated="2026-11-20T10:00:00Z" version="1">
          <categories>
            <category id="VIDEOSLOTS" position="1">
              <name lang="en">Video Slots</name><name lang="fr">Machines à sous</name>
            </category>
          </categories>
          <games>
            <game id="34795" slug="lara-jones-is-cleopatra-rgs" isNew="false" funMode="true" anonymousFunMode="true">
              <name>Lara Jones is Cleopatra</name>
              <vendor id="266">RGS_Matrix</vendor>
              <description><![CDATA[Did you grow up playing <b>Tomb Raider</b>?]]></description>
              <thumbnail>//static.example.com/c/C1CD.jpg</thumbnail>
              <background>//static.example.com/b/B770.jpg</background>
              <launchUrl>https://launch.example.com/Loader/Start/4093/lara-jones-is-cleopatra-rgs</launchUrl>
              <platforms><platform>iPhone</platform><platform>Android</platform></platforms>
              <categories><category ref="VIDEOSLOTS" position="3"/></categories>
              <popularity>0.0</popularity><rtp>96.46</rtp>
              <tags><tag>Free Spins</tag></tags>
              <restrictedTerritories>AF AD CA-ON</restrictedTerritories>
            </game>
          </games>
        </feed>
        """

    /// A feed of `count` games, 7 lines each; game `i` starts on line `5 + 7 i`.
    static func generatedFeed(games count: Int) -> String {
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <feed provider="generated" version="1">
              <categories><category id="EVEN" position="1"><name lang="en">Even</name></category><category id="ODD" position="2"><name lang="en">Odd</name></category></categories>
              <games>

            """
        for index in 0..<count {
            xml += """
                    <game id="g\(index)" slug="game-\(index)" isNew="\(index % 2 == 0)">
                      <name>Game \(index) &amp; Co</name>
                      <vendor id="\(index % 100)">Vendor \(index % 100)</vendor>
                      <launchUrl>https://launch.example.com/\(index)</launchUrl>
                      <platforms><platform>iPhone</platform><platform>Android</platform></platforms>
                      <categories><category ref="\(index % 2 == 0 ? "EVEN" : "ODD")" position="\(index)"/></categories>
                    </game>

                """
        }
        xml += "  </games>\n</feed>\n"
        return xml
    }
}
