@_spi(CatalogTools) public import CasinoCatalog
public import Foundation
@_spi(CatalogTools) import ProviderAPI

/// Writes a deterministic synthetic provider recording of any size, with the provider's quirks,
/// for tests and benchmarks.
///
/// The same parameters always produce the same bytes. Games get 1–3 categories each; two extra
/// categories are empty. Quirks are spread by index: ids as numbers, `"0"`/`"1"` booleans,
/// comma-separated platforms, RTP as fraction, percent and string, protocol-relative and HTML
/// fields, unexpanded vendors, unknown fields and missing optional fields.
///
/// ```swift
/// try SampleRecording(games: 10_000).write(to: URL(fileURLWithPath: ".catalog/sample"))
/// ```
public struct SampleRecording: Sendable {
    /// Distinct games: 1,000 by default.
    public var games = 1000
    /// Non-empty categories: 20 by default (plus two empty ones).
    public var categories = 20
    /// Editions: en-iPhone and fr-iPhone by default.
    public var editions: [Edition] = SampleRecording.defaultEditions
    /// Games per recorded page: 10 by default.
    public var pageLimit = 10
    /// The seed of the generator: 2026 by default.
    public var seed: UInt64 = 2026
    /// The fetch time recorded: 2026-11-20T10:00:00Z by default.
    public var fetchedAt = Date(timeIntervalSince1970: 1_795_168_800)
    /// Games per category, from the top of its first page, whose thumbnail is recorded in
    /// `images/` (``RecordedImages``): 6 by default, as `bundleImages` bundles. Each is a PNG of
    /// noise of ``thumbnailSize``. 0 records none.
    public var imagesPerCategory = 6
    /// The size in pixels of each recorded thumbnail: 96×72 by default, about 21 KB, the size of a
    /// real lobby thumbnail. (The cache's committed test fixtures record 8×6 ones, about 200 bytes.)
    public var thumbnailSize = (width: 96, height: 72)

    public static let defaultEditions: [Edition] = [
        try! Edition(language: "en", platform: .iPhone), try! Edition(language: "fr", platform: .iPhone),
    ]

    public init(games: Int = 1000, categories: Int = 20) {
        self.games = games
        self.categories = categories
    }

    static let baseURL = "https://casino-api.example-staging.com"

    /// Writes the recording into `directory`, replacing it atomically.
    ///
    /// - Returns: The number of files written.
    /// - Throws: ``PipelineError`` for invalid parameters or a failed write.
    @discardableResult
    public func write(to directory: URL, progress: ProgressLine = .disabled) throws(PipelineError) -> Int {
        guard games > 0, categories > 0, pageLimit > 0, !editions.isEmpty, thumbnailSize.width > 0,
            thumbnailSize.height > 0
        else {
            throw PipelineError(
                .invalidConfiguration, "games, categories, pageLimit, editions and thumbnailSize must be positive")
        }
        let publisher = DirectoryPublisher(target: directory, content: .recording)
        let staging = try publisher.makeStagingDirectory()
        let layout = RecordingLayout(root: staging)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var written = 0
        do {
            let members = memberships()
            for edition in editions {
                let ids = categoryIDs()
                let list = ids.enumerated().map { index, id in
                    ProviderCategory(
                        href: "\(Self.baseURL)/v1/casino/categories/\(id)", id: .string(id),
                        name: categoryName(index, language: edition.language),
                        games: ProviderCollection(count: 0, total: members[id]?.count ?? 0, items: []))
                }
                let envelope = ProviderCollection(count: list.count, total: list.count, items: list)
                try FileOutput.write(try encoder.encode(envelope), to: layout.categoriesFile(for: edition))
                written += 1
                progress.advance()
                for id in ids {
                    // One category's pages at a time: rendered, then written on every core without fsync.
                    var pages: [(url: URL, data: Data)] = []
                    let gameIndexes = members[id] ?? []
                    for offset in stride(from: 0, to: gameIndexes.count, by: pageLimit) {
                        let slice = gameIndexes[offset..<min(offset + pageLimit, gameIndexes.count)]
                        let page = ProviderCollection(
                            count: slice.count, total: gameIndexes.count,
                            items: slice.map { game($0, edition: edition) },
                            pages: .init(
                                first: pageURL(edition, id, 0),
                                next: offset + pageLimit < gameIndexes.count
                                    ? pageURL(edition, id, offset + pageLimit) : nil,
                                previous: offset > 0 ? pageURL(edition, id, offset - pageLimit) : nil,
                                last: pageURL(edition, id, (gameIndexes.count - 1) / pageLimit * pageLimit)))
                        pages.append(
                            (
                                layout.gamesPageFile(for: edition, categoryId: id, offset: offset),
                                try encoder.encode(page)
                            ))
                    }
                    try FileOutput.writeAll(pages)
                    written += pages.count
                    progress.advance(by: pages.count)
                }
            }
            written += try writeImages(members: members, under: staging)
            let metadata = RecordingLayout.Metadata(
                fetchedAt: fetchedAt, baseURL: Self.baseURL, editions: editions, pageLimit: pageLimit)
            try FileOutput.write(try CatalogCoding.prettyEncoder().encode(metadata), to: layout.metadataFile)
            written += 1
            progress.advance()
            try publisher.publish(staging)
        } catch let error as PipelineError {
            publisher.discard(staging)
            throw error
        } catch {
            publisher.discard(staging)
            throw PipelineError(.io, "cannot write the sample: \(error)", file: directory.relativePath)
        }
        return written
    }

