@_spi(CatalogTools) public import CasinoCatalog
public import Foundation
import Logging

extension SnapshotWriter {
    /// Starts a snapshot for `directory` that is written as the catalogue streams in: a
    /// ``CatalogSink`` that renders and stages files a batch at a time and keeps only their
    /// manifest entries and the first screen, so memory does not grow with the catalogue.
    ///
    /// ```swift
    /// var stream = try writer.stream(to: out)
    /// do {
    ///     _ = try normalizer.normalize(source, into: &stream)
    ///     let images = imageBundler.bundle(stream.firstScreen!, from: recorded)
    ///     let manifest = try stream.publish(images: images)
    /// } catch {
    ///     stream.discard()
    ///     throw error
    /// }
    /// ```
    ///
    /// A file whose content the snapshot already in `directory` holds keeps its bytes (and its
    /// `generatedAt`), so successive snapshots differ only where the content does.
    ///
    /// - Throws: ``PipelineError`` when `directory` may not be replaced or no staging directory
    ///   can be made beside it.
    public func stream(to directory: URL) throws(PipelineError) -> Stream {
        let publisher = DirectoryPublisher(target: directory, content: .snapshot)
        let previous = PreviousSnapshot(directory: directory, limits: limits)
        return Stream(
            writer: self, target: directory, publisher: publisher, staging: try publisher.makeStagingDirectory(),
            previous: previous)
    }

    /// A snapshot being written; see ``SnapshotWriter/stream(to:)``. Until ``publish(images:)``
    /// succeeds the target directory is untouched; after a failure call ``discard()``.
    public struct Stream: CatalogSink {
        private let writer: SnapshotWriter
        private let target: URL
        private let publisher: DirectoryPublisher
        private let staging: URL
        private let previous: PreviousSnapshot?
        private var header: CatalogHeader?
        private var entries: [Manifest.Entry] = []
        private var pending: [Job] = []
        private var firstPages: [EditionCatalog] = []
        private var finished = false
        /// The provider's withdrawals (`--withdrawals`): games withdrawn everywhere are left out of
        /// every page, games withdrawn in territories restricted there (``WithdrawalLookup``).
        @_spi(CatalogTools) public var withdrawals: WithdrawalLookup?
        /// How many games the withdrawals left out, and restricted further.
        public private(set) var withdrawn = (leftOut: 0, restricted: 0)

        /// How many files are rendered and staged at once.
        private static let batchSize = 256

        fileprivate init(
            writer: SnapshotWriter, target: URL, publisher: DirectoryPublisher, staging: URL,
            previous: PreviousSnapshot?
        ) {
            (self.writer, self.target, self.publisher, self.staging, self.previous) =
                (writer, target, publisher, staging, previous)
        }

        /// The categories and the first page of each, once the catalogue was received: what the
        /// image step plans from (``ImagePlan``).
        @_spi(CatalogTools) public var firstScreen: Catalog? {
            guard finished, let header else { return nil }
            return Catalog(
                generatedAt: header.generatedAt, source: header.source, pageSize: header.pageSize,
                defaultEdition: header.defaultEdition, editions: firstPages)
        }

        public mutating func begin(_ header: CatalogHeader) throws(PipelineError) {
            self.header = header
        }

        public mutating func categories(_ list: CategoryList, of edition: Edition) throws(PipelineError) {
            firstPages.append(EditionCatalog(edition: edition, categories: list, pages: []))
            try add(Job(list, of: edition))
        }

        public mutating func pages(_ pages: [GamesPage], of edition: Edition) throws(PipelineError) {
            for var page in pages {
                if let withdrawals {
                    let applied = withdrawals.applied(to: page)
                    page = applied.page
                    withdrawn.leftOut += applied.leftOut
                    withdrawn.restricted += applied.restricted
                }
                if page.offset == 0 { firstPages[firstPages.count - 1].pages.append(page) }
                try add(Job(page, of: edition))
            }
        }

        public mutating func finish() throws(PipelineError) {
            try flush()
            finished = true
        }

        /// Stages the images, the manifest and the README, validates the staged snapshot with
        /// ``SnapshotValidator`` and swaps it into place; the staging directory is removed on any
        /// failure.
        ///
        /// - Parameter images: The images to bundle (``ImageBundler``), or `nil` for none: staged
        ///   with the rest, so the target never holds a manifest without its images.
        /// - Returns: The manifest written.
        @discardableResult @_spi(CatalogTools)
        public mutating func publish(images: BundledImages? = nil) throws(PipelineError) -> Manifest {
            guard finished, let header else {
                throw PipelineError(
                    .invalidContent, "the catalogue was not received to its end", file: target.relativePath)
            }
            do throws(PipelineError) {
                let (manifest, closing) = try writer.finalManifest(header, entries: entries, images: images)
                let imageFiles = (images?.files ?? [:]).map { (path: $0.key, data: $0.value) }
                try FileOutput.writeAll(imageFiles + closing.map { ($0.path, $0.data) }, under: staging)
                try SnapshotValidator(limits: writer.limits, progress: writer.progress).validate(directory: staging)
                    .requireValid("the staged snapshot", file: target.relativePath)
                try publisher.publish(staging)
                writer.logger.info(
                    "published snapshot",
                    metadata: [
                        "pipeline.out": "\(target.relativePath)", "pipeline.files": "\(manifest.files.count)",
                        "pipeline.bytes": "\(manifest.files.reduce(0) { $0 + $1.compressedBytes })",
                        "pipeline.contentHash": "\(manifest.contentHash)",
                        "pipeline.images": "\(manifest.images?.count ?? 0)",
                    ])
                return manifest
            } catch {
                discard()
                throw error
            }
        }

        /// Removes the staging directory; the target stays as it was.
        public func discard() {
            publisher.discard(staging)
        }

        private mutating func add(_ job: Job) throws(PipelineError) {
            pending.append(job)
            if pending.count >= Self.batchSize { try flush() }
        }

        /// Renders and stages the pending files, keeping only their manifest entries.
        private mutating func flush() throws(PipelineError) {
            guard !pending.isEmpty, let header else { return }
            try writer.checkFileCount(entries.count + pending.count)
            let rendered = try writer.render(pending, generatedAt: header.generatedAt, previous: previous)
            try FileOutput.writeAll(rendered.map { ($0.file.path, $0.file.data) }, under: staging)
            entries += rendered.map(\.entry)
            pending = []
        }
    }
}
