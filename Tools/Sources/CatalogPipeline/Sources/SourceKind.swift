import Foundation

/// The kinds of catalogue source, detected from the `SOURCE` argument or named explicitly.
public enum SourceKind: String, Sendable, CaseIterable {
    /// A recorded provider directory (``RecordingLayout``).
    case recorded
    /// An XML game feed file.
    case xml
    /// The provider's live API at an http(s) base URL.
    case http

    /// Detects the kind: an `http://` or `https://` URL, an existing file or a path ending in
    /// `.xml` (an XML feed), else a recorded provider directory.
    public static func detect(_ source: String) -> SourceKind {
        let lowered = source.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") { return .http }
        if lowered.hasSuffix(".xml") { return .xml }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory)
        return exists && !isDirectory.boolValue ? .xml : .recorded
    }

    /// Opens `source` as a source of this kind.
    ///
    /// - Throws: ``PipelineError`` when it cannot be opened; `.unsupportedSource` for `http`,
    ///   which is read through the recording an ``HTTPFetcher`` fetch writes.
    public func open(_ source: String, configuration: PipelineConfiguration) throws(PipelineError) -> any CatalogSource
    {
        switch self {
        case .recorded:
            return try RecordedProviderSource(directory: URL(fileURLWithPath: source), limits: configuration.limits)
        case .xml:
            return try XMLFeedSource(
                file: URL(fileURLWithPath: source), editions: configuration.editions, limits: configuration.limits)
        case .http:
            throw PipelineError(
                .unsupportedSource,
                "a live API is not read directly: fetch it into a recording first (HTTPFetcher, or `catalog fetch --base-url URL --output DIR`) and open that directory",
                file: source)
        }
    }
}