    // MARK: - Content

    /// The thumbnails of the first ``imagesPerCategory`` games of each category, as
    /// ``RecordedImages`` under `images/`; returns the files written.
    private func writeImages(members: [String: [Int]], under root: URL) throws(PipelineError) -> Int {
        guard imagesPerCategory > 0 else { return 0 }
        var bodies: [String: (data: Data, entry: RecordedImages.Entry)] = [:]
        for id in categoryIDs() {
            for index in (members[id] ?? []).prefix(imagesPerCategory) {
                let url = "https://static.example-cdn.com" + thumbnailPath(index)
                guard bodies[url] == nil else { continue }
                var random = SplitMix64(seed: seed ^ UInt64(index &* 104_729))
                let data = SyntheticImage.png(width: thumbnailSize.width, height: thumbnailSize.height) { _, _ in
                    let value = random.next()
                    return (
                        UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
                        UInt8(truncatingIfNeeded: value >> 16)
                    )
                }
                bodies[url] = (data, RecordedImages.Entry(file: FileNaming.hexSHA256(data), contentType: "image/jpeg"))
            }
        }
        let directory = root.appendingPathComponent("images")
        try RecordedImages.write(bodies, under: directory)
        return Set(bodies.values.map(\.entry.file)).count + 1
    }

    private func thumbnailPath(_ index: Int) -> String {
        let id = 10_000 + index
        return "/cms2/base/_casino/\(id % 97)/\(id)-thumb.jpg"
    }

    private func categoryIDs() -> [String] {
        (0..<categories).map { String(format: "CATEGORY%03d", $0 + 1) } + ["EMPTY001", "EMPTY002"]
    }

    private func categoryName(_ index: Int, language: String) -> String {
        guard index < categories else {
            return language == "fr" ? "Vide \(index - categories + 1)" : "Empty \(index - categories + 1)"
        }
        let names = language == "fr" ? Self.frenchCategoryNames : Self.englishCategoryNames
        let name = names[index % names.count]
        return index < names.count ? name : "\(name) \(index / names.count + 1)"
    }

    /// Category id → game indexes, in provider order (by descending popularity).
    private func memberships() -> [String: [Int]] {
        var random = SplitMix64(seed: seed)
        var result: [String: [Int]] = [:]
        let ids = Array(categoryIDs().prefix(categories))
        for game in 0..<games {
            let count = 1 + Int(random.next() % 3)
            var chosen = Set<Int>()
            chosen.insert(game % categories)
            while chosen.count < min(count, categories) { chosen.insert(Int(random.next() % UInt64(categories))) }
            for category in chosen.sorted() { result[ids[category], default: []].append(game) }
        }
        return result.mapValues { indexes in indexes.sorted { (popularity($0), $1) > (popularity($1), $0) } }
    }

    private func popularity(_ index: Int) -> Double {
        var random = SplitMix64(seed: seed ^ UInt64(index &* 7919))
        return Double(random.next() % 100_000) / 100
    }

