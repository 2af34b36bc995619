@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation

/// Bundled images: a lookup against reading the image file (ratio in the same run), and the
/// bundle's size with and without images for data/ and a 10,000-game sample at the defaults.
func imageBenchmarks(work: URL) throws -> [Result] {
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    var results: [Result] = []

    // The 10,000-game sample (2 editions, 20 categories), its thumbnails recorded (96×72 PNGs of
    // noise, about 21 KB each), bundled at the defaults (6 per category, 256 KiB each, 2 MiB per edition).
    let recording = work.appendingPathComponent("sample-10000")
    try SampleRecording(games: 10_000).write(to: recording)
    let catalog = try Normalizer(configuration: .default, logger: benchLogger)
        .normalize(RecordedProviderSource(directory: recording)).catalog
    let bundling = PipelineConfiguration.ImageBundling(allowedHosts: ["static.example-cdn.com"])
    let sampleImages = ImageBundler(bundling: bundling).bundle(
        catalog, from: try RecordedImages(directory: recording.appendingPathComponent("images")))
    let withImages = work.appendingPathComponent("out-10000-images")
    let manifest = try SnapshotWriter(logger: benchLogger).write(catalog, images: sampleImages, to: withImages)
    let withoutImages = work.appendingPathComponent("out-10000")
    try SnapshotWriter(logger: benchLogger).write(catalog, to: withoutImages)
    print(
        "bundle size, 10,000-game sample: \(bytes(in: withoutImages)) B without images, \(bytes(in: withImages)) B with "
            + "\(manifest.images?.count ?? 0) image URLs in \(manifest.imageFiles.count) files "
            + "(\(sampleImages.dropped) dropped over budget)")

    // data/, as `make snapshot` bundles it, when the benchmark runs from the repository.
    let data = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("data")
    if FileManager.default.fileExists(atPath: data.appendingPathComponent("provider/images/index.json").path) {
        let configuration = try PipelineConfiguration.load(from: data.appendingPathComponent("catalog.json"))
        let dataCatalog = try Normalizer(configuration: configuration, logger: benchLogger)
            .normalize(RecordedProviderSource(directory: data.appendingPathComponent("provider"))).catalog
        let images = ImageBundler(bundling: configuration.bundleImages!).bundle(
            dataCatalog, from: try RecordedImages(directory: data.appendingPathComponent("provider/images")))
        let plain = work.appendingPathComponent("out-data")
        let full = work.appendingPathComponent("out-data-images")
        try SnapshotWriter(logger: benchLogger).write(dataCatalog, to: plain)
        let dataManifest = try SnapshotWriter(logger: benchLogger).write(dataCatalog, images: images, to: full)
        print(
            "bundle size, data/: \(bytes(in: plain)) B without images, \(bytes(in: full)) B with "
                + "\(dataManifest.images?.count ?? 0) image URLs in \(dataManifest.imageFiles.count) files")
    }

    // A lookup of a verified image against reading its file, and the first (verifying) lookup.
    let image = try require(manifest.images?.first)
    let file = withImages.appendingPathComponent(image.path)
    var sink = 0
    let tier = BundledTier(configuration: .init(directory: withImages), logger: benchLogger)
    _ = tier.images.image(for: image.url)
    let (floor, lookup) = try measurePair(batch: 200) {
        sink &+= try Data(contentsOf: file).count
    } operation: {
        sink &+= tier.images.image(for: image.url)?.data.count ?? 0
    }
    results.append(
        Result(
            operation: "bundled image lookup", size: "\(image.bytes) B \(image.mediaType.fileExtension)",
            medianNanoseconds: lookup.median, p99Nanoseconds: lookup.p99, floor: "read the file",
            floorMedianNanoseconds: floor.median))
    let (firstFloor, first) = try measurePair(samples: 100) {
        sink &+= try Data(contentsOf: file).count
    } operation: {
        // A fresh image store over the manifest already read at launch: the file's first lookup only.
        let fresh = BundledImageStore(manifest: manifest, reader: SnapshotReader(directory: withImages))
        sink &+= fresh.image(for: image.url)?.data.count ?? 0
    }
    results.append(
        Result(
            operation: "bundled image first lookup (open, SHA-256, sniff)",
            size: "\(image.bytes) B \(image.mediaType.fileExtension)",
            medianNanoseconds: first.median, p99Nanoseconds: first.p99, floor: "read the file",
            floorMedianNanoseconds: firstFloor.median))
    if sink == 42 { print("") }
    return results
}

/// The bytes of every regular file under `directory`.
private func bytes(in directory: URL) -> Int {
    var total = 0
    let enumerator = FileManager.default.enumerator(
        at: directory, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey])
    while let url = enumerator?.nextObject() as? URL {
        let values = try? url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
        if values?.isRegularFile == true { total += values?.fileSize ?? 0 }
    }
    return total
}

private struct Missing: Error {}

private func require<T>(_ value: T?) throws -> T {
    guard let value else { throw Missing() }
    return value
}
