@_spi(CatalogTools) public import CasinoCatalog
public import Foundation
@_spi(CatalogTools) import Gzip
public import Logging

/// Writes a `Catalog` as a snapshot directory: one deterministic gzip file per category list
/// and page, a `manifest.json` and a README, published atomically.
///
/// The files are built in a staging directory beside the target, validated with
/// ``SnapshotValidator``, and only then swapped into place. Any failure leaves the previous
/// directory byte-for-byte intact. The same catalogue always produces the same bytes.
///
/// ```swift
/// let manifest = try SnapshotWriter(logger: logger).write(catalog, to: URL(fileURLWithPath: "out"))
/// ```
public struct SnapshotWriter: Sendable {
    /// Who wrote the files, recorded in the manifest. `catalog` and ``CatalogPipeline/version`` by default.
    @_spi(CatalogTools) public var generator = Manifest.Generator(
        name: CatalogPipeline.name, version: CatalogPipeline.version)
    /// The snapshot contract's caps: nothing is written that an app reading with them would
    /// refuse. ``SnapshotLimits/default`` by default.
    public var limits: SnapshotLimits = .default
    /// Where progress is logged (at `.info` and below).
    public var logger: Logger
    /// Where the count of files rendered, then checked, is shown: nowhere by default.
    public var progress: ProgressLine = .disabled

    public init(limits: SnapshotLimits = .default, logger: Logger, progress: ProgressLine = .disabled) {
        self.limits = limits
        self.logger = logger
        self.progress = progress
    }

    /// One rendered file: its relative path and bytes.
    public struct RenderedFile: Sendable, Hashable {
        public var path: String
        public var data: Data
    }

    /// Renders the catalogue into files and a manifest, without touching the disk.
    ///
    /// - Returns: The snapshot files (sorted by path), then the index, `manifest.json` and `README.md`.
    /// - Throws: ``PipelineError`` when encoding or compression fails.
    ///
    /// - Parameters:
    ///   - catalog: The normalized catalogue.
    ///   - images: The images to bundle (``ImageBundler``), listed in the manifest's `images` and
    ///     written as `images/<sha256>.<ext>`; `nil` for none (the manifest then has no `images`).
    @_spi(CatalogTools) public func render(
        _ catalog: Catalog, images: BundledImages? = nil
    ) throws(PipelineError) -> (files: [RenderedFile], manifest: Manifest) {
        try checkFileCount(of: catalog)
        var jobs: [Job] = []
        for edition in catalog.editions {
            jobs.append(Job(edition.categories, of: edition.edition))
            jobs += edition.pages.map { Job($0, of: edition.edition) }
        }
        let rendered = try render(jobs, generatedAt: catalog.generatedAt, previous: nil)
        var files = rendered.map(\.file).sorted { $0.path < $1.path }
        if let images {
            files += images.files.sorted { $0.key < $1.key }.map { RenderedFile(path: $0.key, data: $0.value) }
        }
        let (manifest, manifestFiles) = try finalManifest(
            CatalogHeader(of: catalog), entries: rendered.map(\.entry), images: images)
        return (files + manifestFiles, manifest)
    }

    /// One snapshot file to render: a categories list or a page, with its manifest counts.
    struct Job: Sendable {
        enum Payload: Sendable {
            case categories(CategoryList)
            case page(GamesPage)
        }
        var key: SnapshotKey
        var payload: Payload
        var count: Int
        var total: Int

        init(_ list: CategoryList, of edition: Edition) {
            (key, payload, count, total) = (.categories(edition), .categories(list), list.items.count, list.items.count)
        }

        init(_ page: GamesPage, of edition: Edition) {
            key = .gamesPage(edition, categoryId: page.categoryId, offset: page.offset)
            (payload, count, total) = (.page(page), page.count, page.total)
        }
    }

    /// Renders `jobs` on every core; results come back in job order. A file whose content
    /// `previous` already holds keeps its bytes (image files need no such reuse: named by their
    /// SHA-256, equal content is equal bytes).
    func render(
        _ jobs: [Job], generatedAt: Date, previous: PreviousSnapshot?
    ) throws(PipelineError) -> [(file: RenderedFile, entry: Manifest.Entry)] {
        progress.expect(jobs.count)
        return try ParallelMap.map(count: jobs.count) { index throws(PipelineError) in
            let job = jobs[index]
            defer { progress.advance() }
            return switch job.payload {
            case .categories(let list):
                try Self.render(
                    list, key: job.key, count: job.count, total: job.total, generatedAt: generatedAt, previous: previous
                )
            case .page(let page):
                try Self.render(
                    page, key: job.key, count: job.count, total: job.total, generatedAt: generatedAt, previous: previous
                )
            }
        }
    }

