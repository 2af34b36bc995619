@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

@_spi(CatalogTools) @testable import CatalogPipeline

/// `SnapshotPreview`'s HTML with hostile names, ids and URLs, and its rule for withheld games.
/// (`CatalogPreviewCommandTests` loads real previews in a browser.)
@Suite struct SnapshotPreviewTests {
    static let edition = try! Edition(id: "en-iPhone")
    static let image = Manifest.Image(
        url: "https://static.example-cdn.com/c/1.png", path: "images/\(String(repeating: "a", count: 64)).png",
        bytes: 10, sha256: String(repeating: "a", count: 64), mediaType: .png)

    static let hostile = [
        "<script>alert(1)</script>", #"" onerror="alert(1)"#, "' onload='alert(1)", "&amp; &lt;",
        "</li></ol><img src=x>",
    ]

    /// A preview of one category whose every name, id and URL is hostile, one tile per thumbnail state.
    static func hostilePreview() -> SnapshotPreview {
        let games = hostile.enumerated().map { index, text in
            Game(
                id: "\(index)\(text)", name: text, slug: "s", launchUrl: "https://x.example.com/\(text)",
                thumbnail: index == 0 ? image.url : "https://evil.example.com/\(text).png", isNew: true,
                vendor: Vendor(id: text, name: text), tags: [text], restrictedTerritories: index == 1 ? [text] : [])
        }
        let thumbnails: [SnapshotPreview.Thumbnail] = [
            .bundled(image), .notBundled, .missing(image, reason: hostile[0]), .tampered(image, reason: hostile[1]),
            .notBundled,
        ]
        let tiles = zip(games, thumbnails).map {
            SnapshotPreview.Tile(game: $0, thumbnail: $1, isWithheld: SnapshotPreview.isWithheld($0, in: nil))
        }
        let category = SnapshotPreview.CategoryPreview(
            category: Category(id: hostile[1], name: hostile[0], href: nil, gamesTotal: 99), tiles: tiles,
            isFirstPageBundled: true)
        let manifest = Manifest(
            generator: .init(name: hostile[0], version: hostile[1]), generatedAt: Date(timeIntervalSince1970: 0),
            source: hostile[4], contentHash: hostile[2], pageSize: 10, defaultEdition: edition, editions: [edition],
            files: [], images: [image])
        return SnapshotPreview(
            manifest: manifest,
            editions: [
                .init(
                    edition: edition, isDefault: true, categories: [category], files: 2, compressedBytes: 10,
                    uncompressedBytes: 20)
            ], madeAt: Date(timeIntervalSince1970: 90_000), territory: nil, imageFiles: [:])
    }

