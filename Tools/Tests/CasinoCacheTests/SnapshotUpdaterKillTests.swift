@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
@_spi(CatalogTools) import CatalogServer
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `kill -9` in the middle of an update: `catalog update` (the app's `SnapshotUpdater` in a
/// child process) is killed while it downloads into its incoming generation, and the next launch
/// serves the previous generation and clears what the dead process left.
@Suite(.timeLimit(.minutes(5)))
struct SnapshotUpdaterKillTests {
    /// `catalog` beside the test bundle (`swift build --build-tests` builds both).
    static let catalogBinary: URL = {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return [Bundle.main.bundleURL, directory, directory.deletingLastPathComponent()]
            .map { $0.appendingPathComponent("catalog") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
            ?? directory.appendingPathComponent("catalog")
    }()

    @Test func aKillDuringTheDownloadLeavesThePreviousGenerationServing() async throws {
        let fixture = try await PublishedSetFixture()
        try await withCleanup {
            try await killDuringDownload(fixture)
        } cleanup: {
            await fixture.stop()
        }
    }

    func killDuringDownload(_ fixture: PublishedSetFixture) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.catalogBinary.path), "build catalog first")
        // Given version 1 installed, version 2 published, and a CDN that holds each file for 3 s
        try fixture.publish()
        guard case .installed(let first) = try await fixture.launch().checkForUpdate() else {
            Issue.record("version 1 was not installed")
            return
        }
        try fixture.publish(fixture.changedCatalog())
        fixture.simulator.delayPublishedFiles(milliseconds: 3000)
        // When `catalog update` runs in a child process and is killed once its incoming generation exists
        let process = Process()
        process.executableURL = Self.catalogBinary
        process.arguments = [
            "update", "--manifest-url", fixture.manifestURL.absoluteString, "--public-key", fixture.key.publicKeyBase64,
            "--directory", fixture.support.path, "--bundle", fixture.bundle.directory.path, "--quiet",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var sawIncoming = false
        for _ in 0..<400 where !sawIncoming {
            sawIncoming = fixture.generationNames().contains { $0.hasPrefix(".incoming-") }
            if !sawIncoming { try await Task.sleep(for: .milliseconds(25)) }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(sawIncoming)
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(fixture.generationNames().contains { $0.hasPrefix(".incoming-") })
        // Then the next launch serves version 1 and removes the dead install's directory
        fixture.simulator.delayPublishedFiles(milliseconds: 0)
        let next = try fixture.launch()
        #expect(next.activeSnapshotDirectory == first.directory)
        #expect(next.activeVersion == 1)
        #expect(fixture.generationNames() == [first.directory.lastPathComponent])
        #expect(
            try fixture.servedFirstGameName(from: next.activeSnapshotDirectory)
                == fixture.bundle.catalog.editions[0].pages[0].items[0].name)
        // And its check installs version 2 from scratch
        guard case .installed(let second) = try await next.checkForUpdate() else {
            Issue.record("version 2 was not installed after the kill")
            return
        }
        #expect(second.version == 2)
        #expect(second.filesDownloaded == 2)
    }
}
