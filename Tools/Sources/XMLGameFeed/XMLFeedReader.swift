public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads XML game feeds (docs/PROVIDER_API.md, "The XML game feed") as hostile input.
///
/// The document is streamed through libxml2's SAX2 push parser with the network off and
/// entity substitution off. A `<!DOCTYPE>` or an entity reference fails the read before
/// anything is expanded or loaded; so do a document over ``Limits/maxBytes``, more than
/// ``Limits/maxGames`` games, an element's text over ``Limits/maxTextBytes``, nesting
/// deeper than ``Limits/maxDepth`` and a start tag with more than ``Limits/maxAttributes``
/// attributes (refused before libxml2 parses it: its cost grows with their square). libxml2's own diagnostics end up in the error, never on
/// stderr.
///
/// ```swift
/// do {
///     let feed = try XMLFeedReader.read(contentsOf: URL(fileURLWithPath: "data/raw/feed.xml"))
///     print(feed.provider, feed.games.count)
/// } catch {
///     print(error)  // data/raw/feed.xml:12: not well-formed XML: …
/// }
/// ```
///
/// Reading is synchronous and keeps no state between calls; call it from any thread.
public enum XMLFeedReader {
    /// Reads the feed in the file at `url`, streaming it from disk.
    ///
    /// - Parameters:
    ///   - url: A file URL.
    ///   - limits: The caps to enforce; ``Limits/default`` unless given.
    /// - Returns: The feed's header, categories and games, in document order.
    /// - Throws: ``XMLFeedError``: `.missingInput` for a missing file, `.malformed` for an empty one, `.tooLarge`
    ///   for a file over the byte limit (checked before opening and while reading), `.io`
    ///   when it cannot be read, and every error ``read(data:name:limits:)`` throws.
    public static func read(contentsOf url: URL, limits: Limits = .default) throws(XMLFeedError) -> XMLFeed {
        let path = url.path
        guard url.isFileURL else {
            throw XMLFeedError(.io, "not a file URL (\(url.absoluteString)); download the feed first", file: path)
        }
        var status = stat()
        guard stat(path, &status) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR {
                throw XMLFeedError(.missingInput, "no such file; check the path or download the feed again", file: path)
            }
            throw XMLFeedError(.io, "cannot stat the file: \(String(cString: strerror(code)))", file: path)
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw XMLFeedError(.malformed, "not a regular file (a directory?); pass the feed's XML file", file: path)
        }
        try checkSize(Int(status.st_size), limits: limits, file: path)

        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT {
                throw XMLFeedError(.missingInput, "the file disappeared before it could be opened", file: path)
            }
            throw XMLFeedError(.io, "cannot open the file: \(String(cString: strerror(code)))", file: path)
        }
        defer { close(descriptor) }
        return try FeedParser.parse(
            FeedInput(descriptor: descriptor, limits: limits), file: path, limits: limits)
    }

    /// Reads the feed in `data`.
    ///
    /// - Parameters:
    ///   - data: The document's bytes.
    ///   - name: What to call the document in errors (a file name or URL).
    ///   - limits: The caps to enforce; ``Limits/default`` unless given.
    /// - Returns: The feed's header, categories and games, in document order.
    /// - Throws: ``XMLFeedError``: `.malformed` for 0 bytes (as for an empty JSON file), `.tooLarge` over a limit,
    ///   `.tooManyGames`, `.malformed` for XML that is not well-formed or not a `<feed>`,
    ///   `.doctypeForbidden`, `.entityForbidden`, `.invalidValue` for a bad `generated` date,
    ///   category id or position.
    public static func read(data: Data, name: String, limits: Limits = .default) throws(XMLFeedError) -> XMLFeed {
        try checkSize(data.count, limits: limits, file: name)
        return try FeedParser.parse(FeedInput(data: data, limits: limits), file: name, limits: limits)
    }

    private static func checkSize(_ size: Int, limits: Limits, file: String) throws(XMLFeedError) {
        guard size > 0 else {
            throw XMLFeedError(
                .malformed, "the feed is empty (0 bytes); the download probably failed, fetch it again", file: file)
        }
        guard size <= limits.maxBytes else {
            throw XMLFeedError(
                .tooLarge,
                "the feed is \(size) bytes, over the limit of \(limits.maxBytes); raise Limits.maxBytes if it really is that large",
                file: file)
        }
    }
}
