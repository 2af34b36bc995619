@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
@_spi(CatalogTools) import CatalogServer
import Foundation
import Testing

#if canImport(CatalogSigning)
import CatalogSigning
#endif

/// A published set served by the simulator over loopback, the app's bundle it was made from, and
/// an updater's support directory: the over-the-air path end to end, with real files and HTTP.
final class PublishedSetFixture {
    let directory: TemporaryDirectory
    let bundle: BundleFixture
    let key = SigningKey.generate()
    let published: URL
    let support: URL
    let simulator: CatalogSimulator
    let manifestURL: URL

    init() async throws {
        directory = try TemporaryDirectory()
        bundle = try BundleFixture(in: directory)
        published = directory.child("published")
        support = directory.child("support")
        simulator = CatalogSimulator(catalog: try .generated(games: 20, categories: 2), logger: silentLogger)
        simulator.servePublishedSet(at: published)
        let base = try await simulator.start()
        manifestURL = base.appendingPathComponent("ota/manifest.json")
    }

    func stop() async { await simulator.stop() }

    /// Runs `body` with a fresh fixture, stopping the simulator afterwards.
    static func run(_ body: (PublishedSetFixture) async throws -> Void) async throws {
        let fixture = try await PublishedSetFixture()
        try await withCleanup {
            try await body(fixture)
        } cleanup: {
            await fixture.stop()
        }
    }

    /// The bundle's catalogue with one game renamed: one page file differs, the rest are equal.
    func changedCatalog(name: String = "Renamed for the update") -> Catalog {
        var catalog = bundle.catalog
        catalog.editions[0].pages[0].items[0].name = name
        return catalog
    }

    /// Writes `catalog` as a snapshot directory and publishes it into the set; with `withdrawals`,
    /// the snapshot is built with them (`catalog snapshot --withdrawals`) and the list signed with it.
    /// Signed by the pinned ``key``, or by `onlineKey` with the key list `keyList`.
    @discardableResult
    func publish(
        _ catalog: Catalog? = nil, images: BundledImages? = nil, version: Int? = nil,
        expiresIn: TimeInterval = 30 * 86_400, withdrawals: WithdrawalList? = nil,
        now: Date = Date(), onlineKey: SigningKey? = nil, keyList: SignedKeyList? = nil
    ) throws -> SnapshotPublisher.Report {
        let source: URL
        if catalog != nil || withdrawals != nil {
            var content = catalog ?? bundle.catalog
            if let withdrawals {
                let lookup = WithdrawalLookup(withdrawals)
                for edition in content.editions.indices {
                    content.editions[edition].pages = content.editions[edition].pages.map {
                        lookup.applied(to: $0).page
                    }
                }
            }
            source = directory.child("snapshot-\(UUID().uuidString)")
            try SnapshotWriter(logger: silentLogger).write(content, images: images, to: source)
        } else {
            source = bundle.directory
        }
        var publisher = SnapshotPublisher(key: onlineKey ?? key, logger: silentLogger)
        publisher.keyList = keyList
        return try publisher.publish(
            from: source, to: published, version: version, expiresIn: expiresIn, withdrawals: withdrawals, now: now)
    }

    /// The first game's thumbnail bundled: an 8×8 PNG, and its bytes.
    func firstThumbnail() -> (images: BundledImages, png: Data) {
        let game = bundle.catalog.editions[0].pages[0].items[0]
        let png = SyntheticImage.png(width: 8, height: 8) { x, y in (UInt8(x * 30), UInt8(y * 30), 90) }
        let sha256 = FileNaming.hexSHA256(png)
        let path = Manifest.Image.path(sha256: sha256, mediaType: .png)
        var images = BundledImages()
        images.entries = [
            Manifest.Image(url: game.thumbnail, path: path, bytes: png.count, sha256: sha256, mediaType: .png)
        ]
        images.files = [path: png]
        return (images, png)
    }

    /// The set's current published manifest (signature not checked).
    func currentPayload() throws -> PublishedManifest {
        let data = try Data(contentsOf: published.appendingPathComponent(SignedManifest.fileName))
        let signed = try JSONDecoder().decode(SignedManifest.self, from: data)
        return try PublishedManifest.decode(try #require(signed.payloadBytes), maxFileCount: .max)
    }

    /// Signs `payload` with the set's key (or writes `signature` as given) as the set's manifest.
    func serve(_ payload: PublishedManifest, signature: Data? = nil) throws {
        try serveSigned(try CatalogCoding.encoder().encode(payload), signature: signature)
    }

    /// Writes a signed manifest over exactly `payloadBytes`, signed by `signer` (the pinned key by
    /// default) with `keyList`.
    func serveSigned(
        _ payloadBytes: Data, signature: Data? = nil, signedBy signer: SigningKey? = nil, keyList: SignedKeyList? = nil
    ) throws {
        let signer = signer ?? key
        let signed = SignedManifest(
            keyId: signer.keyId, payload: payloadBytes, signature: try signature ?? signer.signature(for: payloadBytes),
            keyList: keyList)
        try signed.encoded().write(to: published.appendingPathComponent(SignedManifest.fileName))
    }

    /// The updater's configuration for this set. Its deadlines are hang detectors (a minute a request,
    /// two for the update), not the product's 25 s, which a loaded machine can pass by on loopback;
    /// tests of deadlines set their own.
    func configuration() throws -> SnapshotUpdater.Configuration {
        var configuration = SnapshotUpdater.Configuration(
            manifestURL: manifestURL, verifier: try Ed25519SignatureVerifier(publicKey: key.publicKey),
            directory: support,
            bundleDirectory: bundle.directory)
        configuration.requestTimeout = 60
        configuration.updateTimeout = 120
        return configuration
    }

    /// An updater as the app makes one at launch.
    func launch(
        clock: any CacheClock = SystemClock(), _ change: (inout SnapshotUpdater.Configuration) -> Void = { _ in }
    ) throws -> SnapshotUpdater {
        var configuration = try configuration()
        change(&configuration)
        return SnapshotUpdater(configuration: configuration, clock: clock, logger: silentLogger)
    }

    /// The name of the first game of the first page, as the bundled tier reads it from `directory`.
    func servedFirstGameName(from directory: URL?) throws -> String? {
        let tier = BundledTier(configuration: .init(directory: try #require(directory)), logger: silentLogger)
        let page = bundle.catalog.editions[0].pages[0]
        let key = CacheKey(
            .gamesPage(bundle.catalog.editions[0].edition, categoryId: page.categoryId, offset: page.offset))
        guard case .gamesPage(let served)? = tier.entry(for: key)?.content else { return nil }
        return served.items.first?.name
    }

    /// Entries of the support directory's `generations` folder.
    func generationNames() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: support.appendingPathComponent("generations").path))
            ?? []).sorted()
    }
}
