@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
@_spi(CatalogTools) import CatalogServer
import Foundation
import Testing

/// `data/` is a fixture edited by hand: it builds a valid snapshot, it is laid out as a recording,
/// its edge records are dropped, and its quirks are exactly where data/README.md lists them.
@Suite struct EmbeddedDataTests {
    static let data = repositoryRoot.appendingPathComponent("data")
    static let invalidRecords: Set<String> = ["48210", "51377"]

    @Test func buildsAValidDeterministicSnapshotFromTheDefaultData() throws {
        // Given the embedded recording and configuration
        let directory = try TemporaryDirectory()
        let configuration = try PipelineConfiguration.load(from: Self.data.appendingPathComponent("catalog.json"))
        // When it is built twice
        let provider = Self.data.appendingPathComponent("provider")
        let manifest = try buildSnapshot(from: provider, to: directory.child("a"), configuration: configuration)
        try buildSnapshot(from: provider, to: directory.child("b"), configuration: configuration)
        // Then both validate, are identical, and hold both editions with several categories
        #expect(SnapshotValidator().validate(directory: directory.child("a")).isValid)
        #expect(try fileTree(directory.child("a")) == fileTree(directory.child("b")))
        #expect(manifest.editions == [enIPhone, frIPhone])
        #expect(manifest.defaultEdition == enIPhone)
        #expect(manifest.files.filter { $0.kind == .categories }.count == 2)
        #expect(manifest.files.filter { $0.kind == .gamesPage }.count > 10)
    }

    @Test func hasAConfigurationThePipelineLoads() throws {
        // When data/catalog.json is loaded
        let configuration = try PipelineConfiguration.load(from: Self.data.appendingPathComponent("catalog.json"))
        // Then it names the recorded editions and page size
        #expect(configuration.editions == [enIPhone, frIPhone])
        #expect(configuration.defaultEdition == enIPhone)
        #expect(configuration.pageSize == 10)
    }

    @Test func dropsTheEdgeRecordsAndKeepsEveryPoolGame() throws {
        // Given the embedded recording
        let configuration = try PipelineConfiguration.load(from: Self.data.appendingPathComponent("catalog.json"))
        let source = try RecordedProviderSource(
            directory: Self.data.appendingPathComponent("provider"), limits: configuration.limits)
        // When it is normalized
        let result = try Normalizer(configuration: configuration, logger: quietLogger).normalize(source)
        // Then each edition skips the duplicate, the empty name and the http launchUrl, and keeps the 120 games
        for edition in ["en-iPhone", "fr-iPhone"] {
            let warnings = result.warnings.filter { $0.file.contains("/\(edition)/") }
            let skipped = { (page: String, game: String) in
                warnings.contains { $0.file.hasSuffix("/\(page)") && $0.description.contains("game \(game)") }
            }
            #expect(warnings.count == 3, "\(warnings)")
            #expect(skipped("videoslots-d4a8b457ac/10.json", "18776"), "\(warnings)")
            #expect(skipped("new-a253ff09c5/10.json", "48210"), "\(warnings)")
            #expect(skipped("blackjack-a2c2a037b1/10.json", "51377"), "\(warnings)")
            let catalog = try #require(result.catalog.editions.first { $0.edition.id == edition })
            #expect(Set(catalog.pages.flatMap(\.items).map(\.id)).count == 120)
        }
    }

    @Test func namesEachCategoryDirectoryByTheDIRRuleAndKeepsEachEnvelopeConsistent() throws {
        for edition in ["en-iPhone", "fr-iPhone"] {
            // Given an edition's categories
            let recording = try Recording(edition: edition)
            // Then the games directories are those of the categories with games, named by FileNaming
            let games = Self.data.appendingPathComponent("provider/\(edition)/games")
            let directories = try FileManager.default.contentsOfDirectory(atPath: games.path)
            let expected = recording.categories.filter { $0.total > 0 }.map { FileNaming.component(for: $0.id) }
            #expect(Set(directories) == Set(expected), "\(edition)")
            // And each page's count is its length, its total the category's, its offsets 0, 10, 20 ...
            for category in recording.categories where category.total > 0 {
                #expect(category.pages.map(\.offset) == Array(stride(from: 0, to: category.pages.count * 10, by: 10)))
                for page in category.pages {
                    #expect(page.envelope["count"]?.int == page.items.count, "\(page.path)")
                    #expect(page.envelope["total"]?.int == category.total, "\(page.path)")
                }
            }
        }
    }

    /// FileNaming is the DIR rule data/README.md spells out (expected names from the first
    /// script's `category_dir`).
    @Test(arguments: [
        ("VIDEOSLOTS", "videoslots-d4a8b457ac"), ("../../etc/passwd", "etc_passwd-3754d6cb3a"),
        ("\u{212A}ELVIN", "elvin-6c5184c72a"), ("", "id-e3b0c44298"), ("é-Ü x", "x-3435614b69"),
        (
            String(repeating: "A", count: 39) + "_b" + String(repeating: "c", count: 10),
            String(repeating: "a", count: 39) + "-f23c87e591"
        ),
    ])
    func namesCategoryDirectoriesByTheDIRRule(id: String, expected: String) {
        #expect(FileNaming.component(for: id) == expected)
    }

