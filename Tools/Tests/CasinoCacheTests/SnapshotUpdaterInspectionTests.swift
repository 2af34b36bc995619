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
            try fixture.publish(version: 1)
            guard case .installed(let first) = try await fixture.launch().checkForUpdate() else {
                Issue.record("version 1 not installed")
                return
            }
            let updater = try fixture.launch()
            try fixture.publish(fixture.changedCatalog(), version: 2)
            guard case .installed(let second) = try await updater.checkForUpdate() else {
                Issue.record("version 2 not installed")
                return
            }
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
            #expect(report.entries.map(\.source) == [.overTheAir])
        }
    }
}
