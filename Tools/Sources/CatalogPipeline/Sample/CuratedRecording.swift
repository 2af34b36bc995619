public import Foundation

/// Writes the repository's embedded default data (`data/`): a hand-designed provider recording
/// of 120 invented games with every provider quirk in known places, a small real thumbnail for
/// each game of a category's first screen (`provider/images/`), the same catalogue as an XML
/// feed, the pipeline configuration and a README that says where each quirk is.
///
/// The output is fixed: the same bytes on every run and every platform, identical to the
/// committed `data/` (a test checks every file). Randomness comes from one generator seeded with
/// 20261120 that reproduces CPython's `random.Random`, because the data was first written by a
/// Python script; the JSON is written as Python's `json.dumps(indent=2, ensure_ascii=False)`
/// writes it. To change the data, change this generator and regenerate:
///
/// ```
/// catalog sample --curated --output data
/// ```
///
/// ```swift
/// try CuratedRecording().write(to: URL(fileURLWithPath: "data"))
/// ```
///
/// Unlike ``SampleRecording``, which writes a provider directory of any size, this writes a data
/// directory holding `provider/`, `feed/acme-feed.xml`, `catalog.json` and `README.md`.
public struct CuratedRecording: Sendable {
    public init() {}

    /// The files of the data directory: paths relative to it (`provider/en-iPhone/categories.json`)
    /// and their bytes, in a fixed order.
    public func files() -> [(path: String, data: Data)] {
        let pool = CuratedPool()
        let provider = CuratedProviderFiles(pool: pool).render()
        let feed = CuratedFeed(pool: pool)
        let readme = CuratedReadme(pool: pool, pages: provider.pages, feed: feed.selection())
        let images = CuratedImages(pool: pool, pages: provider.pages).render()
        return provider.files + images + [
            ("feed/acme-feed.xml", feed.render()),
            ("catalog.json", Self.configuration),
            (CuratedReadmeText.fileName, readme.render()),
        ]
    }

    /// Writes the data into `directory`, replacing it atomically.
    ///
    /// The directory is replaced only when it is missing, empty, or a data directory this
    /// generator wrote (see ``OutputDirectory/Content/curatedData``).
    ///
    /// - Returns: The number of files written.
    /// - Throws: ``PipelineError`` with ``PipelineError/Code/outputNotReplaceable`` for someone
    ///   else's directory, or ``PipelineError/Code/io`` for a failed write.
    @discardableResult
    public func write(to directory: URL) throws(PipelineError) -> Int {
        let publisher = DirectoryPublisher(target: directory, content: .curatedData)
        let staging = try publisher.makeStagingDirectory()
        let files = files()
        do {
            try FileOutput.writeAll(files, under: staging)
            try publisher.publish(staging)
        } catch {
            publisher.discard(staging)
            throw error
        }
        return files.count
    }

    /// `catalog.json`: the pipeline configuration for the embedded data (its editions and page size).
    static let configuration = Data(
        """
        {
          "defaultEdition": "\(CuratedCatalogue.editions[0])",
          "editions": [\(CuratedCatalogue.editions.map { "\"\($0)\"" }.joined(separator: ", "))],
          "bundleImages": {"allowedHosts": ["\(CuratedCatalogue.cdn)"], "gamesPerCategory": \(CuratedImages.gamesPerCategory)},
          "maxInvalidShare": 0.05,
          "maxPagesPerCategory": 5,
          "pageSize": \(CuratedCatalogue.pageLimit)
        }

        """.utf8)
}
