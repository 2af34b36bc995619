@_spi(CatalogTools) public import CasinoCatalog
public import Foundation

/// The normalized catalogue as a JSON Lines file: what `catalog normalize` writes and
/// `catalog snapshot --normalized` reads, so `make` can skip steps whose input did not change.
///
/// One JSON object per line, in the ``CatalogSink`` order, so the file is written and read a line
/// at a time and neither side holds the whole catalogue:
///
/// ```
/// {"catalog":{"defaultEdition":"en-iPhone","editions":["en-iPhone"],"generatedAt":…,"pageSize":10,"source":…}}
/// {"categories":{"items":[…]},"edition":"en-iPhone"}
/// {"edition":"en-iPhone","page":{"categoryId":"VIDEOSLOTS","items":[…],"limit":10,"offset":0,"total":42}}
/// ```
public enum NormalizedCatalogFile {
    /// The longest line read: a page of the largest page size with long records fits many times.
    public static let maxLineBytes = 64 << 20

    /// One line of the file: exactly one of the three shapes above.
    private struct Line: Codable {
        var catalog: CatalogHeader?
        var edition: Edition?
        var categories: CategoryList?
        var page: GamesPage?
    }

    /// Writes what it receives to a temporary file beside `url`, and moves it into place on
    /// ``finish()``. Until then, and after any failure, the previous file at `url` is untouched.
    public struct Writer: CatalogSink {
        private let url: URL
        private let temporary: URL
        private let handle: FileHandle
        private let encoder = CatalogCoding.encoder()
        /// Pages written so far.
        public private(set) var pageCount = 0
        /// Editions begun so far.
        public private(set) var editionCount = 0

        /// Starts a normalized catalogue file for `url`.
        ///
        /// - Throws: ``PipelineError`` when the temporary file cannot be created.
        public init(to url: URL) throws(PipelineError) {
            self.url = url
            temporary = FileOutput.temporarySibling(of: url)
            do {
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
                    throw CocoaError(.fileWriteUnknown)
                }
                handle = try FileHandle(forWritingTo: temporary)
            } catch {
                throw PipelineError(.io, "cannot write: \(error.localizedDescription)", file: url.relativePath)
            }
        }

        public mutating func begin(_ header: CatalogHeader) throws(PipelineError) {
            try write(Line(catalog: header))
        }

        public mutating func categories(_ list: CategoryList, of edition: Edition) throws(PipelineError) {
            editionCount += 1
            try write(Line(edition: edition, categories: list))
        }

        public mutating func pages(_ pages: [GamesPage], of edition: Edition) throws(PipelineError) {
            for page in pages { try write(Line(edition: edition, page: page)) }
            pageCount += pages.count
        }

        /// Closes the file and moves it into place.
        public mutating func finish() throws(PipelineError) {
            do {
                try handle.close()
            } catch {
                discard()
                throw PipelineError(.io, "cannot write: \(error.localizedDescription)", file: url.relativePath)
            }
            try FileOutput.move(temporary, intoPlaceOf: url)
        }

        /// Removes the temporary file after a failure; the previous file stays.
        public func discard() {
            try? handle.close()
            try? FileManager.default.removeItem(at: temporary)
        }

