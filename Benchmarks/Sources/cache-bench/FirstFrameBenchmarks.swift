@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
@_spi(CatalogTools) import Gzip

/// The first frame as the catalogue grows, each against its floor in the same run: the whole lobby
/// of a cold cache (categories and the first page of C categories), and a cold cache's first
/// categories as the bundle's manifest grows with editions the app does not open.
func firstFrameBenchmarks(work: URL) throws -> [Result] {
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    let catalog = try sampleCatalog(games: 2000, categories: 40, in: work)
    let edition = catalog.editions[0].edition
    let bundle = work.appendingPathComponent("out")
    let manifest = try SnapshotWriter(logger: benchLogger).write(catalog, to: bundle)
    let upstream = ImmediateUpstream(catalog: catalog)
    let decoder = CatalogCoding.decoder()
    var results: [Result] = []
    var sink = 0

    // The whole lobby, cold: what a lobby screen shows on first launch.
    let categoriesEntry = manifest.files.first { $0.kind == .categories }!
    let categoryIds = catalog.editions[0].categories.items.map(\.id)
    for shown in [10, 20, 40] {
        let pageEntries = categoryIds.prefix(shown).map { id in
            manifest.files.first { $0.key == .gamesPage(edition, categoryId: id, offset: 0) }!
        }
        let (floor, lobby) = try measurePair(samples: 100, warmup: 5) {
            let manifestData = try Data(contentsOf: bundle.appendingPathComponent(Manifest.fileName))
            sink &+= try decoder.decode(Manifest.self, from: manifestData).files.count
            let categories = try Gzip.decompress(
                try Data(contentsOf: bundle.appendingPathComponent(categoriesEntry.path)), limit: 16 << 20)
            sink &+= try decoder.decode(Snapshot<CategoryList>.self, from: categories).payload.items.count
            for entry in pageEntries {
                let page = try Gzip.decompress(
                    try Data(contentsOf: bundle.appendingPathComponent(entry.path)), limit: 16 << 20)
                sink &+= try decoder.decode(Snapshot<GamesPage>.self, from: page).payload.count
            }
        } operation: {
            let cache = CatalogCache(
                upstream: upstream, cacheDirectory: nil, bundleDirectory: bundle, logger: benchLogger)
            for category in cache.cachedCategories(edition: edition).value?.items.prefix(shown) ?? [] {
                sink &+= cache.cachedGamesPage(edition: edition, categoryId: category.id).value?.count ?? 0
            }
        }
        results.append(
            Result(
                operation: "whole lobby, cold: categories + first page of C categories",
                size: "C = \(shown), manifest of \(manifest.files.count) files", medianNanoseconds: lobby.median,
                p99Nanoseconds: lobby.p99, floor: "read + gunzip + decode the same files",
                floorMedianNanoseconds: floor.median))
    }

    // A cold cache's first categories, the bundle's manifest grown with other editions' entries (their
    // files need not exist: nothing of theirs is read), against its edition alone (samples
    // interleaved) and against decoding the manifest alone.
    // Limits raised as an app shipping such a bundle raises them (the default caps 10,000 files).
    var configuration = CatalogCache.Configuration.default
    configuration.bundleLimits.maxFileCount = 20_000
    configuration.bundleLimits.maxManifestBytes = 16 << 20
    for editions in [10, 50] {
        let grown = work.appendingPathComponent("manifest-\(editions)")
        let files = try writeManifest(manifest, repeatedFor: editions, from: bundle, to: grown)
        let manifestURL = grown.appendingPathComponent(Manifest.fileName)
        let decodeOnly = try measure(samples: 30, warmup: 3) {
            sink &+= try decoder.decode(Manifest.self, from: try Data(contentsOf: manifestURL)).files.count
        }
        let (alone, cold) = measurePair(samples: 60, warmup: 5) {
            sink &+= firstCategories(edition: edition, bundle: bundle, configuration, upstream: upstream)
        } operation: {
            sink &+= firstCategories(edition: edition, bundle: grown, configuration, upstream: upstream)
        }
        let size = "\(files) files (\(editions) editions), categories of one"
        results.append(
            Result(
                operation: "CatalogCache init + first categories", size: size, medianNanoseconds: cold.median,
                p99Nanoseconds: cold.p99, floor: "decoding the manifest alone",
                floorMedianNanoseconds: decodeOnly.median))
        results.append(
            Result(
                operation: "CatalogCache init + first categories", size: size, medianNanoseconds: cold.median,
                p99Nanoseconds: cold.p99, floor: "the same, its edition alone (\(manifest.files.count) files)",
                floorMedianNanoseconds: alone.median))
    }
    if sink == 42 { print("") }
    return results
}

/// A new cache on `bundle` and its first categories of `edition`: how many there are.
private func firstCategories(
    edition: Edition, bundle: URL, _ configuration: CatalogCache.Configuration, upstream: ImmediateUpstream
) -> Int {
    let cache = CatalogCache(
        configuration: configuration, upstream: upstream, cacheDirectory: nil, bundleDirectory: bundle,
        logger: benchLogger)
    return cache.cachedCategories(edition: edition).value?.items.count ?? 0
}

/// Writes into `directory` the files of `bundle` and its manifest with every entry repeated for
/// `editions - 1` more editions (`aa-iPhone`, `ab-iPhone`, …), and the index of that manifest, as
/// the pipeline writes it; returns how many entries it lists.
private func writeManifest(
    _ manifest: Manifest, repeatedFor editions: Int, from bundle: URL, to directory: URL
) throws -> Int {
    try FileManager.default.copyItem(at: bundle, to: directory)
    var grown = manifest
    let letters = Array("abcdefghijklmnopqrstuvwxyz")
    let others = try (0..<(editions - 1)).map { index in
        try Edition(language: String([letters[index / 26], letters[index % 26]]), platform: .iPhone)
    }
    for other in others {
        for entry in manifest.files {
            var copy = entry
            switch entry.key {
            case .categories: copy.key = .categories(other)
            case .gamesPage(_, let categoryId, let offset):
                copy.key = .gamesPage(other, categoryId: categoryId, offset: offset)
            }
            copy.path = SnapshotLayout.path(for: copy.key)
            grown.files.append(copy)
        }
    }
    grown.editions = (manifest.editions + others).sorted()
    grown.files.sort { $0.path < $1.path }
    try CatalogCoding.encoder().encode(grown).write(to: directory.appendingPathComponent(Manifest.fileName))
    try TestBundle.writeIndex(of: grown, into: directory)
    return grown.files.count
}
