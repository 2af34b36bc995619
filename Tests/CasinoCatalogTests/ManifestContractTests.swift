@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

@Suite struct ManifestContractTests {
    static let edition = try! Edition(id: "en-iPhone")
    static let digest = String(repeating: "ab", count: 32)

    static func manifest(files: [Manifest.Entry]) -> Manifest {
        Manifest(
            generator: .init(name: "catalog", version: "test"), generatedAt: Date(timeIntervalSince1970: 0),
            source: "test", contentHash: Manifest.contentHash(of: files, images: nil), pageSize: 10,
            defaultEdition: edition,
            editions: [edition], files: files)
    }

    static func entry(
        _ path: String = "en-iPhone/categories.json.gz", compressed: Int = 100, uncompressed: Int = 400
    ) -> Manifest.Entry {
        Manifest.Entry(
            path: path, key: .categories(edition), count: 3, total: 3, compressedBytes: compressed,
            uncompressedBytes: uncompressed, sha256: digest, contentHash: "sha256:" + digest)
    }

    @Test func acceptsAWellFormedManifest() {
        #expect(Self.manifest(files: [Self.entry()]).violations(limits: .default).isEmpty)
    }

    @Test(arguments: [(-2, 400, "uncompressedBytes"), (100, -2, "uncompressedBytes"), (-1, 400, "compressedBytes")])
    func refusesNegativeSizes(compressed: Int, uncompressed: Int, field: String) {
        // Given the reproducer's manifest entry with a negative size (it trapped in gzip)
        let entry = Self.entry(compressed: compressed, uncompressed: uncompressed)
        // Then the contract names the field
        let violations = Self.manifest(files: [entry]).violations(limits: .default)
        #expect(violations.contains { $0.path == "files[0].\(compressed < 0 ? "compressedBytes" : field)" })
    }

    @Test func refusesSizesOverTheCapsAndIntMax() {
        let entry = Self.entry(compressed: .max, uncompressed: .max)
        let paths = Set(Self.manifest(files: [entry]).violations(limits: .default).map(\.path))
        #expect(paths.isSuperset(of: ["files[0].compressedBytes", "files[0].uncompressedBytes"]))
    }

    @Test func refusesMoreFilesThanTheCapWithoutLookingAtEach() {
        var limits = SnapshotLimits.default
        limits.maxFileCount = 2
        let violations = Self.manifest(files: Array(repeating: Self.entry(), count: 3)).violations(limits: limits)
        #expect(violations.map(\.path) == ["files"])
    }

    @Test(arguments: ["../outside.json.gz", "/etc/passwd", "a//b.json.gz"])
    func refusesUnsafePaths(path: String) {
        let violations = Self.manifest(files: [Self.entry(path)]).violations(limits: .default)
        #expect(violations.contains { $0.code == .unsafePath })
    }

    @Test func refusesAPathListedTwiceAndPathsOutOfOrder() {
        // Given a path listed twice in a row, and two paths out of order
        let twice = Self.manifest(files: [Self.entry("a.json.gz"), Self.entry("a.json.gz")])
        let unsorted = Self.manifest(files: [Self.entry("b.json.gz"), Self.entry("a.json.gz")])
        // Then each is named at the second entry
        #expect(
            twice.violations(limits: .default).contains {
                $0.code == .duplicateID && $0.path == "files[1].path"
            })
        #expect(
            unsorted.violations(limits: .default).contains {
                $0.code == .malformed && $0.path == "files[1].path"
            })
    }

    @Test(arguments: [0, -1, Int.max, CatalogRules.maxPageSize + 1])
    func refusesAPageSizeOutOfRange(pageSize: Int) {
        var manifest = Self.manifest(files: [Self.entry()])
        manifest.pageSize = pageSize
        #expect(manifest.violations(limits: .default).contains { $0.path == "pageSize" })
    }

    @Test func limitsOutsideTheirRangeAreNamed() {
        var limits = SnapshotLimits.default
        limits.maxInflatedBytes = -1
        #expect(limits.problem?.hasPrefix("maxInflatedBytes") == true)
        limits = .default
        limits.maxManifestBytes = .max
        #expect(limits.problem?.hasPrefix("maxManifestBytes") == true)
        #expect(SnapshotLimits.default.problem == nil)
    }
}
