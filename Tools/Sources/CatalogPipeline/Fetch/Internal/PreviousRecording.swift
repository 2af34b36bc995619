@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Logging

/// The recording a fetch replaces, used for conditional requests: its `etags.json` gives the
/// `If-None-Match` to send, and on `304 Not Modified` its file gives the body.
///
/// ETags are used only when the previous recording was fetched from the same base URL with the
/// same page limit, and only for files that are still there.
struct PreviousRecording: Sendable {
    /// The name of the ETag file in a recording: relative path → ETag.
    static let etagsFileName = "etags.json"
    /// The largest `etags.json` read: 16 MiB.
    static let maxETagsFileBytes = 16 << 20

    let layout: RecordingLayout
    let etags: [String: String]
    private let maxBodyBytes: Int

    /// Opens the recording in `directory`, if there is a usable one; never fails — without one
    /// every request is unconditional.
    init(directory: URL, baseURL: URL, pageLimit: Int, maxBodyBytes: Int, logger: Logger) {
        layout = RecordingLayout(root: directory)
        self.maxBodyBytes = maxBodyBytes
        etags = Self.readETags(
            layout: layout, baseURL: baseURL, pageLimit: pageLimit, logger: logger)
    }

    /// The ETag to send for `job`, when the previous file is still there to reuse.
    func etag(for job: FetchJob) -> String? {
        guard let etag = etags[job.relativePath], FileManager.default.fileExists(atPath: job.file(in: layout).path)
        else { return nil }
        return etag
    }

    /// The previous body for `job`, or `nil` when it is gone, unreadable or over the cap.
    func body(for job: FetchJob) -> Data? {
        try? FileInput.read(job.file(in: layout), limit: maxBodyBytes, what: "previous response")
    }

    private static func readETags(
        layout: RecordingLayout, baseURL: URL, pageLimit: Int, logger: Logger
    ) -> [String: String] {
        let file = layout.root.appendingPathComponent(etagsFileName)
        guard FileManager.default.fileExists(atPath: file.path),
            let metadataData = try? FileInput.read(layout.metadataFile, limit: 1 << 20, what: "recording metadata"),
            let metadata = try? CatalogCoding.decoder().decode(RecordingLayout.Metadata.self, from: metadataData)
        else { return [:] }
        guard metadata.baseURL == baseURL.absoluteString, metadata.pageLimit == pageLimit else {
            logger.debug(
                "previous recording is from another API or page size; fetching unconditionally",
                metadata: ["fetch.previousBaseURL": "\(metadata.baseURL ?? "none")"])
            return [:]
        }
        do {
            let data = try FileInput.read(file, limit: maxETagsFileBytes, what: "ETag file")
            return try CatalogCoding.decoder().decode([String: String].self, from: data)
        } catch {
            logger.debug("unreadable ETag file; fetching unconditionally", metadata: ["fetch.error": "\(error)"])
            return [:]
        }
    }
}
