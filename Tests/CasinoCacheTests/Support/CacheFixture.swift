@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
import Foundation

/// What every cache suite starts from: a fresh temporary directory, a committed bundle copied into
/// it, an upstream serving the same catalogue, and a manual clock a day after the bundle was made.
struct CacheFixture {
    let directory: TemporaryDirectory
    let bundle: BundleFixture
    let upstream: CountingUpstream
    let clock: ManualClock

    init(_ bundleName: BundleFixture.Name = .lobby) throws {
        directory = try TemporaryDirectory()
        bundle = try BundleFixture(bundleName, in: directory)
        upstream = CountingUpstream(catalog: bundle.catalog)
        clock = ManualClock(now: bundle.generatedAt.addingTimeInterval(86_400))
    }

    /// A cache as an app makes it at launch: the same directories every time. The bundle's games carry
    /// territory restrictions: these suites are not about them, so the cache shows every game before a
    /// territory is known (``UnknownTerritoryPolicy/showAll``), as an app licensed everywhere would.
    func makeCache(
        _ configuration: CatalogCache.Configuration = .default, bundled: Bool = true, disk: Bool = true
    ) -> CatalogCache {
        var configuration = configuration
        configuration.unknownTerritoryPolicy = .showAll
        return CatalogCache(
            configuration: configuration, upstream: upstream, cacheDirectory: disk ? directory.child("cache") : nil,
            bundleDirectory: bundled ? bundle.directory : nil, clock: clock, logger: silentLogger)
    }
}

/// A suite that starts from a ``CacheFixture``: its tests name the fixture's parts directly.
protocol CacheFixtureSuite {
    var fixture: CacheFixture { get }
}

extension CacheFixtureSuite {
    var directory: TemporaryDirectory { fixture.directory }
    var bundle: BundleFixture { fixture.bundle }
    var upstream: CountingUpstream { fixture.upstream }
    var clock: ManualClock { fixture.clock }

    /// ``CacheFixture/makeCache(_:bundled:disk:)``.
    func makeCache(
        _ configuration: CatalogCache.Configuration = .default, bundled: Bool = true, disk: Bool = true
    ) -> CatalogCache {
        fixture.makeCache(configuration, bundled: bundled, disk: disk)
    }
}