        private func write(_ line: Line) throws(PipelineError) {
            do {
                try handle.write(contentsOf: try encoder.encode(line) + Data("\n".utf8))
            } catch {
                discard()
                throw PipelineError(.io, "cannot write: \(error)", file: url.relativePath)
            }
        }
    }

    /// Writes `catalog` to `url` atomically.
    ///
    /// - Throws: ``PipelineError`` naming the file; the previous file is then untouched.
    @_spi(CatalogTools) public static func write(_ catalog: Catalog, to url: URL) throws(PipelineError) {
        var writer = try Writer(to: url)
        do throws(PipelineError) {
            try catalog.deliver(to: &writer)
        } catch {
            writer.discard()
            throw error
        }
    }

    /// Reads a normalized catalogue whole: for tests and small catalogues.
    ///
    /// - Throws: ``PipelineError`` when the file is missing or not a normalized catalogue.
    @_spi(CatalogTools) public static func read(from url: URL) throws(PipelineError) -> Catalog {
        var collector = CatalogCollector()
        try read(from: url, into: &collector)
        return collector.catalog!
    }

    /// Reads a normalized catalogue into `sink` a batch of lines at a time (decoded on every
    /// core), checking the order `sink` relies on.
    ///
    /// - Throws: ``PipelineError`` naming the file and line: `.missingInput` when there is no
    ///   file, `.inputTooLarge` for a line over ``maxLineBytes``, `.malformedInput` for a line that
    ///   does not decode, comes out of order, or a file that ends early. `sink.finish()` is
    ///   called only after the whole file was read.
    public static func read(from url: URL, into sink: inout some CatalogSink) throws(PipelineError) {
        let path = url.relativePath
        try FileInput.regularFileAttributes(url, what: "normalized catalogue (run `catalog normalize` first)")
        let lines: LineReader
        do {
            lines = try LineReader(url: url, maxLineBytes: maxLineBytes)
        } catch {
            throw PipelineError(.io, "cannot read: \(error.localizedDescription)", file: path)
        }
        var order = Order()
        var batch: [(number: Int, bytes: Data)] = []
        func deliver(_ batch: [(number: Int, bytes: Data)]) throws(PipelineError) {
            let decoded = try ParallelMap.map(count: batch.count) { index throws(PipelineError) in
                try JSONInput.decode(
                    Line.self, from: batch[index].bytes, file: path, record: "line \(batch[index].number)")
            }
            // Consecutive pages go to the sink together; the order check keeps them in one edition.
            var pages: [GamesPage] = []
            func handOverPages() throws(PipelineError) {
                guard let edition = order.current, !pages.isEmpty else { return }
                try sink.pages(pages, of: edition)
                pages = []
            }
            for (line, (number, _)) in zip(decoded, batch) {
                let record = "line \(number)"
                if let page = line.page, let edition = line.edition, line.catalog == nil, line.categories == nil {
                    try order.page(of: edition, file: path, record: record)
                    pages.append(page)
                    continue
                }
                try handOverPages()
                if let header = line.catalog, line.edition == nil, line.categories == nil, line.page == nil {
                    try order.begin(header, file: path, record: record)
                    try sink.begin(header)
                } else if let list = line.categories, let edition = line.edition, line.catalog == nil, line.page == nil
                {
                    try order.categories(of: edition, file: path, record: record)
                    try sink.categories(list, of: edition)
                } else {
                    throw PipelineError(
                        .malformedInput,
                        "not a line of a normalized catalogue: expected exactly \"catalog\", \"edition\" + \"categories\" or \"edition\" + \"page\"",
                        file: path, record: record)
                }
            }
            try handOverPages()
        }
        while true {
            let next: (number: Int, bytes: Data)?
            do {
                next = try lines.next()
            } catch let error as LineReader.TooLong {
                throw PipelineError(
                    .inputTooLarge, "is over \(maxLineBytes) bytes; this is not a file `catalog normalize` writes",
                    file: path, record: "line \(error.number)")
            } catch {
                throw PipelineError(.io, "cannot read: \(error.localizedDescription)", file: path)
            }
            if let next { batch.append(next) }
            if batch.count == 512 || (next == nil && !batch.isEmpty) {
                try deliver(batch)
                batch = []
            }
            if next == nil { break }
        }
        try order.end(file: path)
        try sink.finish()
    }

    /// Checks that the lines come in the ``CatalogSink`` order.
    private struct Order {
        private var editions: [Edition]?
        private var next = 0  // index of the edition whose categories come next
        /// The edition whose pages may come now: the last whose categories came.
        private(set) var current: Edition?

        mutating func begin(_ header: CatalogHeader, file: String, record: String) throws(PipelineError) {
            guard editions == nil else { throw misplaced("a second \"catalog\" line", file, record) }
            guard !header.editions.isEmpty, header.editions.contains(header.defaultEdition) else {
                throw PipelineError(
                    .malformedInput, "the header lists no editions, or not its defaultEdition \(header.defaultEdition)",
                    file: file, record: record)
            }
            editions = header.editions
        }

        mutating func categories(of edition: Edition, file: String, record: String) throws(PipelineError) {
            guard let editions else { throw misplaced("categories before the \"catalog\" line", file, record) }
            guard next < editions.count, editions[next] == edition else {
                let expected = next < editions.count ? "those of \(editions[next])" : "no more editions"
                throw misplaced("categories of \(edition) where the header's order expects \(expected)", file, record)
            }
            next += 1
            current = edition
        }

        func page(of edition: Edition, file: String, record: String) throws(PipelineError) {
            guard current == edition else {
                throw misplaced("a page of \(edition) outside that edition's part of the file", file, record)
            }
        }

        func end(file: String) throws(PipelineError) {
            guard let editions else {
                throw PipelineError(
                    .malformedInput, "the file is empty or has no \"catalog\" line; run `catalog normalize` again",
                    file: file)
            }
            guard next == editions.count else {
                throw PipelineError(
                    .malformedInput,
                    "the file ends before the categories of \(editions[next]): it is truncated; run `catalog normalize` again",
                    file: file)
            }
        }

        private func misplaced(_ what: String, _ file: String, _ record: String) -> PipelineError {
            PipelineError(
                .malformedInput, "\(what); this is not the order `catalog normalize` writes", file: file,
                record: record)
        }
    }
}
