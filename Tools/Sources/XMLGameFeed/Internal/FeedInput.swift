import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes the parser is fed, from a file descriptor or from memory, counted against
/// the byte limit and screened for a `<!DOCTYPE>` and for start tags with too many attributes
/// before the parser sees them.
///
/// It lives on one thread for one read (not `Sendable`).
final class FeedInput {
    private enum Source {
        case descriptor(Int32)
        case memory(Data)
    }

    /// Why the input stopped the read, checked before libxml2's own (consequential) error.
    enum Stop: Equatable {
        /// More than `maxBytes` came in (the file grew since it was measured).
        case overLimit
        /// A `<!DOCTYPE` in the prolog, on this line.
        case doctype(line: Int)
        /// `read(2)` failed with this errno.
        case readFailed(Int32)
        /// A start tag on this line has more than `maxAttributes` attributes.
        case tooManyAttributes(line: Int)
    }

    private let source: Source
    private let maxBytes: Int
    private var maxAttributes: Int { tags.maxAttributes }
    private var offset = 0
    private var prolog = PrologScanner()
    private var tags: StartTagScanner
    /// The bytes handed to libxml2 so far.
    private(set) var bytesRead = 0
    /// Whether the last byte was handed out.
    private(set) var isExhausted = false
    /// Set when the input refused to go on; the read fails with it.
    private(set) var stop: Stop?

    init(descriptor: Int32, limits: XMLFeedReader.Limits) {
        source = .descriptor(descriptor)
        maxBytes = limits.maxBytes
        tags = StartTagScanner(maxAttributes: limits.maxAttributes)
    }

    init(data: Data, limits: XMLFeedReader.Limits) {
        source = .memory(data)
        maxBytes = limits.maxBytes
        tags = StartTagScanner(maxAttributes: limits.maxAttributes)
    }

    /// Fills up to `capacity` bytes of `buffer`; returns the count, 0 at the end, -1 to stop.
    func fill(_ buffer: UnsafeMutableRawPointer, capacity: Int) -> Int32 {
        guard stop == nil else { return -1 }
        let count: Int
        switch source {
        case .descriptor(let descriptor):
            var result: Int
            repeat {
                result = read(descriptor, buffer, capacity)
            } while result < 0 && errno == EINTR
            guard result >= 0 else {
                stop = .readFailed(errno)
                return -1
            }
            count = result
        case .memory(let data):
            count = data.withUnsafeBytes { bytes in
                let length = min(capacity, bytes.count - offset)
                guard length > 0, let base = bytes.baseAddress else { return 0 }
                buffer.copyMemory(from: base + offset, byteCount: length)
                return length
            }
            offset += count
        }
        bytesRead += count
        if count == 0 { isExhausted = true }
        if bytesRead > maxBytes {
            stop = .overLimit
            return -1
        }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: count)
        if !prolog.isFinished {
            prolog.scan(bytes)
            if let line = prolog.doctypeLine {
                stop = .doctype(line: line)
                return -1
            }
        }
        tags.scan(bytes)
        if let line = tags.overLimitLine {
            stop = .tooManyAttributes(line: line)
            return -1
        }
        return Int32(count)
    }

    /// The error for ``stop``, if the input stopped.
    func stopError(file: String) -> XMLFeedError? {
        switch stop {
        case .overLimit:
            XMLFeedError(
                .tooLarge,
                "the feed is over the limit of \(maxBytes) bytes (it grew while being read?); raise Limits.maxBytes if it really is that large",
                file: file)
        case .doctype(let line):
            XMLFeedError(.doctypeForbidden, XMLCursor.doctypeMessage, file: file, line: line)
        case .tooManyAttributes(let line):
            XMLFeedError(
                .tooLarge,
                "a start tag has more than \(maxAttributes) attributes, over the limit; raise Limits.maxAttributes if the feed really needs them",
                file: file, line: line)
        case .readFailed(let code):
            XMLFeedError(
                .io, "reading the file failed after \(bytesRead) bytes: \(String(cString: strerror(code)))", file: file)
        case nil:
            nil
        }
    }
}
