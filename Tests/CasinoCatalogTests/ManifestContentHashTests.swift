@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

/// The manifest's `contentHash` line format, pinned by digests computed outside Swift (Python's
/// `hashlib` over the documented text), and the check of it.
@Suite struct ManifestContentHashTests {
    static let edition = try! Edition(id: "en-iPhone")

    static func entry(_ key: SnapshotKey, path: String, hash: String) -> Manifest.Entry {
        Manifest.Entry(
            path: path, key: key, count: 1, total: 1, compressedBytes: 10, uncompressedBytes: 20,
            sha256: String(repeating: "ab", count: 32), contentHash: hash)
    }

    /// Listed in path order, which is not the order of their lines.
    static let files =
        [
            entry(
                .categories(edition), path: "en-iPhone/categories.json.gz",
                hash: "sha256:" + String(repeating: "11", count: 32)),
            entry(
                .gamesPage(edition, categoryId: "VIDEOSLOTS", offset: 0),
                path: "en-iPhone/games/videoslots-0000000000/0.json.gz",
                hash: "sha256:" + String(repeating: "22", count: 32)),
        ].reversed() as [Manifest.Entry]

    @Test func isTheSHA256OfOneSortedKeyTabHashLinePerFile() {
        // printf 'en-iPhone/categories\tsha256:11…11\nen-iPhone/games/VIDEOSLOTS/0\tsha256:22…22\n' | sha256sum
        #expect(
            Manifest.contentHash(of: Self.files, images: nil)
                == "sha256:4d641205887977a70cb3461b1064820a2783d22a955e49530521ac111491d06f")
        #expect(Manifest.contentHash(of: Self.files, images: []) == Manifest.contentHash(of: Self.files, images: nil))
    }

    @Test func imagesAddOneImageTabURLTabSHA256LineEachAfterTheFiles() {
        let image = Manifest.Image(
            url: "https://static.example.com/a.jpg",
            path: Manifest.Image.path(sha256: String(repeating: "33", count: 32), mediaType: .jpeg),
            bytes: 5, sha256: String(repeating: "33", count: 32), mediaType: .jpeg)
        // … the two lines above, then 'image\thttps://static.example.com/a.jpg\t33…33\n'
        #expect(
            Manifest.contentHash(of: Self.files, images: [image])
                == "sha256:6fdda266d2f55b177e10a2f1357634dbff04ffe4b97dd88d4dcfbcb4da5dc6a0")
    }

    @Test func aManifestWhoseContentHashIsNotItsOwnIsRefusedWithWhatToDo() {
        // Given a manifest edited after it was written: one file's content hash changed
        var files = Self.files
        let written = Manifest.contentHash(of: files, images: nil)
        files[0].contentHash = "sha256:" + String(repeating: "44", count: 32)
        let manifest = Manifest(
            generator: .init(name: "catalog", version: "test"), generatedAt: Date(timeIntervalSince1970: 0),
            source: "test",
            contentHash: written, pageSize: 10, defaultEdition: Self.edition, editions: [Self.edition],
            files: files.sorted { $0.path < $1.path })
        // Then the check names the field and says what to do (the other rules still hold)
        #expect(manifest.violations(limits: .default).isEmpty)
        let violation = manifest.contentHashViolation()
        #expect(violation?.path == "contentHash")
        #expect(violation?.message.contains("make snapshot") == true)
        #expect(
            Manifest(
                generator: manifest.generator, generatedAt: manifest.generatedAt, source: "test",
                contentHash: Manifest.contentHash(of: manifest.files, images: nil), pageSize: 10,
                defaultEdition: Self.edition,
                editions: [Self.edition], files: manifest.files
            ).contentHashViolation() == nil)
    }
}
