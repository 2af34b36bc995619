@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Testing

/// Writes a recorded images directory (`index.json` + bodies named by SHA-256) for tests.
struct ImageRecordingBuilder {
    let directory: URL
    private(set) var index: [String: RecordedImages.Entry] = [:]

    init(directory: URL) {
        self.directory = directory
    }

    mutating func add(_ url: String, _ data: Data, contentType: String = "image/jpeg") throws {
        let name = FileNaming.hexSHA256(data)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try data.write(to: directory.appendingPathComponent(name))
        index[url] = RecordedImages.Entry(file: name, contentType: contentType)
        try CatalogCoding.prettyEncoder().encode(index).write(
            to: directory.appendingPathComponent(RecordedImages.indexFileName))
    }
}

/// A small real picture, distinct for each `seed`.
func picture(_ seed: Int, type: ImageMediaType = .jpeg) -> Data {
    let colour: SyntheticImage.RGB = (UInt8(seed * 37 % 256), UInt8(seed * 91 % 256), UInt8(seed * 13 % 256))
    switch type {
    case .jpeg: return SyntheticImage.jpeg(width: 16, height: 16) { _, _ in colour }
    case .png: return SyntheticImage.png(width: 8, height: 8) { _, _ in colour }
    case .gif: return SyntheticImage.gif(width: 8, height: 8, palette: [colour]) { _, _ in 0 }
    case .webp: return SyntheticImage.webp(width: 8, height: 8, colour: colour)
    }
}

@Suite struct ImageBundlingTests {
    let directory: TemporaryDirectory
    let catalog: Catalog
    var bundling = PipelineConfiguration.ImageBundling(allowedHosts: ["static.example.com"])

    init() throws {
        directory = try TemporaryDirectory()
        let recording = RecordingBuilder(root: directory.child("provider"))
        try recording.writeMetadata(editions: [enIPhone, frIPhone])
        for edition in [enIPhone, frIPhone] {
            try recording.writeCategories([("SLOTS", "Slots", 25), ("LIVE", "Live", 4)], edition: edition)
            try recording.writeCategory("SLOTS", games: 25, edition: edition)
            try recording.writeCategory("LIVE", games: 4, firstID: 500, edition: edition)
        }
        catalog = try Normalizer(configuration: .default, logger: quietLogger)
            .normalize(try RecordedProviderSource(directory: recording.layout.root)).catalog
        bundling.gamesPerCategory = 3
    }

    /// `https://static.example.com/<id>.jpg`, the thumbnail RecordingBuilder gives game `id`.
    func thumbnail(_ id: Int) -> String { "https://static.example.com/\(id).jpg" }

    /// Records a picture for the first three games of SLOTS (1–3) and LIVE (500–502).
    func recordFirstScreen(types: [ImageMediaType] = [.jpeg, .png, .gif, .webp]) throws -> ImageRecordingBuilder {
        var images = ImageRecordingBuilder(directory: directory.child("images"))
        for (index, id) in [1, 2, 3, 500, 501, 502].enumerated() {
            try images.add(thumbnail(id), picture(id, type: types[index % types.count]))
        }
        return images
    }

    func bundle(
        _ images: ImageRecordingBuilder, _ bundling: PipelineConfiguration.ImageBundling? = nil
    ) throws -> BundledImages {
        ImageBundler(bundling: bundling ?? self.bundling).bundle(
            catalog, from: try RecordedImages(directory: images.directory))
    }

    @Test func bundlesTheFirstScreenContentAddressedAndTheSnapshotValidates() throws {
        // Given pictures recorded for the first three games of each category, in four formats
        let images = try bundle(try recordFirstScreen())
        // When the snapshot is written with them
        let out = directory.child("out")
        let manifest = try SnapshotWriter(logger: quietLogger).write(catalog, images: images, to: out)
        // Then the manifest lists each URL with its sniffed type, file, size and digest
        let listed = try #require(manifest.images)
        #expect(listed.map(\.url) == [1, 2, 3, 500, 501, 502].map(thumbnail).sorted())
        #expect(Set(listed.map(\.mediaType)) == Set(ImageMediaType.allCases))
        for image in listed {
            let data = try Data(contentsOf: out.appendingPathComponent(image.path))
            #expect(image.path == "images/\(FileNaming.hexSHA256(data)).\(image.mediaType.fileExtension)")
            #expect(image.bytes == data.count && image.sha256 == FileNaming.hexSHA256(data))
        }
        // And the directory validates, images included
        let report = SnapshotValidator().validate(directory: out)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(images.warnings.isEmpty)
    }

