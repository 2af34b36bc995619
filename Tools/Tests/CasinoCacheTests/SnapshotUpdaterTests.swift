@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
@_spi(CatalogTools) import CatalogServer
import Foundation
import Testing

/// The over-the-air path end to end: `SnapshotPublisher` writes a signed set, the simulator serves
/// it over loopback HTTP, `SnapshotUpdater` installs it into a real support directory, and the
/// bundled tier serves the result. Every refusal leaves the previous generation serving.
@Suite(.timeLimit(.minutes(5)))
struct SnapshotUpdaterTests {
    /// Runs `body` with a fresh fixture, stopping the simulator afterwards.
    func withFixture(_ body: (PublishedSetFixture) async throws -> Void) async throws {
        try await PublishedSetFixture.run(body)
    }

    func installation(_ outcome: SnapshotUpdater.Outcome) throws -> SnapshotUpdater.Installation {
        guard case .installed(let installation) = outcome else { throw OutcomeMismatch(outcome: "\(outcome)") }
        return installation
    }

    func refusal(_ outcome: SnapshotUpdater.Outcome) throws -> SnapshotUpdateError {
        guard case .refused(let error) = outcome else { throw OutcomeMismatch(outcome: "\(outcome)") }
        return error
    }

    struct OutcomeMismatch: Error { var outcome: String }

    /// Installs version 1 (the bundle's content) and returns the updater's next launch.
    func installFirstVersion(_ fixture: PublishedSetFixture) async throws -> SnapshotUpdater.Installation {
        try fixture.publish()
        return try installation(try await fixture.launch().checkForUpdate())
    }

    // MARK: - Installing

