@_spi(CatalogTools) import CasinoCatalog
public import Foundation

/// A directory of recorded image responses: what ``ImageFetcher`` writes, and what a recording
/// ships so that `make snapshot` bundles images offline (`data/provider/images/`).
///
/// ```
/// images/index.json      URL → {"file": <sha256 of the bytes>, "etag": …, "contentType": …}
/// images/<sha256>        the response body, verbatim (one file per distinct body)
/// ```
///
/// Bodies are named by their SHA-256, never by anything from a URL. The recorded `contentType` is
/// what the server claimed, kept for people: the bundler sniffs the bytes and trusts nothing else.
/// Every read is capped, and a body must still have the digest it is named by.
public struct RecordedImages: Sendable {
    /// The index file's name: `index.json`.
    public static let indexFileName = "index.json"
    /// The largest `index.json` read: 16 MiB.
    public static let maxIndexBytes = 16 << 20

    /// One recorded response.
    public struct Entry: Codable, Sendable, Hashable {
        /// The hex SHA-256 of the body, which is also its file name.
        public var file: String
        /// The response's `ETag`, sent as `If-None-Match` by the next fetch.
        public var etag: String?
        /// The `Content-Type` the server sent (not trusted).
        public var contentType: String?

        public init(file: String, etag: String? = nil, contentType: String? = nil) {
            self.file = file
            self.etag = etag
            self.contentType = contentType
        }
    }

    /// The directory.
    public let directory: URL
    /// URL → recorded response.
    public let index: [String: Entry]

    /// Opens the recorded images in `directory`.
    ///
    /// - Throws: ``PipelineError``: `.missingInput` without an `index.json`, `.inputTooLarge` over
    ///   ``maxIndexBytes``, `.malformedInput` when it is not an index or names a file that is not a
    ///   SHA-256.
    public init(directory: URL) throws(PipelineError) {
        self.directory = directory
        let file = directory.appendingPathComponent(Self.indexFileName)
        let data = try FileInput.read(file, limit: Self.maxIndexBytes, what: "image index")
        do {
            index = try CatalogCoding.decoder().decode([String: Entry].self, from: data)
        } catch {
            throw PipelineError(
                .malformedInput, "is not an image index: \(DecodingFailure.describe(error))", file: file.relativePath)
        }
        if let (url, _) = index.first(where: { !Self.isDigest($0.value.file) }) {
            throw PipelineError(
                .malformedInput, "names a file that is not a hex SHA-256", file: file.relativePath,
                record: String(url.prefix(200)))
        }
    }

    /// The recorded body for `url`, at most `maxBytes` long and still matching its digest.
    ///
    /// - Returns: `nil` when `url` was not recorded; else the bytes, or a reason to refuse them.
    public func body(for url: String, maxBytes: Int) -> Result<Data, PipelineError>? {
        guard let entry = index[url] else { return nil }
        let file = directory.appendingPathComponent(entry.file)
        do throws(PipelineError) {
            let data = try FileInput.read(file, limit: maxBytes, what: "recorded image")
            guard FileNaming.hexSHA256(data) == entry.file else {
                return .failure(
                    PipelineError(.malformedInput, "does not have the SHA-256 it is named by", file: file.relativePath))
            }
            return .success(data)
        } catch {
            return .failure(error)
        }
    }

    /// Writes `bodies` (URL → response) as a recorded images directory under `root` (a staging
    /// directory), one file per distinct body, and the index, sorted for people and diffs.
    static func write(_ bodies: [String: (data: Data, entry: Entry)], under root: URL) throws(PipelineError) {
        var files: [String: Data] = [:]
        for (_, body) in bodies { files[body.entry.file] = body.data }
        try FileOutput.writeAll(files.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, under: root)
        let index = bodies.mapValues(\.entry)
        do {
            try FileOutput.write(
                try CatalogCoding.prettyEncoder().encode(index) + Data("\n".utf8),
                to: root.appendingPathComponent(indexFileName))
        } catch let error as PipelineError {
            throw error
        } catch {
            throw PipelineError(.io, "cannot encode the image index: \(error)", file: root.relativePath)
        }
    }

    static func isDigest(_ text: String) -> Bool {
        text.utf8.count == 64
            && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