    @Test func theSameImageUnderTwoURLsIsOneFile() throws {
        // Given two games whose different URLs serve the same bytes
        var recorded = try recordFirstScreen()
        try recorded.add(thumbnail(2), picture(1))
        let images = try bundle(recorded)
        // Then both URLs are listed, naming one file, written once
        let entries = images.entries.filter { [thumbnail(1), thumbnail(2)].contains($0.url) }
        #expect(entries.count == 2 && entries[0].path == entries[1].path)
        #expect(images.files.count == 5)
        let out = directory.child("out")
        try SnapshotWriter(logger: quietLogger).write(catalog, images: images, to: out)
        let files = try FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent("images").path)
        #expect(files.count == 5)
        #expect(SnapshotValidator().validate(directory: out).isValid)
    }

    @Test(arguments: [
        ("<!DOCTYPE html><html><body>Please log in</body></html>", "html"),
        ("<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"/>", "svg"),
        ("GIF89a-cut", "truncated"),
        ("", "empty"),
    ])
    func refusesWhatIsNotAWholeImageWithANamedWarning(body: String, code: String) throws {
        // Given game 2's thumbnail recorded as something served as image/jpeg that is not an image
        var recorded = try recordFirstScreen()
        try recorded.add(thumbnail(2), Data(body.utf8), contentType: "image/jpeg")
        // When the images are bundled
        let images = try bundle(recorded)
        // Then it is refused with a warning naming the URL, the game and what it is; the rest are kept
        #expect(!images.entries.contains { $0.url == thumbnail(2) })
        #expect(images.entries.count == 5)
        let warning = try #require(images.warnings.first)
        #expect(images.warnings.count == 1)
        #expect(warning.record.contains(thumbnail(2)) && warning.record.contains("SLOTS #2 (2)"))
        #expect(warning.message.contains("(\(code))") && warning.message.contains("the game keeps its URL"))
    }

    @Test func refusesImagesOverTheCapAndHostsOutsideTheList() throws {
        // Given a recorded picture over maxImageBytes, and an allow list without LIVE's host
        var recorded = try recordFirstScreen(types: [.png])
        try recorded.add(thumbnail(1), SyntheticImage.png(width: 64, height: 64) { x, y in (UInt8(x), UInt8(y), 0) })
        var bundling = self.bundling
        bundling.maxImageBytes = 4096
        bundling.allowedHosts = ["*.example.com"]
        #expect(bundling.allows(host: "static.example.com") && !bundling.allows(host: "example.com"))
        let images = try bundle(recorded, bundling)
        // Then the large one is refused, naming the setting
        #expect(images.warnings.map(\.message).contains { $0.contains("over bundleImages.maxImageBytes") })
        #expect(images.entries.count == 5)
        bundling.allowedHosts = ["cdn.example.net"]
        #expect(
            try bundle(recorded, bundling).warnings.allSatisfy {
                $0.message.contains("not in bundleImages.allowedHosts")
            })
    }

    @Test func overBudgetTheLowestPositionsAreDroppedFirstAndReported() throws {
        // Given six recorded pictures of equal size, and a budget for four per edition
        let recorded = try recordFirstScreen(types: [.png])
        let size = picture(1, type: .png).count
        var bundling = self.bundling
        bundling.budgetBytesPerEdition = size * 4 + size / 2
        // When the images are bundled
        let images = try bundle(recorded, bundling)
        // Then the first two places of both categories are kept, the third places dropped, and reported
        #expect(images.entries.map(\.url) == [1, 2, 500, 501].map(thumbnail).sorted())
        #expect(images.dropped == 4)  // two URLs in each of two editions
        #expect(
            images.warnings.allSatisfy {
                $0.message.contains("budgetBytesPerEdition") && $0.message.contains("position 3")
            })
    }

    @Test func aNewSnapshotKeepsEveryUnchangedFileAndIsDeterministic() throws {
        // Given a snapshot with images in out/
        let images = try bundle(try recordFirstScreen())
        let out = directory.child("out")
        try SnapshotWriter(logger: quietLogger).write(catalog, images: images, to: out)
        let first = try fileTree(out)
        // When it is written again, and once more into a fresh directory
        try SnapshotWriter(logger: quietLogger).write(catalog, images: images, to: out)
        try SnapshotWriter(logger: quietLogger).write(catalog, images: images, to: directory.child("again"))
        // Then every file, images and manifest included, is byte for byte the same
        #expect(try fileTree(out) == first)
        #expect(try fileTree(directory.child("again")) == first)
        #expect(first.keys.filter { $0.hasPrefix("images/") }.count == 6)
    }

    @Test func aSnapshotOverTheImageCapsIsRefusedAndTheLastGoodOutSurvives() throws {
        // Given a good snapshot with images in out/
        let images = try bundle(try recordFirstScreen())
        let out = directory.child("out")
        try SnapshotWriter(logger: quietLogger).write(catalog, images: images, to: out)
        let before = try fileTree(out)
        // When a snapshot whose images break the app's caps is written
        var limits = SnapshotLimits.default
        limits.maxImageTotalBytes = 100
        #expect(throws: PipelineError.self) {
            try SnapshotWriter(limits: limits, logger: quietLogger).write(catalog, images: images, to: out)
        }
        // Then out/ is exactly as it was
        #expect(try fileTree(out) == before)
    }

    @Test func validationNamesAMissingATamperedAndAnUnlistedImage() throws {
        // Given a valid snapshot with images
        let images = try bundle(try recordFirstScreen(types: [.png]))
        let out = directory.child("out")
        let manifest = try SnapshotWriter(logger: quietLogger).write(catalog, images: images, to: out)
        let files = manifest.imageFiles
        // When one image file is deleted, one changed, and a stray file added
        try FileManager.default.removeItem(at: out.appendingPathComponent(files[0].path))
        let tampered = out.appendingPathComponent(files[1].path)
        var bytes = try Data(contentsOf: tampered)
        bytes[20] ^= 0x01
        try bytes.write(to: tampered)
        try Data("x".utf8).write(to: out.appendingPathComponent("images/stray.png"))
        // Then validation reports each, by file
        let problems = SnapshotValidator().validate(directory: out).problems
        #expect(problems.contains { $0.file == files[0].path && $0.message.contains("not-found") })
        #expect(problems.contains { $0.file == files[1].path && $0.message.contains("checksum-mismatch") })
        #expect(problems.contains { $0.file == "images/stray.png" && $0.message.contains("not listed") })
    }

    @Test func theConfigurationNeedsAllowedHostsAndKnowsItsKeys() throws {
        // Given configurations with an image step
        let file = directory.child("catalog.json")
        func load(_ json: String) throws -> PipelineConfiguration {
            try Data(json.utf8).write(to: file)
            return try PipelineConfiguration.load(from: file)
        }
        // Then defaults apply to what is left out, allowedHosts is required, and typos are named
        let loaded = try load(#"{"bundleImages": {"allowedHosts": ["static.example.com"]}}"#)
        #expect(loaded.bundleImages?.gamesPerCategory == 6 && loaded.bundleImages?.fields == [.thumbnail])
        let missing = #expect(throws: PipelineError.self) { try load(#"{"bundleImages": {}}"#) }
        #expect(missing?.message.contains("allowedHosts") == true)
        let typo = #expect(throws: PipelineError.self) {
            try load(#"{"bundleImages": {"allowedHosts": ["a.com"], "gamesPerCategori": 2}}"#)
        }
        #expect(typo?.message.contains("gamesPerCategory") == true)
        let tooLarge = #expect(throws: PipelineError.self) {
            try load(#"{"bundleImages": {"allowedHosts": ["a.com"], "maxImageBytes": 4194304}}"#)
        }
        #expect(tooLarge?.message.contains("snapshotLimits.maxImageBytes") == true)
    }
}
