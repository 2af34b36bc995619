@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Testing

/// An app extension's view of the catalogue (``SharedCatalogReader``): the over-the-air generation
/// the app installed into a shared directory, else the extension's bundle; never a write.
@Suite(.timeLimit(.minutes(3)))
struct SharedCatalogReaderTests {
    @Test func theExtensionReadsTheGenerationTheAppInstalledAndWritesNothing() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given no generation yet: the extension's bundle serves
            let before = fixture.reader()
            #expect(before.source == .bundle)
            #expect(fixture.firstGameName(before) == fixture.bundle.catalog.editions[0].pages[0].items[0].name)
            // When the app installs version 1, with a renamed game
            try fixture.publish(fixture.changedCatalog(name: "For the widget"))
            guard case .installed(let installation) = try await fixture.launch(Self.patient).checkForUpdate() else {
                Issue.record("version 1 was not installed")
                return
            }
            let files = Self.tree(fixture.support)
            // Then a new reader answers from it, every file of it, through the bundled tier's answers
            let reader = fixture.reader()
            #expect(reader.source == .shared(version: 1))
            #expect(reader.directory == installation.directory)
            #expect(fixture.firstGameName(reader) == "For the widget")
            if case .bundled = reader.categories(edition: fixture.bundle.catalog.editions[0].edition) {
            } else {
                Issue.record("the categories were not answered as bundled")
            }
            #expect(try Self.unanswered(reader, installation.directory).isEmpty)
            // And the reader made before keeps its bundle; nothing in the shared directory changed
            #expect(before.source == .bundle)
            #expect(Self.tree(fixture.support) == files)
        }
    }

    @Test func aReplacedGenerationStaysForTheRetentionAndAReaderOnItReadsItWhole() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given the app's updater on a manual clock, version 1 installed and a widget reading it
            let clock = ManualClock(now: Date())
            let updater = try fixture.launch(clock: clock, Self.patient)
            try fixture.publish(fixture.changedCatalog(name: "Version 1"))
            _ = try await updater.checkForUpdate()
            let first = try #require(fixture.generationNames().first)
            let reader = fixture.reader()
            #expect(reader.source == .shared(version: 1))
            // When versions 2 and 3 replace it, 59 minutes apart, and the app launches 2 minutes later
            try fixture.publish(fixture.changedCatalog(name: "Version 2"))
            _ = try await updater.checkForUpdate()
            clock.advance(by: .seconds(59 * 60))
            try fixture.publish(fixture.changedCatalog(name: "Version 3"))
            _ = try await updater.checkForUpdate()
            // Then within the hour the reader still reads version 1 whole
            #expect(fixture.generationNames().count == 3)
            #expect(try Self.unanswered(reader, fixture.generation(first)).isEmpty)
            clock.advance(by: .seconds(2 * 60))
            let relaunched = try fixture.launch(clock: clock, Self.patient)
            // And an hour after it was replaced version 1 is gone, version 2 (replaced a minute ago) kept
            #expect(relaunched.activeVersion == 3)
            #expect(!fixture.generationNames().contains(first))
            #expect(fixture.generationNames().count == 2)
            #expect(!fixture.generationNames().contains { $0.hasPrefix(".") })
        }
    }

    @Test func aBurstOfInstallsKeepsAtMostSixteenReplacedGenerations() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given 20 versions installed in a row, within the hour
            let updater = try fixture.launch(Self.patient)
            for version in 1...20 {
                try fixture.publish(fixture.changedCatalog(name: "Version \(version)"))
                _ = try await updater.checkForUpdate()
            }
            // Then the current one and the 16 last replaced are on disk, the oldest gone
            #expect(fixture.generationNames().count == 17)
            #expect(!fixture.generationNames().contains { $0.hasPrefix("v1-") || $0.hasPrefix("v3-") })
            #expect(fixture.generationNames().contains { $0.hasPrefix("v4-") })
        }
    }

    /// A generation the reader must pass over for its bundle, and what is done to it.
    static let damages: [String] = [
        "a page removed", "a page cut short", "a page replaced by a link", "an image removed",
        "an edition's table replaced by a directory", "the generation replaced by a file", "the generation removed",
        "the pointer garbled",
    ]

    @Test(arguments: damages)
    func aGenerationThatIsNotWholeIsPassedOverForTheBundle(_ damage: String) async throws {
        try await PublishedSetFixture.run { fixture in
            // Given version 1 (with a renamed game and images) installed by the app
            try fixture.publish(fixture.changedCatalog(name: "Not whole"), images: fixture.firstThumbnail().images)
            guard case .installed(let installation) = try await fixture.launch(Self.patient).checkForUpdate() else {
                Issue.record("version 1 was not installed")
                return
            }
            // When it is damaged
            let generation = installation.directory
            let manifest = try SnapshotReader(directory: generation).manifest()
            let page = generation.appendingPathComponent(try #require(manifest.files.last).path)
            let manager = FileManager.default
            switch damage {
            case "a page removed": try manager.removeItem(at: page)
            case "a page cut short":
                // A new file: the generation hard-links the files it shares with the bundle
                try Data(try Data(contentsOf: page).dropLast()).write(to: page, options: .atomic)
            case "a page replaced by a link":
                let copy = fixture.directory.child("elsewhere.json.gz")
                try manager.moveItem(at: page, to: copy)
                try manager.createSymbolicLink(at: page, withDestinationURL: copy)
            case "an image removed":
                try manager.removeItem(
                    at: generation.appendingPathComponent(try #require(manifest.imageFiles.first).path))
            case "an edition's table replaced by a directory":
                let file = generation.appendingPathComponent(
                    SnapshotIndex.path(of: fixture.bundle.catalog.editions[0].edition))
                try manager.removeItem(at: file)
                try manager.createDirectory(at: file, withIntermediateDirectories: false)
            case "the generation replaced by a file":
                try manager.removeItem(at: generation)
                try Data("not a generation".utf8).write(to: generation)
            case "the generation removed": try manager.removeItem(at: generation)
            default: try Data("{\"generation\":".utf8).write(to: fixture.support.appendingPathComponent("current.json"))
            }
            // Then a reader answers from its bundle, every file of it, and does not crash
            let reader = fixture.reader()
            #expect(reader.source == .bundle)
            #expect(fixture.firstGameName(reader) == fixture.bundle.catalog.editions[0].pages[0].items[0].name)
            #expect(try Self.unanswered(reader, fixture.bundle.directory).isEmpty)
        }
    }

    @Test func withoutABundleAReaderOfNothingMissesEverything() async throws {
        try await PublishedSetFixture.run { fixture in
            let reader = SharedCatalogReader(
                configuration: .init(sharedDirectory: fixture.support, bundleDirectory: nil), logger: silentLogger)
            #expect(reader.source == .none)
            #expect(reader.editions.isEmpty)
            #expect(reader.categories(edition: fixture.bundle.catalog.editions[0].edition) == .miss)
        }
    }

    @Test func theTerritoryAndWithdrawalsTheAppSavedApplyReadOnly() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given version 1 installed, and the app's cache (in the shared container too) holding a
            // territory and a pushed withdrawal of the first game
            try fixture.publish(fixture.changedCatalog())
            _ = try await fixture.launch(Self.patient).checkForUpdate()
            let page = fixture.bundle.catalog.editions[0].pages[0]
            let withdrawn = page.items[0].id
            let appCache = fixture.directory.child("app-cache")
            let cache = CatalogCache(
                upstream: ScriptedUpstream(), cacheDirectory: appCache,
                bundleDirectory: nil, logger: silentLogger)
            cache.setTerritory(Territory("GB"))
            try cache.applyWithdrawals(WithdrawalList(sequence: 7, games: [Withdrawal(id: withdrawn)]))
            await cache.flush()
            let files = Self.tree(appCache)
            // When the widget reads with the app's cache directory, and without it
            let informed = fixture.reader { $0.territoryDirectory = appCache }
            let plain = fixture.reader { $0.cache.unknownTerritoryPolicy = .hideRestrictedAnywhere }
            // Then the informed reader shows what the app shows in GB: neither the withdrawn game nor
            // those restricted there; the plain one withholds every game restricted anywhere
            let edition = fixture.bundle.catalog.editions[0].edition
            let ids = { (reader: SharedCatalogReader) in
                reader.gamesPage(edition: edition, categoryId: page.categoryId, offset: page.offset).value?.items.map(
                    \.id)
                    ?? []
            }
            let britain = try #require(Territory("GB"))
            #expect(informed.territory == britain)
            #expect(
                ids(informed)
                    == page.items.filter {
                        $0.id != withdrawn && !britain.isRestricted(byAnyOf: $0.restrictedTerritories)
                    }
                    .map(\.id))
            #expect(plain.territory == nil)
            #expect(ids(plain) == page.items.filter { $0.restrictedTerritories.isEmpty }.map(\.id))
            #expect(Self.tree(appCache) == files)
        }
    }

    // MARK: - Helpers

    /// The app's updater with room for a busy machine: an update's deadline is a hang detector here.
    static func patient(_ configuration: inout SnapshotUpdater.Configuration) {
        configuration.updateTimeout = 300
        configuration.requestTimeout = 60
    }

    /// The files of the snapshot in `directory` that `reader` does not answer with their content:
    /// none when it reads that snapshot whole (and nothing is filtered).
    static func unanswered(_ reader: SharedCatalogReader, _ directory: URL) throws -> [String] {
        try SnapshotReader(directory: directory).manifest().files.filter { entry in
            let hash: String? =
                switch entry.key {
                case .categories(let edition):
                    try reader.categories(edition: edition).value.map { try CatalogCoding.contentHash(of: $0) }
                case .gamesPage(let edition, let categoryId, let offset):
                    try reader.gamesPage(edition: edition, categoryId: categoryId, offset: offset).value.map {
                        try CatalogCoding.contentHash(of: $0)
                    }
                }
            return hash != entry.contentHash
        }.map(\.path)
    }

    /// Every file under `directory` with its size and modification time: what a write would change.
    static func tree(_ directory: URL) -> [String: String] {
        var files: [String: String] = [:]
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: keys)
        while let url = enumerator?.nextObject() as? URL {
            let values = try? url.resourceValues(forKeys: Set(keys))
            files[url.path] = "\(values?.fileSize ?? -1) \(values?.contentModificationDate?.timeIntervalSince1970 ?? 0)"
        }
        return files
    }
}

extension PublishedSetFixture {
    /// A widget's reader of the support directory, with the bundle as its own, showing every game
    /// (this catalogue restricts most somewhere) unless `change` says otherwise.
    func reader(_ change: (inout SharedCatalogReader.Configuration) -> Void = { _ in }) -> SharedCatalogReader {
        var configuration = SharedCatalogReader.Configuration(
            sharedDirectory: support, bundleDirectory: bundle.directory)
        configuration.cache.unknownTerritoryPolicy = .showAll
        change(&configuration)
        return SharedCatalogReader(configuration: configuration, logger: silentLogger)
    }

    /// The name of the first game of the first page, as `reader` answers it.
    func firstGameName(_ reader: SharedCatalogReader) -> String? {
        let edition = bundle.catalog.editions[0]
        let page = edition.pages[0]
        return reader.gamesPage(edition: edition.edition, categoryId: page.categoryId, offset: page.offset).value?
            .items.first?.name
    }

    /// The directory of the installed generation `name`.
    func generation(_ name: String) -> URL {
        support.appendingPathComponent("generations").appendingPathComponent(name)
    }
}
