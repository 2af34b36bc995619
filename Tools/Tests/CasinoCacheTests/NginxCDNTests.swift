@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
@_spi(CatalogTools) import Gzip
import Testing

/// The updater against a real CDN: nginx (Debian's) serving the published set, as operators set
/// one up: compressing on the fly (`gzip on`), serving precompressed `.gz` siblings
/// (`gzip_static on`), behind a `301`, over keep-alive with ETags. A content-encoded file is judged
/// by its decoded bytes, which are what was signed.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct NginxCDNTests {
    @Test func installsThroughOnTheFlyGzip() async throws {
        try await run(directives: "gzip on; gzip_types *; gzip_min_length 1;") { fixture, nginx in
            // Given version 2 published behind nginx compressing every answer
            try fixture.publish(fixture.changedCatalog())
            // When the app checks, Then version 2 installs, its files having come gzip-encoded
            let installation = try installation(try await fixture.launch(nginx, path: "ota").checkForUpdate())
            #expect(installation.version == 1)
            #expect(nginx.requests().contains { $0.contains("/ota/files/") && !$0.contains(" - ") })
        }
    }

    @Test func installsThroughPrecompressedSiblings() async throws {
        try await run(directives: "gzip_static on;") { fixture, nginx in
            // Given version 2 published with a correct NAME.gz beside every file (nginx then announces
            // the compressed length, which is not the signed size)
            try fixture.publish(fixture.changedCatalog())
            try Self.writeGzipSiblings(in: fixture.published)
            // When the app checks
            let outcome = try await fixture.launch(nginx, path: "ota").checkForUpdate()
            // Then version 2 installs and serves
            let installation = try installation(outcome)
            #expect(installation.filesDownloaded >= 1)
            let next = try fixture.launch(nginx, path: "ota")
            #expect(try fixture.servedFirstGameName(from: next.activeSnapshotDirectory) == "Renamed for the update")
        }
    }

    @Test func followsAPermanentRedirect() async throws {
        try await run { fixture, nginx in
            // Given the set moved, its old URL answering 301
            try fixture.publish(fixture.changedCatalog())
            // When the app checks at the old URL, Then the set installs from the new one
            _ = try installation(try await fixture.launch(nginx, path: "moved").checkForUpdate())
            #expect(nginx.requests().contains { $0.contains(" 301 ") })
        }
    }

    @Test func installsVersionAfterVersionOverOneConnectionAndRenewsWithNotModified() async throws {
        try await run { fixture, nginx in
            // Given one updater (as an app keeps one) and 5 versions published one after another
            let updater = try fixture.launch(nginx, path: "ota")
            for version in 1...5 {
                // A second apart: nginx's ETag is the modification second and the size
                if version > 1 { try await Task.sleep(for: .milliseconds(1100)) }
                try fixture.publish(fixture.changedCatalog(name: String(repeating: "v", count: version)))
                // When it checks after each, Then each installs
                #expect(try installation(try await updater.checkForUpdate()).version == version)
            }
            // And a check with nothing new is answered 304 and finds it up to date
            guard case .upToDate(let version) = try await updater.checkForUpdate() else {
                Issue.record("expected up to date")
                return
            }
            #expect(version == 5)
            let lines = nginx.requests().filter { $0.contains("/ota/manifest.json") || $0.contains("/ota/files/") }
            #expect(lines.contains { $0.contains(" 304 ") && $0.contains("manifest.json") })
            // And every request of the updater went over one kept-alive connection
            let connections = Set(lines.compactMap { $0.split(separator: " ").first })
            #expect(connections.count == 1, "\(lines.joined(separator: "\n"))")
            print("nginx: \(lines.count) requests over \(connections.count) connection(s)")
        }
    }

    @Test func aMissingFileIsRefusedWithAMessageThatSaysToCheckTheUpload() async throws {
        try await run { fixture, nginx in
            // Given version 2 published without its changed file (an incomplete upload)
            try fixture.publish(fixture.changedCatalog())
            let bundled = Set(try SnapshotReader(directory: fixture.bundle.directory).manifest().files.map(\.sha256))
            let changed = try #require(try fixture.currentPayload().files.first { !bundled.contains($0.sha256) })
            try FileManager.default.removeItem(at: fixture.published.appendingPathComponent(changed.publishedPath))
            // When the app checks
            let updater = try fixture.launch(nginx, path: "ota")
            let error = await #expect(throws: SnapshotUpdateError.self) { try await updater.checkForUpdate() }
            // Then the 404 says what to check, not to try again later
            #expect(error?.code == .httpStatus)
            #expect(error?.message.contains("uploaded") == true, "\(String(describing: error))")
            #expect(fixture.generationNames().isEmpty)
        }
    }

    // MARK: - Support

    private func run(
        directives: String = "", _ body: (PublishedSetFixture, NginxServer) async throws -> Void
    ) async throws {
        try await PublishedSetFixture.run { fixture in
            try FileManager.default.createDirectory(at: fixture.published, withIntermediateDirectories: true)
            let nginx = try await NginxServer(
                serving: fixture.published, prefix: fixture.directory.child("nginx"), directives: directives)
            defer { nginx.stop() }
            try await body(fixture, nginx)
        }
    }

    private func installation(_ outcome: SnapshotUpdater.Outcome) throws -> SnapshotUpdater.Installation {
        guard case .installed(let installation) = outcome else {
            throw SnapshotUpdateError(.invalidConfiguration, "expected an installation, got \(outcome)")
        }
        return installation
    }

    /// Writes `NAME.gz` beside every file below `directory`, as a CDN's upload script does.
    static func writeGzipSiblings(in directory: URL) throws {
        let files =
            FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL } ?? []
        for file in files where file.pathExtension != "gz" && !file.hasDirectoryPath {
            guard let data = try? Data(contentsOf: file) else { continue }
            try Gzip.compress(data).write(to: file.appendingPathExtension("gz"))
        }
    }
}

extension PublishedSetFixture {
    /// An updater reading this set through `nginx` at `path/manifest.json`.
    func launch(_ nginx: NginxServer, path: String) throws -> SnapshotUpdater {
        try launch(minuteDeadlinesAt: nginx.base.appendingPathComponent("\(path)/\(SignedManifest.fileName)"))
    }
}
