import CZlib
public import Foundation

/// Deterministic gzip over the system zlib.
///
/// ``compress(_:level:)`` always produces the same bytes for the same input and level: a gzip
/// header with modification time 0, no name and the OS byte 255 ("unknown") on every platform.
/// ``decompress(_:limit:expectedSize:)`` is for hostile input: it stops at `limit` output
/// bytes and rejects truncation, trailing bytes, a second member, and CRC or length mismatches.
///
/// ```swift
/// let packed = try Gzip.compress(json)
/// let json = try Gzip.decompress(packed, limit: 16 << 20)
/// ```
@_spi(CatalogTools) public enum Gzip {
    /// The compression level every snapshot is written with: `9` (smallest bundle; the
    /// pipeline runs at build time, decompression speed does not depend on it).
    public static let level: Int32 = 9

    /// The largest input either direction accepts: zlib counts in 32 bits.
    public static let maxInputBytes = Int(UInt32.max) - 1

    /// The most output ``decompress(_:limit:expectedSize:)`` produces, whatever the limit: 4 GiB.
    public static let maxOutputBytes = Int(UInt32.max)

    /// The level the runtime's disk cache writes with: `1`. Its files are written on the device in
    /// the background and read back rarely; level 1 compresses several times faster than 9 for
    /// files a little larger, and inflating costs the same.
    public static let fastLevel: Int32 = 1

    /// Compresses `data` into one gzip member.
    ///
    /// - Parameter level: The zlib level, 1–9: ``level`` (the default, for snapshots) or
    ///   ``fastLevel``. The same input and level always give the same bytes.
    /// - Throws: `GzipError` when zlib fails (out of memory) or the input is over 4 GiB.
    public static func compress(_ data: Data, level: Int32 = Gzip.level) throws(GzipError) -> Data {
        guard data.count <= maxInputBytes else {
            throw GzipError(.tooLarge, "input of \(data.count) bytes is over the 4 GiB zlib limit")
        }
        var stream = z_stream()
        var status = deflateInit2_(
            &stream, level, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
            Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw GzipError(.zlib, "deflateInit2 failed (\(status))") }
        defer { deflateEnd(&stream) }

        // An explicit header: mtime 0 and OS 255 on every platform, so the bytes are the same
        // on Linux (zlib's default OS byte 3) and macOS (19).
        var header = gz_header()
        header.os = 255
        status = deflateSetHeader(&stream, &header)
        guard status == Z_OK else { throw GzipError(.zlib, "deflateSetHeader failed (\(status))") }

        let bound = Int(deflateBound(&stream, uLong(data.count))) + 32
        var output = [UInt8](repeating: 0, count: bound)
        let produced: Int = data.withUnsafeBytes { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                status = deflate(&stream, Z_FINISH)
                return out.count - Int(stream.avail_out)
            }
        }
        guard status == Z_STREAM_END else {
            throw GzipError(.zlib, "deflate did not finish (\(status))")
        }
        return Data(output[0..<produced])
    }

    /// Decompresses exactly one gzip member, refusing to produce more than `limit` bytes.
    ///
    /// - Parameters:
    ///   - data: The gzip bytes.
    ///   - limit: The most output accepted (at most ``maxOutputBytes``); a larger result (a gzip
    ///     bomb) throws `GzipError/Code/tooLarge` after at most `limit + 1` bytes were produced.
    ///   - expectedSize: The size the caller expects (from a manifest): used to size the buffer
    ///     and checked against the result.
    /// - Returns: The decompressed bytes.
    /// - Throws: `GzipError` naming what is wrong: not gzip, truncated, corrupt, CRC or
    ///   length mismatch, trailing bytes, too large, not the expected size, or a negative `limit`
    ///   or `expectedSize` (`GzipError/Code/invalidArgument`).
    public static func decompress(_ data: Data, limit: Int, expectedSize: Int? = nil) throws(GzipError) -> Data {
        guard !data.isEmpty else { throw GzipError(.truncated, "input is empty (0 bytes)") }
        guard data.count >= 2, data[data.startIndex] == 0x1F, data[data.startIndex + 1] == 0x8B else {
            throw GzipError(.notGzip, "input does not start with the gzip magic bytes 1f 8b")
        }
        guard data.count <= maxInputBytes else {
            throw GzipError(.tooLarge, "input of \(data.count) bytes is over the 4 GiB zlib limit")
        }
        // Limits and sizes often come from a hostile manifest: refuse negatives, and keep
        // `limit + 1` (one byte past the limit tells a bomb apart) from overflowing.
        guard limit >= 0 else { throw GzipError(.invalidArgument, "the limit must not be negative, got \(limit)") }
        if let expectedSize, expectedSize < 0 {
            throw GzipError(.invalidArgument, "the expected size must not be negative, got \(expectedSize)")
        }
        if let expectedSize, expectedSize > limit {
            throw GzipError(.tooLarge, "expected size \(expectedSize) is over the limit of \(limit) bytes")
        }
        let limit = min(limit, maxOutputBytes)
        var stream = z_stream()
        var status = inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw GzipError(.zlib, "inflateInit2 failed (\(status))") }
        defer { inflateEnd(&stream) }

        // Sized for the expected output, but never past what the input can inflate to (deflate's
        // ratio is at most 1032:1), so a lying expected size cannot allocate gigabytes up front.
        let possible = data.count * 1032 + 64
        var capacity = min(max(expectedSize.map { min($0, limit, possible) + 1 } ?? data.count * 4, 64), limit + 1)
        var output = [UInt8](repeating: 0, count: capacity)
        var produced = 0
        let remainingInput: Int = data.withUnsafeBytes { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(input.count)
            while true {
                if produced == capacity {
                    guard capacity <= limit else { break }
                    capacity = min(capacity * 2, limit + 1)
                    output += [UInt8](repeating: 0, count: capacity - output.count)
                }
                status = output.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress! + produced
                    stream.avail_out = uInt(capacity - produced)
                    let result = inflate(&stream, Z_NO_FLUSH)
                    produced = capacity - Int(stream.avail_out)
                    return result
                }
                if status == Z_STREAM_END || produced > limit { break }
                if status == Z_BUF_ERROR && stream.avail_in == 0 { break }
                if status != Z_OK && status != Z_BUF_ERROR { break }
            }
            return Int(stream.avail_in)
        }

        if produced > limit {
            throw GzipError(.tooLarge, "decompresses to more than the limit of \(limit) bytes")
        }
        switch status {
        case Z_STREAM_END:
            break
        case Z_OK, Z_BUF_ERROR:
            throw GzipError(.truncated, "input ends before the gzip stream does (\(data.count) bytes read)")
        case Z_DATA_ERROR:
            let message = stream.msg.map { String(cString: $0) } ?? "invalid deflate data"
            switch message {
            case "incorrect data check": throw GzipError(.checksumMismatch, "CRC-32 mismatch: the data is corrupt")
            case "incorrect length check": throw GzipError(.checksumMismatch, "length mismatch: the data is corrupt")
            default: throw GzipError(.corrupt, "corrupt gzip data: \(message)")
            }
        case Z_MEM_ERROR:
            throw GzipError(.zlib, "zlib ran out of memory")
        default:
            throw GzipError(.corrupt, "corrupt gzip data (zlib status \(status))")
        }
        if remainingInput > 0 {
            throw GzipError(.trailingData, "\(remainingInput) bytes follow the end of the gzip stream")
        }
        if let expectedSize, produced != expectedSize {
            throw GzipError(.sizeMismatch, "decompressed to \(produced) bytes, expected \(expectedSize)")
        }
        return Data(output[0..<produced])
    }
}