    @Test func downloadsOnlyTheChangedFilesAndServesThemFromTheNextLaunch() async throws {
        try await withFixture { fixture in
            // Given version 1 installed: the bundle's content, so every file is taken from the bundle
            let first = try await installFirstVersion(fixture)
            #expect(first.filesDownloaded == 0 && first.bytesDownloaded == 0)
            #expect(first.filesReused == fixture.bundle.catalog.editions.reduce(1) { $0 + 1 + $1.pages.count })
            // When one game is renamed, version 2 is published, and the app checks at its next launch
            try fixture.publish(fixture.changedCatalog())
            let payload = try fixture.currentPayload()
            let changed = fixture.bundle.catalog.editions[0].pages[0]
            let changedPath = SnapshotLayout.path(
                for: .gamesPage(
                    fixture.bundle.catalog.editions[0].edition, categoryId: changed.categoryId, offset: changed.offset))
            let expectedBytes = payload.manifest.bytes + (payload.files.first { $0.path == changedPath }?.bytes ?? -1)
            fixture.simulator.resetPublishedStatistics()
            let second = try installation(try await fixture.launch().checkForUpdate())
            // Then only the changed page and the snapshot manifest came over the network
            #expect(second.version == 2 && second.previousVersion == 1)
            #expect(second.filesDownloaded == 2)
            #expect(second.bytesDownloaded == expectedBytes)
            #expect(second.filesReused == payload.files.count - 1)
            let served = fixture.simulator.publishedStatistics()
            #expect(served.fileRequests == 2 && served.fileBytes == expectedBytes)
            // And the next launch serves version 2, the renamed game included
            let next = try fixture.launch()
            #expect(next.activeVersion == 2)
            #expect(next.activeSnapshotDirectory == second.directory)
            #expect(try fixture.servedFirstGameName(from: next.activeSnapshotDirectory) == "Renamed for the update")
            // And the generation carries the index of its manifest (published sets carry none), so a
            // launch reads only the edition it opens
            let reader = SnapshotReader(directory: second.directory)
            let index = try #require(try reader.index())
            let manifest = try reader.manifest()
            for edition in manifest.editions {
                #expect(
                    try reader.manifest(of: edition, in: index).files == manifest.files.filter { $0.edition == edition }
                )
            }
            #expect(
                try SnapshotIndex.files(for: manifest).allSatisfy { file in
                    (try? Data(contentsOf: second.directory.appendingPathComponent(file.path))) == file.data
                })
            // And a further check is a 304: nothing is downloaded
            fixture.simulator.resetPublishedStatistics()
            guard case .upToDate(let version) = try await next.checkForUpdate() else {
                Issue.record("expected up to date")
                return
            }
            #expect(version == 2)
            #expect(fixture.simulator.publishedStatistics().notModified == 1)
            #expect(fixture.simulator.publishedStatistics().fileRequests == 0)
        }
    }

    @Test func aSnapshotWithImagesCarriesThemAndTheNextLaunchServesThem() async throws {
        try await withFixture { fixture in
            // Given version 1 installed, without images
            _ = try await installFirstVersion(fixture)
            // When version 2 bundles the first game's thumbnail (the content otherwise unchanged)
            let game = fixture.bundle.catalog.editions[0].pages[0].items[0]
            let (images, png) = fixture.firstThumbnail()
            try fixture.publish(fixture.bundle.catalog, images: images)
            let second = try installation(try await fixture.launch().checkForUpdate())
            // Then the image came over with the snapshot manifest, and nothing else
            #expect(second.filesDownloaded == 2)
            #expect(second.bytesDownloaded == (try fixture.currentPayload()).manifest.bytes + png.count)
            // And a cache on the next launch's snapshot answers the thumbnail from it
            let next = try fixture.launch()
            let cache = CatalogCache(
                upstream: ScriptedUpstream(), cacheDirectory: nil,
                bundleDirectory: next.activeSnapshotDirectory, logger: silentLogger)
            #expect(cache.bundledImage(for: game.thumbnail)?.data == png)
        }
    }

    @Test func withoutAnInstalledGenerationTheBundleServes() async throws {
        try await withFixture { fixture in
            // Given no update installed yet
            let updater = try fixture.launch()
            // Then the bundle is the active snapshot
            #expect(updater.activeSnapshotDirectory == fixture.bundle.directory)
            #expect(updater.activeVersion == nil)
        }
    }

    // MARK: - Refusals

    @Test func refusesATamperedManifest() async throws {
        try await withFixture { fixture in
            // Given version 1 installed, and version 2 whose signed bytes were changed in transit
            let first = try await installFirstVersion(fixture)
            try fixture.publish(fixture.changedCatalog())
            var payload = try fixture.currentPayload()
            let signature = try fixture.key.signature(for: try CatalogCoding.encoder().encode(payload))
            payload.expiresAt += 86_400 * 365
            try fixture.serve(payload, signature: signature)
            // When the app checks
            let error = try refusal(try await fixture.launch().checkForUpdate())
            // Then it is refused for its signature, before any file is fetched, and version 1 still serves
            #expect(error.code == .badSignature)
            #expect(fixture.simulator.publishedStatistics().fileRequests == 0)
            #expect(try fixture.launch().activeSnapshotDirectory == first.directory)
        }
    }

    @Test func refusesAManifestSignedByAnotherKey() async throws {
        try await withFixture { fixture in
            // Given a set signed by a key the app does not pin
            try fixture.publish()
            let payload = try fixture.currentPayload()
            let bytes = try CatalogCoding.encoder().encode(payload)
            try fixture.serveSigned(bytes, signature: try SigningKey.generate().signature(for: bytes))
            // Then it is refused and the bundle keeps serving
            #expect(try refusal(try await fixture.launch().checkForUpdate()).code == .badSignature)
            #expect(try fixture.launch().activeSnapshotDirectory == fixture.bundle.directory)
        }
    }

    @Test func refusesAnOlderVersion() async throws {
        try await withFixture { fixture in
            // Given version 3 installed
            try fixture.publish(version: 3)
            let installed = try installation(try await fixture.launch().checkForUpdate())
            // When the server answers version 2, validly signed (a rollback or a replay)
            var payload = try fixture.currentPayload()
            payload.version = 2
            try fixture.serve(payload)
            let error = try refusal(try await fixture.launch().checkForUpdate())
            // Then it is refused and version 3 still serves
            #expect(error.code == .rollback)
            #expect(try fixture.launch().activeVersion == installed.version)
        }
    }

    @Test func refusesTheSameVersionWithOtherContent() async throws {
        try await withFixture { fixture in
            // Given version 1 installed
            _ = try await installFirstVersion(fixture)
            // When version 1 comes back with another file list
            var payload = try fixture.currentPayload()
            payload.expiresAt += 3600
            try fixture.serve(payload)
            // Then it is refused as a rollback
            #expect(try refusal(try await fixture.launch().checkForUpdate()).code == .rollback)
        }
    }

    @Test func refusesAnExpiredManifest() async throws {
        try await withFixture { fixture in
            // Given a set that expired a day ago
            try fixture.publish(expiresIn: 30 * 86_400, now: Date().addingTimeInterval(-31 * 86_400))
            // Then it is refused
            let error = try refusal(try await fixture.launch().checkForUpdate())
            #expect(error.code == .expired)
            #expect(fixture.generationNames().isEmpty)
        }
    }

    @Test(arguments: ["checksum", "size"])
    func refusesAFileWhoseHashOrSizeDiffersAndKeepsThePreviousGeneration(_ damage: String) async throws {
        try await withFixture { fixture in
            // Given version 1 installed, and version 2 whose changed page is damaged on the CDN
            let first = try await installFirstVersion(fixture)
            let report = try fixture.publish(fixture.changedCatalog())
            let payload = try fixture.currentPayload()
            let bundled = Set(try SnapshotReader(directory: fixture.bundle.directory).manifest().files.map(\.sha256))
            let changedFile = try #require(payload.files.first { !bundled.contains($0.sha256) })
            #expect(report.filesWritten == 2)
            let stored = fixture.published.appendingPathComponent(changedFile.publishedPath)
            var bytes = try Data(contentsOf: stored)
            if damage == "checksum" { bytes[bytes.count / 2] ^= 0xFF } else { bytes.append(0) }
            try bytes.write(to: stored)
            // When the app checks
            let error = try refusal(try await fixture.launch().checkForUpdate())
            // Then the file is refused, nothing is left half-installed, and version 1 still serves
            #expect(error.code == (damage == "checksum" ? .checksumMismatch : .sizeMismatch))
            #expect(fixture.generationNames() == [first.directory.lastPathComponent])
            let next = try fixture.launch()
            #expect(next.activeSnapshotDirectory == first.directory)
            #expect(
                try fixture.servedFirstGameName(from: next.activeSnapshotDirectory)
                    == fixture.bundle.catalog.editions[0].pages[0].items[0].name)
        }
    }

    @Test func refusesASnapshotWhoseManifestContentHashIsNotItsOwn() async throws {
        try await withFixture { fixture in
            // Given a validly signed set whose snapshot manifest was edited after it was written: its
            // contentHash (and the signed one, so the two agree) no longer hashes its own entries
            try fixture.publish()
            var payload = try fixture.currentPayload()
            let original = fixture.published.appendingPathComponent(payload.manifest.publishedPath)
            var manifest = try CatalogCoding.decoder().decode(Manifest.self, from: Data(contentsOf: original))
            manifest.contentHash = "sha256:" + String(repeating: "0", count: 64)
            let edited = try CatalogCoding.prettyEncoder().encode(manifest)
            payload.manifest.sha256 = FileNaming.hexSHA256(edited)
            payload.manifest.bytes = edited.count
            payload.contentHash = manifest.contentHash
            try edited.write(to: fixture.published.appendingPathComponent(payload.manifest.publishedPath))
            try fixture.serve(payload)
            // Then the updater refuses it before installing anything
            let error = try refusal(try await fixture.launch().checkForUpdate())
            #expect(error.code == .invalidSnapshot)
            #expect(fixture.generationNames().isEmpty)
        }
    }

    @Test(
        arguments: [
            ("../../escaped.json.gz", nil), ("/etc/passwd", nil), ("en-iPhone/../../x", nil), ("published.json", nil),
            (nil, "../../../../etc/passwd"), (nil, String(repeating: "A", count: 64)),
        ] as [(String?, String?)])
    func refusesAPathOrHashThatCouldEscape(path: String?, sha256: String?) async throws {
        try await withFixture { fixture in
            // Given a validly signed manifest with one hostile entry
            try fixture.publish()
            var payload = try fixture.currentPayload()
            if let path { payload.files[0].path = path }
            if let sha256 { payload.files[0].sha256 = sha256 }
            try fixture.serve(payload)
            // Then it is refused before any file is fetched or written
            let error = try refusal(try await fixture.launch().checkForUpdate())
            #expect(error.code == .unsafeEntry)
            #expect(fixture.simulator.publishedStatistics().fileRequests == 0)
            #expect(fixture.generationNames().isEmpty)
            #expect(!FileManager.default.fileExists(atPath: fixture.directory.child("escaped.json.gz").path))
        }
    }

    @Test func refusesAMillionFileListByTheManifestCap() async throws {
        try await withFixture { fixture in
            // Given a signed manifest listing 10^6 files (about 170 MB), streamed to disk
            try fixture.publish()
            let payload = try fixture.currentPayload()
            try MillionFileManifest.write(
                basedOn: payload, key: fixture.key,
                to: fixture.published.appendingPathComponent(SignedManifest.fileName))
            // When the app checks with the default caps
            let error = try refusal(try await fixture.launch().checkForUpdate())
            // Then the answer is refused by its size (8 MiB) before its body is read, let alone decoded
            #expect(error.code == .overLimit)
            #expect(error.message.contains("\(SignedManifest.defaultMaxBytes)"))
            #expect(fixture.simulator.publishedStatistics().fileRequests == 0)
        }
    }

    @Test func refusesMoreFilesThanTheCountCapBeforeDecodingThem() async throws {
        try await withFixture { fixture in
            // Given a signed manifest of 1,000 files and an app that allows 100
            try fixture.publish()
            var payload = try fixture.currentPayload()
            payload.files = (0..<1000).map {
                PublishedManifest.File(path: "f/\($0).json.gz", bytes: 1, sha256: String(repeating: "a", count: 64))
            }
            try fixture.serve(payload)
            let updater = try fixture.launch { $0.maxFileCount = 100 }
            // Then it is refused by the count
            let error = try refusal(try await updater.checkForUpdate())
            #expect(error.code == .overLimit)
            #expect(error.message.contains("100"))
        }
    }

    // MARK: - Interrupted installs

    @Test func leftoversOfAnInterruptedInstallAreRemovedAndThePreviousGenerationServes() async throws {
        try await withFixture { fixture in
            // Given version 1 installed, then a crash that left a half-written incoming generation,
            // a complete generation never pointed at, and a pointer temporary
            let first = try await installFirstVersion(fixture)
            let generations = fixture.support.appendingPathComponent("generations")
            let incoming = generations.appendingPathComponent(".incoming-\(UUID().uuidString)")
            try FileManager.default.createDirectory(
                at: incoming.appendingPathComponent("en-iPhone"), withIntermediateDirectories: true)
            try Data("half".utf8).write(to: incoming.appendingPathComponent("en-iPhone/categories.json.gz"))
            let orphan = generations.appendingPathComponent("v2-0123456789ab")
            try FileManager.default.copyItem(at: first.directory, to: orphan)
            try Data("{\"generation\":\"v2-0123".utf8).write(
                to: fixture.support.appendingPathComponent(".current-\(UUID().uuidString)"))
            let foreign = generations.appendingPathComponent("notes.txt")
            try Data("someone else's".utf8).write(to: foreign)
            // When the app launches again
            let updater = try fixture.launch()
            // Then version 1 serves, and only the updater's own leftovers are gone
            #expect(updater.activeSnapshotDirectory == first.directory)
            #expect(updater.activeVersion == 1)
            #expect(fixture.generationNames() == [first.directory.lastPathComponent, "notes.txt"].sorted())
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: fixture.support.path).sorted() == [
                    "current.json", "generations",
                ])
            #expect(try fixture.servedFirstGameName(from: updater.activeSnapshotDirectory) != nil)
        }
    }

    @Test func aCorruptPointerFallsBackToTheBundle() async throws {
        try await withFixture { fixture in
            // Given version 1 installed and then a pointer naming a directory outside generations/
            _ = try await installFirstVersion(fixture)
            try Data(#"{"generation":"../../etc","version":9}"#.utf8).write(
                to: fixture.support.appendingPathComponent("current.json"))
            // Then the bundle serves
            #expect(try fixture.launch().activeSnapshotDirectory == fixture.bundle.directory)
        }
    }
}