    private func game(_ index: Int, edition: Edition) -> ProviderGame {
        var random = SplitMix64(seed: seed &+ UInt64(index) &* 0x9E37_79B9)
        let adjective = Self.adjectives[Int(random.next() % UInt64(Self.adjectives.count))]
        let noun = Self.nouns[Int(random.next() % UInt64(Self.nouns.count))]
        let name = "\(adjective) \(noun) \(index + 1)"
        let slug = name.lowercased().replacingOccurrences(of: " ", with: "-")
        let id = 10_000 + index
        let cdn = index % 4 == 0 ? "https://static.example-cdn.com" : "//static.example-cdn.com"
        let vendorIndex = Int(random.next() % UInt64(Self.vendors.count))
        let vendorName = Self.vendors[vendorIndex]
        var game = ProviderGame(
            href: "\(Self.baseURL)/v1/casino/games/\(id)",
            id: index % 7 == 0 ? .int(id) : .string(String(id)), gId: .int(id), slug: slug,
            name: index % 17 == 0 ? "  \(name) " : name,
            description: index % 13 == 0
                ? nil : "<p>Spin the <b>\(name)</b> reels &amp; chase the bonus.</p>",
            launchUrl: "https://launch.example-casino.com/Loader/Start/\(id)/\(slug)",
            thumbnail: cdn + thumbnailPath(index),
            backgroundImageUrl: index % 11 == 0 ? nil : "\(cdn)/cms2/base/_casino/\(id % 97)/\(id)-bg.jpg",
            hasFunMode: index % 5 == 0 ? .string("1") : .bool(true),
            hasAnonymousFunMode: index % 5 == 0 ? .string(index % 2 == 0 ? "1" : "0") : .bool(index % 2 == 0),
            isNew: index % 5 == 0 ? .string(index % 10 == 0 ? "1" : "0") : .bool(index % 10 == 0),
            platform: index % 3 == 0 ? .string("iPhone,Android,iPad") : .array(["PC", "iPhone", "Android", "iPad"]),
            popularity: .double(popularity(index)),
            vendor: index % 9 == 0
                ? ProviderVendor(href: "\(Self.baseURL)/v1/casino/vendors/\(200 + vendorIndex)")
                : ProviderVendor(
                    href: "\(Self.baseURL)/v1/casino/vendors/\(200 + vendorIndex)", id: .int(200 + vendorIndex),
                    name: vendorName, displayName: vendorName,
                    logo: "//static.example-cdn.com/vendors/\(200 + vendorIndex).png"),
            tags: ProviderCollection(
                count: 2, total: 2,
                items: [
                    ProviderReference(href: "\(Self.baseURL)/v1/casino/tags/Free%20Spins"),
                    ProviderReference(
                        href: "\(Self.baseURL)/v1/casino/tags/\(index % 2 == 0 ? "Megaways" : "Bonus%20Buy")"),
                ]),
            restrictedTerritories: index % 2 == 0 ? .array(["AF", "CA-ON", "US"]) : .string("AF AD CA-ON"))
        let rtp = 94.0 + Double(random.next() % 400) / 100
        switch index % 4 {
        case 0: game.theoreticalPayOut = .double(rtp / 100)
        case 1: game.theoreticalPayOut = .double(rtp)
        case 2: game.theoreticalPayOut = .string(String(format: "%.2f", rtp))
        default: break  // missing
        }
        return game
    }

    private func pageURL(_ edition: Edition, _ id: String, _ offset: Int) -> String {
        "\(Self.baseURL)/v1/casino/games?language=\(edition.language)&platform=\(edition.platform.rawValue)"
            + "&pagination=offset=\(offset),limit=\(pageLimit)&expand=vendor&filter=categories(id=\(id))&sortedField=popularity"
    }

    static let englishCategoryNames = [
        "Video Slots", "Popular", "New Games", "Jackpots", "Table Games", "Live Casino", "Blackjack", "Roulette",
        "Megaways", "Bonus Buy", "Classic Slots", "Drops & Wins",
    ]
    static let frenchCategoryNames = [
        "Machines à sous", "Populaires", "Nouveautés", "Jackpots", "Jeux de table", "Casino en direct", "Blackjack",
        "Roulette", "Megaways", "Achat de bonus", "Machines classiques", "Drops & Wins",
    ]
    static let adjectives = [
        "Golden", "Lucky", "Wild", "Mystic", "Royal", "Crystal", "Blazing", "Ancient", "Frozen", "Electric", "Hidden",
        "Mega",
    ]
    static let nouns = [
        "Pharaoh", "Reels", "Dragon", "Fortune", "Jewels", "Safari", "Vikings", "Pirates", "Fruits", "Temple", "Gems",
        "Cleopatra",
    ]
    static let vendors = ["NetEnt", "Pragmatic Play", "RGS_Matrix", "Evolution", "Play'n GO", "Red Tiger"]
}
