@_spi(CatalogTools) import CasinoCacheTesting
import Foundation
import Testing

/// `catalog snapshot` with `bundleImages` in the configuration, as a release engineer runs it.
@Suite(.timeLimit(.minutes(5)))
struct CatalogImageCommandTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    var configuration: String { repositoryRoot.appendingPathComponent("data/catalog.json").path }

    @Test func bundlesTheRecordedThumbnailsOfTheEmbeddedDataOffline() async throws {
        // When the embedded recording is snapshotted with its configuration (bundleImages) and validated
        let out = directory.child("out")
        let snapshot = try await CatalogBinary.run([
            "snapshot", "--source", recordedSource, "--config", configuration, "--out", out.path,
        ])
        let validate = try await CatalogBinary.run(["validate", out.path])
        // Then both exit 0, the images of data/provider/images are in out/images, and the run says so
        #expect(snapshot.status == 0, "\(snapshot.standardError)")
        #expect(validate.status == 0, "\(validate.standardError)")
        let images = try FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent("images").path)
        #expect(images.count == 45)
        #expect(snapshot.standardError.contains("bundling 45 image URLs in 45 files"))
        #expect(snapshot.standardError.contains("and 45 images ("))
    }

    @Test func withoutAnImageSourceItSaysSoAndBundlesNone() async throws {
        // Given a normalized catalogue (its source unknown to the snapshot step)
        let normalized = directory.child("normalized.json")
        let normalize = try await CatalogBinary.run([
            "normalize", "--source", recordedSource, "--config", configuration, "--output", normalized.path, "--quiet",
        ])
        #expect(normalize.status == 0, "\(normalize.standardError)")
        // When it is snapshotted with bundleImages configured but neither --images nor --fetch-images
        let out = directory.child("out")
        let snapshot = try await CatalogBinary.run([
            "snapshot", "--normalized", normalized.path, "--config", configuration, "--out", out.path,
        ])
        // Then it succeeds without images and names the missing flag
        #expect(snapshot.status == 0, "\(snapshot.standardError)")
        #expect(snapshot.standardError.contains("pass --images DIR or --fetch-images"))
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("images").path))
    }

    @Test func refusesTwoImageSourcesAndABadRewrite() async throws {
        let both = try await CatalogBinary.run([
            "snapshot", "--source", recordedSource, "--images", "x", "--fetch-images", "--out",
            directory.child("o").path,
        ])
        #expect(both.status == 64 && both.standardError.contains("--images or --fetch-images"))
        let rewrite = try await CatalogBinary.run([
            "snapshot", "--source", recordedSource, "--image-host-rewrite", "cdn.example.com", "--out",
            directory.child("o").path,
        ])
        #expect(rewrite.status == 64 && rewrite.standardError.contains("host=http(s)://base"))
    }
}