    /// Refuses a whole catalogue before anything is encoded when its files (a categories list and
    /// the pages of each edition) are more than an app would take.
    func checkFileCount(of catalog: Catalog) throws(PipelineError) {
        try checkFileCount(catalog.editions.reduce(0) { $0 + 1 + $1.pages.count })
    }

    /// Refuses a snapshot of `count` files when an app would refuse it.
    func checkFileCount(_ count: Int) throws(PipelineError) {
        if count > limits.maxFileCount {
            throw overLimit(
                "the snapshot would hold \(count) files, over snapshotLimits.maxFileCount \(limits.maxFileCount)")
        }
    }

    /// The manifest over every rendered entry and image, checked against the contract, and the
    /// files that close a snapshot: the index (``SnapshotIndex``), `manifest.json` and `README.md`.
    func finalManifest(
        _ header: CatalogHeader, entries: [Manifest.Entry], images: BundledImages?
    ) throws(PipelineError) -> (Manifest, [RenderedFile]) {
        let entries = entries.sorted { $0.path < $1.path }
        let manifest = Manifest(
            generator: generator, generatedAt: header.generatedAt, source: header.source,
            contentHash: Manifest.contentHash(of: entries, images: images?.entries), pageSize: header.pageSize,
            defaultEdition: header.defaultEdition, editions: header.editions.sorted(), files: entries,
            images: images?.entries)
        let manifestData: Data
        do {
            manifestData = try CatalogCoding.prettyEncoder().encode(manifest) + Data("\n".utf8)
        } catch {
            throw PipelineError(.invalidContent, "cannot encode the manifest: \(error)", file: Manifest.fileName)
        }
        try checkContract(manifestBytes: manifestData.count, manifest: manifest)
        let index: [RenderedFile]
        do {
            index = try SnapshotIndex.files(for: manifest).map { RenderedFile(path: $0.path, data: $0.data) }
        } catch {
            throw PipelineError(.invalidContent, "cannot encode the index: \(error)", file: SnapshotIndex.fileName)
        }
        if let part = index.first(where: { $0.data.count > limits.maxManifestBytes }) {
            throw overLimit(
                "\(part.path) would be \(part.data.count) bytes, over snapshotLimits.maxManifestBytes \(limits.maxManifestBytes)"
            )
        }
        return (
            manifest,
            index + [
                RenderedFile(path: Manifest.fileName, data: manifestData),
                RenderedFile(path: SnapshotLayout.readmeName, data: Data(SnapshotLayout.readme.utf8)),
            ]
        )
    }

    /// Refuses what an app reading with ``limits`` would refuse, before anything is staged.
    private func checkContract(manifestBytes: Int, manifest: Manifest) throws(PipelineError) {
        if manifestBytes > limits.maxManifestBytes {
            throw overLimit(
                "manifest.json would be \(manifestBytes) bytes, over snapshotLimits.maxManifestBytes \(limits.maxManifestBytes)"
            )
        }
        for entry in manifest.files {
            if entry.compressedBytes > limits.maxFileBytes {
                throw overLimit(
                    "\(entry.path) would be \(entry.compressedBytes) bytes, over snapshotLimits.maxFileBytes \(limits.maxFileBytes)"
                )
            }
            if entry.uncompressedBytes > limits.maxInflatedBytes {
                throw overLimit(
                    "\(entry.path) would inflate to \(entry.uncompressedBytes) bytes, over snapshotLimits.maxInflatedBytes \(limits.maxInflatedBytes)"
                )
            }
        }
        let imageBytes = manifest.imageFiles.reduce(0) { $0 + $1.bytes }
        if imageBytes > limits.maxImageTotalBytes {
            throw overLimit(
                "the bundled images would take \(imageBytes) bytes, over snapshotLimits.maxImageTotalBytes \(limits.maxImageTotalBytes)"
            )
        }
        if let count = manifest.images?.count, count > limits.maxImageCount {
            throw overLimit(
                "the manifest would list \(count) images, over snapshotLimits.maxImageCount \(limits.maxImageCount)")
        }
        let violations = manifest.violations(limits: limits)
        if let first = violations.first {
            throw PipelineError(
                .invalidContent, "the manifest would break the snapshot contract: \(first)", file: Manifest.fileName)
        }
    }