    @Test func keepsAGamesRecordTheSameWhereverItAppears() throws {
        for edition in ["en-iPhone", "fr-iPhone"] {
            // Given every record of an edition
            let recording = try Recording(edition: edition)
            var first: [String: JSONValue] = [:]
            for (id, record, page) in recording.records {
                // Then a game that appears again appears with the same record
                if let earlier = first[id] { #expect(record == earlier, "game \(id) differs in \(page)") }
                first[id] = first[id] ?? record
            }
        }
    }

    @Test(arguments: Quirk.all)
    func listsEachQuirkWhereItIs(quirk: Quirk) throws {
        // Given data/README.md's list for the quirk: game ids by the en-iPhone page they first appear on
        let listed = try #require(try Self.readmeQuirkLists()[quirk.title], "data/README.md lists no \(quirk.title)")
        for edition in ["en-iPhone", "fr-iPhone"] {
            // When the valid records of an edition are checked for it
            var found: [String: [String]] = [:]
            var seen: Set<String> = []
            for (id, record, page) in try Recording(edition: edition).records
            where !Self.invalidRecords.contains(id) && seen.insert(id).inserted && quirk.holds(record) {
                found[page, default: []].append(id)
            }
            // Then the list names exactly those games, on those pages, and counts them
            #expect(found == listed.pages, "\(edition): \(quirk.title)")
            #expect(listed.count == found.values.map(\.count).reduce(0, +), "\(quirk.title)")
        }
    }

    @Test func listsEachRecordedImageThatIsNotAJPEG() throws {
        // Given the recorded images, every one recorded as image/jpeg
        let index = try JSONDecoder().decode(
            [String: RecordedImages.Entry].self,
            from: Data(contentsOf: Self.data.appendingPathComponent("provider/images/index.json")))
        #expect(index.values.allSatisfy { $0.contentType == "image/jpeg" })
        // When each body is sniffed and named by the game whose thumbnail it is
        var gameOfThumbnail: [String: String] = [:]
        for (id, record, _) in try Recording(edition: "en-iPhone").records {
            guard let thumbnail = record["thumbnail"]?.text else { continue }
            gameOfThumbnail[thumbnail.hasPrefix("//") ? "https:" + thumbnail : thumbnail] = id
        }
        var found: [String: Set<String>] = [:]
        for (url, entry) in index {
            let body = try Data(contentsOf: Self.data.appendingPathComponent("provider/images/\(entry.file)"))
            let type = try ImageSniffer.sniff(body).get()
            guard type != .jpeg else { continue }
            found[type.rawValue, default: []].insert(try #require(gameOfThumbnail[url], "\(url) is no game's"))
        }
        // Then data/README.md lists exactly those games under their types
        let section = try Self.readmeSection("## Images")
        var listed: [String: Set<String>] = [:]
        for item in section.components(separatedBy: "\n- ").dropFirst() {
            let type = String(item.prefix { $0 != ":" }).lowercased()
            let ids = Self.codeSpans(item).filter { $0.allSatisfy(\.isNumber) }
            listed["image/\(type)", default: []].formUnion(ids)
        }
        #expect(found == listed)
    }

    @Test func staysUnderOneMegabyte() throws {
        let bytes = try fileTree(Self.data).values.map(\.count).reduce(0, +)
        #expect(bytes < 1_000_000)
    }

    @Test func isNotReplacedByASnapshot() throws {
        // Given a copy of data/
        let directory = try TemporaryDirectory()
        let copy = directory.child("data")
        try FileManager.default.copyItem(at: Self.data, to: copy)
        let before = try fileTree(copy)
        // When a snapshot is written over it
        let error = #expect(throws: PipelineError.self) {
            try buildSnapshot(from: copy.appendingPathComponent("provider"), to: copy)
        }
        // Then it is refused and nothing changed
        #expect(error?.code == .outputNotReplaceable)
        #expect(try fileTree(copy) == before)
    }
}

// MARK: - The quirks

extension EmbeddedDataTests {
    /// A provider quirk, by the title data/README.md lists it under and the test on a raw record.
    struct Quirk: Sendable, CustomTestStringConvertible {
        let title: String
        let holds: @Sendable (JSONValue) -> Bool

        var testDescription: String { title }

