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
            let file = URL(fileURLWithPath: source)
            if let start = Self.firstByte(of: file), start != UInt8(ascii: "<") {
                throw PipelineError(.malformedInput, Self.notAFeed(startingWith: start), file: source)
            }
            return try XMLFeedSource(file: file, editions: configuration.editions, limits: configuration.limits)
        case .http:
            throw PipelineError(
                .unsupportedSource,
                "a live API is not read directly: fetch it into a recording first (HTTPFetcher, or `catalog fetch --base-url URL --output DIR`) and open that directory",
                file: source)
        }
    }

    /// What a file that cannot be a feed (a JSON file, most often) is told: what was assumed, and
    /// what a source can be.
    static func notAFeed(startingWith byte: UInt8) -> String {
        let shown =
            (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
        let json = byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") ? " (JSON?)" : ""
        return "was read as an XML feed, as a file source always is, but it starts with \(shown), not '<'\(json). "
            + "A source is an XML feed file; a recording, which is a directory of recorded responses "
            + "(`catalog fetch --base-url URL --output DIR` writes one); or a live API, given by its http(s) base URL. "
            + "--kind names the kind instead of detecting it."
    }

    /// The first byte of `file` after a UTF-8 byte order mark and blanks; `nil` when it cannot be
    /// read, is blank, or starts as UTF-16 or UTF-32 does (the feed reader decides those).
    static func firstByte(of file: URL) -> UInt8? {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return nil }
        defer { try? handle.close() }
        guard var bytes = try? handle.read(upToCount: 4096).map(Array.init) else { return nil }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        guard let first, first != 0x00, first != 0xFE, first != 0xFF else { return nil }
        return first
    }
}