    private func overLimit(_ what: String) -> PipelineError {
        PipelineError(
            .invalidConfiguration,
            "\(what); an app would refuse it. Bundle less (fewer editions, a lower maxPagesPerCategory) or raise "
                + "snapshotLimits in the configuration and CatalogCache.Configuration.bundleLimits in the app alike")
    }

    /// One snapshot file and its manifest entry: the payload's hash, the envelope's JSON, its gzip
    /// (or the previous snapshot's file, when it holds this content).
    private static func render<Payload: Codable & Sendable & Hashable>(
        _ payload: Payload, key: SnapshotKey, count: Int, total: Int, generatedAt: Date, previous: PreviousSnapshot?
    ) throws(PipelineError) -> (file: RenderedFile, entry: Manifest.Entry) {
        let path = SnapshotLayout.path(for: key)
        do {
            let payloadJSON = try CanonicalJSON.encode(payload)
            let contentHash = "sha256:" + FileNaming.hexSHA256(payloadJSON)
            if let kept = previous?.file(for: key, contentHash: contentHash, generatedNoLaterThan: generatedAt),
                kept.entry.count == count, kept.entry.total == total
            {
                return (RenderedFile(path: path, data: kept.data), kept.entry)
            }
            let json = try envelopeJSON(
                key: key, contentHash: contentHash, generatedAt: generatedAt, payloadJSON: payloadJSON)
            let packed = try Gzip.compress(json)
            let entry = Manifest.Entry(
                path: path, key: key, count: count, total: total, compressedBytes: packed.count,
                uncompressedBytes: json.count, sha256: FileNaming.hexSHA256(packed), contentHash: contentHash)
            return (RenderedFile(path: path, data: packed), entry)
        } catch let error as GzipError {
            throw PipelineError(.io, "cannot compress: \(error)", file: path, cause: error)
        } catch {
            throw PipelineError(.invalidContent, "cannot encode: \(error)", file: path)
        }
    }

    /// The envelope's JSON around a payload already encoded for its hash, so each payload is
    /// encoded once, not twice (encoding was a quarter of the pipeline's floor).
    ///
    /// The envelope is encoded canonically with a placeholder payload, `0`, and the payload's
    /// canonical bytes take its place. Canonical JSON is canonical member by member, so the result
    /// is byte-for-byte ``CanonicalJSON/encode(_:)`` of the whole `Snapshot` (a test holds it to
    /// that). `"payload":0` occurs once: inside a JSON string a quote is escaped, so the sequence
    /// cannot come from a value.
    static func envelopeJSON(
        key: SnapshotKey, contentHash: String, generatedAt: Date, payloadJSON: Data
    ) throws -> Data {
        var json = try CanonicalJSON.encode(
            Snapshot(key: key, contentHash: contentHash, generatedAt: generatedAt, payload: PayloadPlaceholder()))
        let marker = Data(#""payload":0"#.utf8)
        guard let range = json.range(of: marker) else {
            throw PipelineError(.invalidContent, "the envelope of \(key) has no payload placeholder", file: nil)
        }
        json.replaceSubrange(range.upperBound - 1..<range.upperBound, with: payloadJSON)
        return json
    }

    /// Encodes as `0`: the payload's place in an envelope before its bytes are spliced in.
    private struct PayloadPlaceholder: Codable, Sendable, Hashable {
        init() {}
        init(from decoder: any Decoder) throws { _ = try decoder.singleValueContainer().decode(Int.self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(0)
        }
    }

    /// Renders, stages, validates and publishes the catalogue into `directory`: the whole-catalogue
    /// form of ``stream(to:)``.
    ///
    /// - Returns: The manifest written.
    /// - Throws: ``PipelineError``; `directory` is then exactly as it was before the call.
    ///
    /// - Parameters:
    ///   - catalog: The normalized catalogue.
    ///   - images: The images to bundle (``ImageBundler``), or `nil` for none.
    ///   - directory: The snapshot directory to replace.
    @discardableResult
    @_spi(CatalogTools) public func write(
        _ catalog: Catalog, images: BundledImages? = nil, to directory: URL
    ) throws(PipelineError) -> Manifest {
        try checkFileCount(of: catalog)
        var stream = try stream(to: directory)
        do throws(PipelineError) {
            try catalog.deliver(to: &stream)
            return try stream.publish(images: images)
        } catch {
            stream.discard()
            throw error
        }
    }
}