    @Test(arguments: [
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        (#"" onerror="alert(1)"#, "&quot; onerror=&quot;alert(1)"),
        ("' onload='x", "&#39; onload=&#39;x"),
        ("Tom & Jerry &amp;", "Tom &amp; Jerry &amp;amp;"),
        ("a\u{0}b\u{7}c\td", "a\u{FFFD}b\u{FFFD}c\td"),
        ("Égypte 🎰", "Égypte 🎰"),
    ])
    func escapesWhatCouldCloseATextOrAnAttributeOrStartMarkup(text: String, escaped: String) {
        #expect(HTMLText.escape(text) == escaped)
    }

    @Test func hostileNamesIdsAndURLsStayText() {
        // Given a preview whose every name, id, URL and reason is hostile
        let preview = Self.hostilePreview()
        // When its pages are rendered
        for html in [preview.html(of: preview.editions[0]), preview.indexHTML()] {
            // Then no hostile text became markup: the only script is the page's own, no handler attribute
            // was opened, and each hostile string is there escaped
            #expect(html.components(separatedBy: "<script").count <= 2)
            #expect(!html.contains("<script>alert"))
            #expect(!html.contains(#"" onerror="#) && !html.contains("' onload="))
            #expect(!html.contains("<img src=x>"))
            #expect(html.contains(HTMLText.escape(Self.hostile[0])) || html.contains(HTMLText.escape(Self.hostile[4])))
        }
        let page = preview.html(of: preview.editions[0])
        // And exactly one <img>, the bundled thumbnail's checked path; the others are placeholders
        #expect(page.components(separatedBy: "<img ").count == 2)
        #expect(page.contains(#"src="\#(Self.image.path)""#))
        #expect(page.contains(#"data-thumbnail="missing""#) && page.contains(#"data-thumbnail="tampered""#))
        #expect(page.components(separatedBy: #"data-thumbnail="not-bundled""#).count == 3)
    }

    @Test func thePagesReferenceNothingOnTheNetwork() {
        let preview = Self.hostilePreview()
        for html in [preview.html(of: preview.editions[0]), preview.indexHTML()] {
            // A policy that allows nothing but the page's own images, style and script
            #expect(html.contains("default-src 'none'; img-src 'self'; style-src 'sha256-"))
            #expect(html.contains("base-uri 'none'; form-action 'none'"))
            // No attribute that loads or links anything holds a scheme, and http: appears nowhere
            for match in html.matches(of: /\s(src|href|srcset|action|poster|data)="([^"]*)"/) {
                #expect(!match.output.2.contains(":") && !match.output.2.hasPrefix("/"), "\(match.output.0)")
            }
            #expect(!html.contains("http:") && !html.contains("url("))
        }
    }

    @Test func thePolicyHashesAreThoseOfThePagesOwnStyleAndScript() {
        // Chromium runs the script only if its SHA-256 is the policy's: the browser test checks that it ran.
        let page = Self.hostilePreview().html(of: Self.hostilePreview().editions[0])
        #expect(page.contains("<script>\(SnapshotPreview.script)</script>"))
        #expect(page.contains("<style>\(SnapshotPreview.style)</style>"))
    }

    @Test(arguments: [
        ([String](), nil as String?, false), (["GB"], nil, true), (["GB"], "FR", false), (["CA"], "CA-ON", true),
        (["CA-QC"], "CA-ON", false), (["not a code"], "FR", true),
    ])
    func withholdsAsTheCacheDoesOnAFirstLaunch(restricted: [String], territory: String?, isWithheld: Bool) {
        let game = Game(
            id: "1", name: "n", slug: "s", launchUrl: "https://x.example.com", thumbnail: "https://x.example.com/t",
            restrictedTerritories: restricted)
        #expect(SnapshotPreview.isWithheld(game, in: territory) == isWithheld)
    }

    @Test func saysHowOldTheSnapshotIs() {
        let preview = Self.hostilePreview()
        #expect(preview.age == 90_000)
        #expect(preview.html(of: preview.editions[0]).contains("1970-01-01T00:00:00Z</time>, 1 days 1 hours before"))
    }

    @Test func writesTheIndexEachEditionAndOnlyTheImagesItShowsAndReplacesOnlyItsOwn() throws {
        // Given a snapshot of the embedded recording with its thumbnails
        let directory = try TemporaryDirectory()
        let configuration = try PipelineConfiguration.load(
            from: repositoryRoot.appendingPathComponent("data/catalog.json"))
        let recording = repositoryRoot.appendingPathComponent("data/provider")
        let source = try RecordedProviderSource(directory: recording, limits: configuration.limits)
        let catalog = try Normalizer(configuration: configuration, logger: quietLogger).normalize(source).catalog
        let bundling = try #require(configuration.bundleImages)
        let images = ImageBundler(bundling: bundling).bundle(
            catalog, from: try RecordedImages(directory: recording.appendingPathComponent("images")))
        let manifest = try SnapshotWriter(logger: quietLogger).write(
            catalog, images: images, to: directory.child("out"))
        // When it is previewed
        let preview = try SnapshotPreview(snapshot: directory.child("out"), now: manifest.generatedAt)
        let output = directory.child("preview")
        try preview.write(to: output)
        // Then every edition's categories are there in lobby order, each first page whole
        #expect(preview.editions.map(\.edition) == manifest.editions)
        for edition in preview.editions {
            let firstPages = manifest.files.filter {
                if case .gamesPage(edition.edition, _, 0) = $0.key { true } else { false }
            }
            #expect(edition.tiles.count == firstPages.reduce(0) { $0 + $1.count })
        }
        // And images/ holds exactly the checked files the tiles show
        let shown = Set(
            preview.editions.flatMap(\.tiles).compactMap { tile -> String? in
                if case .bundled(let image) = tile.thumbnail { image.path } else { nil }
            })
        #expect(!shown.isEmpty)
        let copied = try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("images").path)
        #expect(Set(copied.map { "images/\($0)" }) == shown)
        // And writing again replaces its own directory, while a directory of other files is refused
        try preview.write(to: output)
        let foreign = directory.child("foreign")
        try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: foreign.appendingPathComponent("index.html"))
        #expect(throws: PipelineError.self) { try preview.write(to: foreign) }
        #expect(try String(contentsOf: foreign.appendingPathComponent("index.html"), encoding: .utf8) == "x")
        // And so are the snapshot itself, and a directory whose marker another tool wrote
        let snapshot = #expect(throws: PipelineError.self) { try preview.write(to: directory.child("out")) }
        #expect(snapshot?.code == .outputNotReplaceable)
        #expect(try SnapshotReader(directory: directory.child("out")).manifest() == manifest)
        try Data("someone's notes".utf8).write(to: foreign.appendingPathComponent(SnapshotPreview.markerName))
        #expect(throws: PipelineError.self) { try preview.write(to: foreign) }
    }
}
