@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Testing

/// ``CatalogCache/inspection(updater:)`` after over-the-air installs: which generation serves,
/// which is installed for the next launch, who signed it, and which are kept for readers.
@Suite(.timeLimit(.minutes(3)))
struct SnapshotUpdaterInspectionTests {
    @Test func theReportNamesTheServingGenerationItsSignerAndTheRetiredOnes() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given version 1 installed and serving after a relaunch, then version 2 installed
            let (updater, first, second) = try await Self.installTwoVersions(fixture)
            let cache = CatalogCache(
                configuration: .showingEveryGame, upstream: ScriptedUpstream(), cacheDirectory: nil,
                bundleDirectory: updater.activeSnapshotDirectory, logger: silentLogger)
            let page = fixture.bundle.catalog.editions[0].pages[0]
            let answer = cache.cachedGamesPage(
                edition: fixture.bundle.catalog.editions[0].edition, categoryId: page.categoryId)

            // When the app inspects its cache with its updater
            let report = await cache.inspection(updater: updater)

            // Then version 1 serves until the next launch, version 2 is installed, signed by the pinned key
            let overTheAir = try #require(report.overTheAir)
            #expect(overTheAir.serving == first.directory.lastPathComponent)
            #expect(overTheAir.installed?.name == second.directory.lastPathComponent)
            #expect(overTheAir.installed?.version == 2 && overTheAir.installed?.signingKey == fixture.key.keyId)
            #expect(overTheAir.installed.map { $0.expiresAt > $0.publishedAt } == true)
            #expect(overTheAir.retired.map(\.name) == [first.directory.lastPathComponent])
            // And what the app shows names the generation as its source
            #expect(answer.metadata?.source == .overTheAir && report.snapshot?.source == .overTheAir)
            // (the page read, and each edition's category list, which the snapshot answers)
            #expect(report.entries.count == 3 && report.entries.allSatisfy { $0.source == .overTheAir })
        }
    }

    /// `catalog inspect-cache DIR --support SUPPORT`: a device's support directory, copied off it after
    /// real updates, read offline with the code the app's updater reports with, and left as it was.
    @Test func aSupportDirectoryReadOfflineNamesTheInstalledGenerationAndIsLeftAsItWas() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given version 1 installed and serving, then version 2 installed, and the app's cache
            // directory holding the territory it saved
            let (updater, first, second) = try await Self.installTwoVersions(fixture)
            let cacheDirectory = fixture.directory.child("cache")
            let cache = CatalogCache(
                upstream: ScriptedUpstream(), cacheDirectory: cacheDirectory,
                bundleDirectory: updater.activeSnapshotDirectory, logger: silentLogger)
            cache.setTerritory(Territory("CA-ON"))
            await cache.flush()
            let inApp = try #require(await cache.inspection(updater: updater).overTheAir)
            // and what an install cut short left, which the updater's next launch would remove
            let leftover = fixture.support.appendingPathComponent("generations/.incoming-0123")
            try FileManager.default.createDirectory(at: leftover, withIntermediateDirectories: true)
            try Data("half".utf8).write(to: leftover.appendingPathComponent("index.json"))
            let before = try Self.state(of: fixture.support)

            // When the support directory is read offline
            let binary = SnapshotUpdaterKillTests.catalogBinary
            let output = try await SharedCatalogTwoProcessTests.run(
                binary,
                [
                    "inspect-cache", cacheDirectory.path, "--bundle", fixture.bundle.directory.path, "--support",
                    fixture.support.path, "--public-key", fixture.key.publicKeyBase64, "--json", "--quiet",
                ])
            let text = try await SharedCatalogTwoProcessTests.run(
                binary,
                [
                    "inspect-cache", cacheDirectory.path, "--bundle", fixture.bundle.directory.path, "--support",
                    fixture.support.path, "--public-key", fixture.key.publicKeyBase64, "--quiet",
                ])

            // Then it names the generation installed, its signer and the retired one as the app does,
            // and version 2 as the one that serves at a launch
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let report = try decoder.decode(CacheInspection.self, from: Data(output.utf8))
            let offline = try #require(report.overTheAir)
            let installed = try #require(offline.installed)
            #expect(installed.name == second.directory.lastPathComponent && installed.version == 2)
            #expect(installed.name == inApp.installed?.name && installed.signingKey == fixture.key.keyId)
            #expect(installed.keyListVersion == inApp.installed?.keyListVersion)
            let expiresAt = try #require(inApp.installed?.expiresAt)
            #expect(abs(installed.expiresAt.timeIntervalSince(expiresAt)) < 1)
            #expect(offline.retired.map(\.name) == [first.directory.lastPathComponent])
            #expect(offline.retired.map(\.name) == inApp.retired.map(\.name))
            #expect(
                offline.serving == second.directory.lastPathComponent
                    && inApp.serving == first.directory.lastPathComponent)
            #expect(report.snapshot?.source == .overTheAir && report.territory == "CA-ON")
            #expect(text.contains("installed \(installed.name) (version 2, signed by \(fixture.key.keyId)"))
            // And nothing in the support directory changed: the same files, bytes and modification times
            #expect(try Self.state(of: fixture.support) == before)
        }
    }

    /// Version 1 installed and serving after a relaunch, then version 2 installed by that updater.
    static func installTwoVersions(
        _ fixture: PublishedSetFixture
    ) async throws -> (SnapshotUpdater, first: SnapshotUpdater.Installation, second: SnapshotUpdater.Installation) {
        try fixture.publish(version: 1)
        guard case .installed(let first) = try await fixture.launch().checkForUpdate() else {
            throw InstallError(version: 1)
        }
        let updater = try fixture.launch()
        try fixture.publish(fixture.changedCatalog(), version: 2)
        guard case .installed(let second) = try await updater.checkForUpdate() else {
            throw InstallError(version: 2)
        }
        return (updater, first, second)
    }

    struct InstallError: Error { var version: Int }

    /// Every file and directory under `directory`: its path, bytes (files) and modification time.
    static func state(of directory: URL) throws -> [String: String] {
        var state: [String: String] = [:]
        let paths = try FileManager.default.subpathsOfDirectory(atPath: directory.path)
        #expect(paths.count > 3, "the support directory holds generations")
        for path in paths + ["."] {
            let url = directory.appendingPathComponent(path)
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? -1
            let bytes =
                attributes[.type] as? FileAttributeType == .typeRegular
                ? try Data(contentsOf: url).base64EncodedString() : "\(attributes[.type] ?? "?")"
            state[path] = "\(modified) \(bytes)"
        }
        return state
    }
}