        static let all: [Quirk] = [
            Quirk(title: "Absolute https image URLs") { $0["thumbnail"]?.text?.hasPrefix("https://") == true },
            Quirk(title: "Description with HTML tags and entities") { $0["description"]?.text?.contains("<") == true },
            Quirk(title: "theoreticalPayOut as a percent number") {
                guard case .number(let value) = $0["theoreticalPayOut"] else { return false }
                return value > 1
            },
            Quirk(title: "theoreticalPayOut as a string") { isString($0["theoreticalPayOut"]) },
            Quirk(title: "theoreticalPayOut missing") { $0["theoreticalPayOut"] == nil },
            Quirk(title: "Booleans") { record in
                ["hasFunMode", "hasAnonymousFunMode", "isNew"].allSatisfy { isString(record[$0]) }
            },
            Quirk(title: "`id` as an int") { $0["id"]?.int != nil },
            Quirk(title: "`platform` as one comma-separated string") { isString($0["platform"]) },
            Quirk(title: "Vendor unexpanded") {
                guard case .object(let members) = $0["vendor"] else { return false }
                return Array(members.keys) == ["href"]
            },
            Quirk(title: "Unknown extra fields") { $0["experimentalFlags"] != nil || $0["_trace"] != nil },
            Quirk(title: "No `backgroundImageUrl`") { $0["backgroundImageUrl"] == nil },
            Quirk(title: "No `description`") { $0["description"] == nil },
            Quirk(title: "Name with surrounding whitespace") { record in
                guard let name = record["name"]?.text else { return false }
                return name != name.trimmingCharacters(in: .whitespaces)
            },
            Quirk(title: "Full field set") { record in
                guard record["href"] != nil, case .array(let territories) = record["restrictedTerritories"] else {
                    return false
                }
                return territories.contains { $0.text?.contains("-") == true }
            },
        ]

        private static func isString(_ value: JSONValue?) -> Bool {
            if case .string = value { return true }
            return false
        }
    }

    /// data/README.md's quirk lists: the title of each, its game count, and its game ids by page.
    static func readmeQuirkLists() throws -> [String: (count: Int, pages: [String: [String]])] {
        var lists: [String: (count: Int, pages: [String: [String]])] = [:]
        for item in try readmeSection("## Where the quirks are").components(separatedBy: "\n- ").dropFirst() {
            let lines = item.components(separatedBy: "\n")
            let heading = lines.prefix { !$0.hasPrefix("  - ") }.joined(separator: " ")
            guard let title = Quirk.all.map(\.title).first(where: { heading.hasPrefix($0) }) else { continue }
            let count = Int(heading.split(separator: " ").dropLast().last ?? "") ?? -1
            var pages: [String: [String]] = [:]
            for line in lines where line.hasPrefix("  - ") {
                let spans = codeSpans(line)
                if let page = spans.first { pages[page] = Array(spans.dropFirst()) }
            }
            lists[title] = (count, pages)
        }
        return lists
    }

    /// The text of data/README.md from the line `heading` to the next `## ` heading.
    static func readmeSection(_ heading: String) throws -> String {
        let text = try String(contentsOf: data.appendingPathComponent("README.md"), encoding: .utf8)
        guard let start = text.range(of: "\n\(heading)") else { throw FixtureError("data/README.md has no \(heading)") }
        let rest = text[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
    }

    /// The `code spans` of a line of Markdown.
    static func codeSpans(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }
}

// MARK: - Reading the recording

/// data/ is not what a test expects of it.
struct FixtureError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

extension EmbeddedDataTests {
    /// One edition of data/provider read as raw JSON, categories in lobby order, pages by offset.
    struct Recording {
        struct Page {
            let path: String
            let offset: Int
            let envelope: JSONValue
            var items: [JSONValue] {
                if case .array(let items) = envelope["items"] { return items }
                return []
            }
        }

        struct Category {
            let id: String
            let total: Int
            let pages: [Page]
        }

        let categories: [Category]

        init(edition: String) throws {
            let root = EmbeddedDataTests.data.appendingPathComponent("provider/\(edition)")
            let list = try JSONDecoder().decode(
                JSONValue.self, from: Data(contentsOf: root.appendingPathComponent("categories.json")))
            guard case .array(let items) = list["items"] else {
                throw FixtureError("\(edition): categories.json has no items")
            }
            categories = try items.map { item in
                guard let id = item["id"]?.text else { throw FixtureError("\(edition): a category has no id") }
                let directory = FileNaming.component(for: id)
                let folder = root.appendingPathComponent("games/\(directory)")
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                let pages = try names.compactMap { Int($0.dropLast(".json".count)) }.sorted().map { offset in
                    Page(
                        path: "\(directory)/\(offset).json", offset: offset,
                        envelope: try JSONDecoder().decode(
                            JSONValue.self, from: Data(contentsOf: folder.appendingPathComponent("\(offset).json"))))
                }
                return Category(id: id, total: item["games"]?["total"]?.int ?? -1, pages: pages)
            }
        }

        /// Every record: its game id, the record, and its page (`new-a253ff09c5/10.json`), in order.
        var records: [(id: String, record: JSONValue, page: String)] {
            categories.flatMap(\.pages).flatMap { page in
                page.items.map { ($0["id"]?.text ?? "?", $0, page.path) }
            }
        }
    }
}
