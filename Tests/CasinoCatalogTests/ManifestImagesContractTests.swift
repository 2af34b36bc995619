@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

@Suite struct ManifestImagesContractTests {
    static let digest = String(repeating: "cd", count: 32)
    static let other = String(repeating: "ef", count: 32)

    static func image(
        _ url: String = "https://static.example.com/1.jpg", sha256: String = digest, bytes: Int = 400,
        type: ImageMediaType = .jpeg, path: String? = nil
    ) -> Manifest.Image {
        Manifest.Image(
            url: url, path: path ?? Manifest.Image.path(sha256: sha256, mediaType: type), bytes: bytes, sha256: sha256,
            mediaType: type)
    }

    static func violations(_ images: [Manifest.Image]?, limits: SnapshotLimits = .default) -> [Violation] {
        var manifest = ManifestContractTests.manifest(files: [ManifestContractTests.entry()])
        manifest.images = images
        manifest.contentHash = Manifest.contentHash(of: manifest.files, images: images)
        return manifest.violations(limits: limits)
    }

    @Test func acceptsNoImagesAnEmptySectionAndTwoURLsOfOneFile() {
        #expect(Self.violations(nil).isEmpty)
        #expect(Self.violations([]).isEmpty)
        #expect(Self.violations([Self.image(), Self.image("https://static.example.com/2.jpg")]).isEmpty)
    }

    @Test func aManifestWithoutImagesDecodesAndEncodesWithoutTheKey() throws {
        // Given a manifest as written before images existed
        let manifest = ManifestContractTests.manifest(files: [ManifestContractTests.entry()])
        let json = try CatalogCoding.prettyEncoder().encode(manifest)
        // Then it has no images key, and reads back with none
        #expect(!String(decoding: json, as: UTF8.self).contains("images"))
        #expect(try CatalogCoding.decoder().decode(Manifest.self, from: json).images == nil)
    }

    static let broken: [(images: [Manifest.Image], path: String)] = [
        ([image("http://static.example.com/1.jpg")], "images[0].url"),
        ([image("javascript:alert(1)")], "images[0].url"),
        ([image(path: "../../etc/passwd")], "images[0].path"),
        ([image(path: "images/\(digest).png")], "images[0].path"),
        ([image(path: "images/1.jpg")], "images[0].path"),
        ([image(sha256: "../x")], "images[0].sha256"),
        ([image(bytes: 0)], "images[0].bytes"),
        ([image(bytes: -1)], "images[0].bytes"),
        ([image(bytes: .max)], "images[0].bytes"),
        ([image("https://b.example.com/1.jpg"), image("https://a.example.com/1.jpg")], "images[1].url"),
        ([image(), image()], "images[1].url"),
        ([image(), image("https://static.example.com/2.jpg", bytes: 401)], "images[1]"),
    ]

    @Test(arguments: broken)
    func refusesEachBrokenRuleNamingTheField(images: [Manifest.Image], path: String) {
        #expect(Self.violations(images).contains { $0.path == path }, "\(Self.violations(images))")
    }

    @Test func capsTheCountThePerImageBytesAndTheTotal() {
        var limits = SnapshotLimits.default
        limits.maxImageCount = 1
        #expect(
            Self.violations([Self.image(), Self.image("https://static.example.com/2.jpg")], limits: limits).map(\.path)
                == ["images"])
        limits = .default
        limits.maxImageBytes = 100
        #expect(Self.violations([Self.image()], limits: limits).map(\.path) == ["images[0].bytes"])
        limits = .default
        limits.maxImageTotalBytes = 700
        // Two URLs of one file count once (400 bytes); a second file (400 more) is over 700
        #expect(
            Self.violations([Self.image(), Self.image("https://static.example.com/2.jpg")], limits: limits).isEmpty)
        let two = [Self.image(), Self.image("https://static.example.com/2.jpg", sha256: Self.other)]
        #expect(Self.violations(two, limits: limits).map(\.path) == ["images"])
    }

    @Test func limitsDecodeTheImageCapsAndRefuseUnusableOnes() throws {
        let limits = try CatalogCoding.decoder().decode(SnapshotLimits.self, from: Data(#"{"maxImageCount": 5}"#.utf8))
        #expect(limits.maxImageCount == 5 && limits.maxImageBytes == SnapshotLimits.default.maxImageBytes)
        var broken = SnapshotLimits.default
        broken.maxImageTotalBytes = 0
        #expect(broken.problem?.contains("maxImageTotalBytes") == true)
    }
}
