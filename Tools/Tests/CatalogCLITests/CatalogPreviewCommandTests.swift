@_spi(CatalogTools) import CasinoCacheTesting
import Foundation
import Testing

/// `catalog preview`: the first screen of each edition as static HTML, looked at in a real headless
/// browser (Chromium; required, see ``HeadlessChromium``). Serialized: each test starts browsers,
/// and two cores are enough for one at a time.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct CatalogPreviewCommandTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// Where the screenshot of the default edition's page is kept: `.catalog/` (git-ignored).
    static let screenshot = repositoryRoot.appendingPathComponent(".catalog/preview-screenshot.png")

    /// A snapshot of the embedded recording with its bundled thumbnails (`bundleImages`).
    func makeSnapshot() async throws -> URL {
        let out = directory.child("out")
        let result = try await CatalogBinary.run([
            "snapshot", "--source", recordedSource, "--config",
            repositoryRoot.appendingPathComponent("data/catalog.json").path, "--out", out.path, "--quiet",
        ])
        try #require(result.status == 0, "\(result.standardError)")
        return out
    }

    func makePreview(of out: URL, into preview: URL) async throws -> CatalogBinary.Result {
        let result = try await CatalogBinary.run(["preview", out.path, "--output", preview.path])
        try #require(result.status == 0, "\(result.standardError)")
        return result
    }

    /// Each edition's tiles on its first screen as the manifest counts them: the `count` of every
    /// offset-0 page (`<edition>/games/<category>/0`).
    func firstPageTiles(in out: URL) throws -> [String: Int] {
        let data = try Data(contentsOf: out.appendingPathComponent("manifest.json"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let editions = try #require(manifest["editions"] as? [String])
        let files = try #require(manifest["files"] as? [[String: Any]])
        var tiles = Dictionary(uniqueKeysWithValues: editions.map { ($0, 0) })
        for file in files {
            let key = try #require(file["key"] as? String).split(separator: "/")
            guard key.count == 4, key[1] == "games", key[3] == "0" else { continue }
            tiles[String(key[0]), default: 0] += try #require(file["count"] as? Int)
        }
        return tiles
    }

    /// What a page showed in the browser.
    struct Rendered {
        var tiles: Int
        var images: Int
        var decoded: Int
        var failed: Int
        /// `naturalWidth` of each `<img>`, as the page's script recorded it ("" when it did not run).
        var naturalWidths: [String]
        /// Tiles by their `data-thumbnail` state (`bundled`, `missing`, `tampered`, `not-bundled`).
        var states: [String: Int]
        var imageSources: [String]

        init(dom: String) throws {
            let output = try #require(
                dom.firstMatch(of: /<output id="decoded"[^>]*>/).map { String($0.output) }, "no #decoded in the page")
            func number(_ name: String) throws -> Int {
                let value = output.firstMatch(of: try Regex(#"\#(name)="(\d+)""#)).flatMap {
                    $0.output[1].substring
                }
                return try #require(value.flatMap { Int($0) }, "#decoded has no \(name): \(output)")
            }
            tiles = try number("data-tiles")
            images = try number("data-images")
            decoded = try number("data-decoded")
            failed = try number("data-failed")
            let tags = dom.matches(of: /<img [^>]*>/).map { String($0.output) }
            naturalWidths = tags.map {
                $0.firstMatch(of: /data-natural-width="(\d*)"/).map { String($0.output.1) } ?? ""
            }
            imageSources = tags.compactMap { $0.firstMatch(of: /src="([^"]*)"/).map { String($0.output.1) } }
            states = Dictionary(
                dom.matches(of: /<li class="tile"[^>]* data-thumbnail="([a-z-]+)"/).map { (String($0.output.1), 1) },
                uniquingKeysWith: +)
        }
    }

    func render(_ page: URL) async throws -> Rendered {
        try Rendered(dom: try await HeadlessChromium.dumpDOM(of: page, profile: directory.child("profile")))
    }

    @Test func everyBundledThumbnailDecodesInABrowserAndEveryFirstPageTileIsShown() async throws {
        // Given a snapshot of the embedded recording with its thumbnails
        let out = try await makeSnapshot()
        let expected = try firstPageTiles(in: out)
        // When its preview is written and each edition's page is loaded in headless Chromium
        let preview = directory.child("preview")
        let run = try await makePreview(of: out, into: preview)
        var totals = (tiles: 0, images: 0)
        for (edition, tiles) in expected.sorted(by: { $0.key < $1.key }) {
            let page = preview.appendingPathComponent("\(edition).html")
            let rendered = try await render(page)
            // Then the page shows every tile the manifest's first pages hold
            #expect(rendered.tiles == tiles, "\(edition)")
            #expect(rendered.states.values.reduce(0, +) == tiles, "\(edition): \(rendered.states)")
            // And every bundled thumbnail decoded: an <img> per bundled tile, each with a natural width
            #expect(rendered.images > 0 && rendered.images == rendered.states["bundled"], "\(edition)")
            #expect(rendered.decoded == rendered.images && rendered.failed == 0, "\(edition)")
            #expect(rendered.naturalWidths.count == rendered.images)
            #expect(rendered.naturalWidths.allSatisfy { (Int($0) ?? 0) > 0 }, "\(rendered.naturalWidths)")
            #expect(rendered.states["missing"] == nil && rendered.states["tampered"] == nil)
            // And each comes from the preview's own images/
            for source in rendered.imageSources {
                #expect(source.hasPrefix("images/") && !source.contains(".."), "\(source)")
                #expect(FileManager.default.fileExists(atPath: preview.appendingPathComponent(source).path))
            }
            print(
                "preview \(edition): \(rendered.tiles) tiles, \(rendered.images) thumbnails, \(rendered.decoded) decoded, \(rendered.failed) failed, states \(rendered.states.sorted { $0.key < $1.key })"
            )
            totals.tiles += rendered.tiles
            totals.images += rendered.images
        }
        #expect(run.standardError.contains("wrote "), "\(run.standardError)")
        // And a screenshot of the default edition's page is kept for people to look at
        try FileManager.default.createDirectory(
            at: Self.screenshot.deletingLastPathComponent(), withIntermediateDirectories: true)
        try await HeadlessChromium.screenshot(
            of: preview.appendingPathComponent("en-iPhone.html"), to: Self.screenshot,
            profile: directory.child("profile"))
        let png = try Data(contentsOf: Self.screenshot)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 10_000, "\(png.count) bytes")
        print("preview: \(totals.tiles) tiles, \(totals.images) thumbnails decoded; screenshot \(Self.screenshot.path)")
    }

    @Test func aMissingAndATamperedThumbnailShowPlaceholdersAndNoBrokenImage() async throws {
        // Given a snapshot whose first image file is deleted and whose second is overwritten with
        // garbage of the same size
        let out = try await makeSnapshot()
        let images = out.appendingPathComponent("images")
        let files = try FileManager.default.contentsOfDirectory(atPath: images.path).sorted()
        try #require(files.count >= 2)
        let (deleted, tampered) = (files[0], files[1])
        try FileManager.default.removeItem(at: images.appendingPathComponent(deleted))
        let size = try Data(contentsOf: images.appendingPathComponent(tampered)).count
        try Data(repeating: 0x5A, count: size).write(to: images.appendingPathComponent(tampered))
        // When the preview is written and every edition's page is loaded
        let preview = directory.child("preview")
        let run = try await makePreview(of: out, into: preview)
        var states: [String: Int] = [:]
        for edition in try firstPageTiles(in: out).keys.sorted() {
            let rendered = try await render(preview.appendingPathComponent("\(edition).html"))
            // Then no image failed to decode: the two files are placeholders, not <img>s
            #expect(rendered.failed == 0 && rendered.decoded == rendered.images, "\(edition)")
            #expect(!rendered.imageSources.contains { $0.hasSuffix(deleted) || $0.hasSuffix(tampered) })
            states.merge(rendered.states, uniquingKeysWith: +)
        }
        #expect((states["missing"] ?? 0) >= 1 && (states["tampered"] ?? 0) >= 1, "\(states)")
        // And neither file was copied into the preview, and the run warned about them
        #expect(!FileManager.default.fileExists(atPath: preview.appendingPathComponent("images/\(deleted)").path))
        #expect(!FileManager.default.fileExists(atPath: preview.appendingPathComponent("images/\(tampered)").path))
        #expect(run.standardError.contains("1 missing, 1 tampered") || run.standardError.contains("missing"))
        print("preview with a deleted and a tampered image: \(states.sorted { $0.key < $1.key })")
    }

    @Test func anImageOutsideImagesIsNeverReadNorCopied() async throws {
        // Given a snapshot whose first image file is a link to a file outside the snapshot
        let out = try await makeSnapshot()
        let images = out.appendingPathComponent("images")
        let linked = try #require(try FileManager.default.contentsOfDirectory(atPath: images.path).sorted().first)
        let secret = directory.child("secret.png")
        try FileManager.default.moveItem(at: images.appendingPathComponent(linked), to: secret)
        try FileManager.default.createSymbolicLink(
            at: images.appendingPathComponent(linked), withDestinationURL: secret)
        // When it is previewed
        let preview = directory.child("preview")
        _ = try await makePreview(of: out, into: preview)
        // Then the link is not followed: its tiles are "tampered" placeholders and nothing was copied
        let page = try String(contentsOf: preview.appendingPathComponent("en-iPhone.html"), encoding: .utf8)
        #expect(page.contains(#"data-thumbnail="tampered""#))
        #expect(!page.contains(#"src="images/\#(linked)""#))
        #expect(!FileManager.default.fileExists(atPath: preview.appendingPathComponent("images/\(linked)").path))
        // And a manifest naming an image path outside images/ is refused whole: exit 65, nothing written
        let manifestURL = out.appendingPathComponent("manifest.json")
        let manifest = try String(contentsOf: manifestURL, encoding: .utf8)
        let path = try #require(manifest.firstMatch(of: /images\/[0-9a-f]{64}\.[a-z]+/)).output
        try manifest.replacingOccurrences(of: String(path), with: "../../../etc/passwd").write(
            to: manifestURL, atomically: true, encoding: .utf8)
        let refused = try await CatalogBinary.run(["preview", out.path, "--output", directory.child("p2").path])
        #expect(refused.status == 65 && refused.standardError.contains("unsafe"), "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.child("p2").path))
    }

    @Test func thePagesLoadNothingFromTheNetwork() async throws {
        // Given the preview of the embedded recording
        let out = try await makeSnapshot()
        let preview = directory.child("preview")
        _ = try await makePreview(of: out, into: preview)
        let pages = try FileManager.default.contentsOfDirectory(atPath: preview.path).filter { $0.hasSuffix(".html") }
        #expect(pages.sorted() == ["en-iPhone.html", "fr-iPhone.html", "index.html"])
        for name in pages {
            let html = try String(contentsOf: preview.appendingPathComponent(name), encoding: .utf8)
            // Then a Content-Security-Policy allows no source but the page's own images
            #expect(
                html.contains(
                    #"<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src 'self';"#))
            // And no attribute that loads or links anything names a scheme or another host
            for match in html.matches(of: /\s(src|href|srcset|action|formaction|poster|data|background)="([^"]*)"/) {
                let value = String(match.output.2)
                #expect(!value.contains(":") && !value.hasPrefix("//") && !value.hasPrefix("/"), "\(name): \(value)")
            }
            #expect(!html.contains("url(") && !html.contains("@import"), "\(name)")
            #expect(!html.contains("http:"), "\(name)")
            // And https: appears only as text (a title naming a thumbnail URL that is not bundled), never loaded
            for line in html.split(separator: "\n") where line.contains("https:") {
                #expect(!line.contains("src=\"https:") && !line.contains("href=\"https:"), "\(line.prefix(300))")
            }
        }
    }

    @Test func replacesItsOwnPreviewButNoDirectoryItDidNotWrite() async throws {
        // Given a snapshot, and a directory holding someone's file
        let out = try await makeSnapshot()
        let foreign = directory.child("notes")
        try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: foreign.appendingPathComponent("todo.txt"))
        // When a preview is written there
        let refused = try await CatalogBinary.run(["preview", out.path, "--output", foreign.path])
        // Then it exits 73 naming the file, and the directory is as it was
        #expect(refused.status == 73, "\(refused.standardError)")
        #expect(refused.standardError.contains("todo.txt"), "\(refused.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: foreign.path) == ["todo.txt"])
        // And a preview written twice into a new directory replaces its own, marker and all
        let preview = directory.child("preview")
        _ = try await makePreview(of: out, into: preview)
        _ = try await makePreview(of: out, into: preview)
        #expect(FileManager.default.fileExists(atPath: preview.appendingPathComponent("catalog-preview.txt").path))
        #expect(FileManager.default.fileExists(atPath: preview.appendingPathComponent("index.html").path))
    }

    @Test func aMissingSnapshotExits66AndABadTerritory64() async throws {
        let missing = try await CatalogBinary.run([
            "preview", directory.child("nowhere").path, "--output", directory.child("p").path,
        ])
        #expect(missing.status == 66, "\(missing.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.child("p").path))
        let territory = try await CatalogBinary.run([
            "preview", directory.child("nowhere").path, "--output", directory.child("p").path, "--territory", "G1",
        ])
        #expect(territory.status == 64 && territory.standardError.contains("--territory"), "\(territory.standardError)")
    }
}