/// A signed manifest of 10^6 files written in pieces, so the test itself never holds it whole.
enum MillionFileManifest {
    static func write(basedOn payload: PublishedManifest, key: SigningKey, to url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var template = payload
        template.files = []
        let empty = String(decoding: try CatalogCoding.encoder().encode(template), as: UTF8.self)
        let marker = #""files":[]"#
        let parts = empty.components(separatedBy: marker)
        var encoder = StreamingBase64 { try handle.write(contentsOf: Data($0.utf8)) }
        try handle.write(
            contentsOf: Data(#"{"format":"\#(SignedManifest.currentFormat)","keyId":"\#(key.keyId)","payload":""#.utf8))
        try encoder.append(Data((parts[0] + #""files":["#).utf8))
        let hash = String(repeating: "a", count: 64)
        var chunk = ""
        for index in 0..<1_000_000 {
            chunk += (index == 0 ? "" : ",") + #"{"bytes":1,"path":"f/\#(index).json.gz","sha256":"\#(hash)"}"#
            if chunk.utf8.count > 1 << 20 {
                try encoder.append(Data(chunk.utf8))
                chunk = ""
            }
        }
        try encoder.append(Data((chunk + "]" + parts[1]).utf8))
        try encoder.finish()
        try handle.write(contentsOf: Data(#"","signature":"\#(Data(count: 64).base64EncodedString())"}"#.utf8))
    }

    /// Base64 of a byte stream, written as it comes (3-byte groups; the rest waits for more).
    struct StreamingBase64 {
        let output: (String) throws -> Void
        var pending = Data()

        init(_ output: @escaping (String) throws -> Void) { self.output = output }

        mutating func append(_ data: Data) throws {
            pending.append(data)
            let whole = pending.count / 3 * 3
            try output(pending.prefix(whole).base64EncodedString())
            pending = Data(pending.dropFirst(whole))
        }

        mutating func finish() throws { try output(pending.base64EncodedString()) }
    }
}
