public import Foundation

/// Tells which bundled image format some bytes are, from the bytes alone, without decoding them.
///
/// Only the four formats of ``ImageMediaType`` are accepted, and only when their framing is whole:
/// a PNG needs its signature, an `IHDR` chunk first and an `IEND` chunk at the very end; a JPEG
/// starts with `FF D8 FF` and ends with `FF D9`; a GIF has its header and ends with the `;`
/// trailer; a WebP's `RIFF` size is the file's and its first chunk is `VP8 `, `VP8L` or `VP8X`. So
/// a truncated download, an HTML error page or an SVG served as `image/jpeg` is refused, with a
/// reason naming what it is. Every read is bounds-checked: any input, however hostile, gets an
/// answer and nothing else happens.
///
/// ```swift
/// switch ImageSniffer.sniff(data) {
/// case .success(let type): print(type.rawValue)          // image/png
/// case .failure(let refusal): print(refusal)             // "an HTML document, not an image"
/// }
/// ```
@_spi(CatalogTools) public enum ImageSniffer {
    /// Why bytes are not a bundled image.
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// What the bytes are: `empty`, `html`, `svg`, `truncated`, `unknown`.
        public var code: String
        /// A sentence saying so.
        public var description: String

        static func of(_ code: String, _ description: String) -> Refusal {
            Refusal(code: code, description: description)
        }
    }

    /// The format of `data`, or why it is none of the bundled formats.
    public static func sniff(_ data: Data) -> Result<ImageMediaType, Refusal> {
        data.withUnsafeBytes { sniff(bytes: $0) }
    }

    /// ``sniff(_:)`` over raw bytes.
    public static func sniff(bytes: UnsafeRawBufferPointer) -> Result<ImageMediaType, Refusal> {
        let b = bytes.bindMemory(to: UInt8.self)
        guard !b.isEmpty else { return .failure(.of("empty", "no bytes at all")) }
        if starts(b, with: pngSignature) {
            return isWholePNG(b)
                ? .success(.png) : .failure(.of("truncated", "a PNG without IHDR first or IEND last (cut short)"))
        }
        if starts(b, with: [0xFF, 0xD8, 0xFF]) {
            return b.count >= 4 && b[b.count - 2] == 0xFF && b[b.count - 1] == 0xD9
                ? .success(.jpeg) : .failure(.of("truncated", "a JPEG without its end-of-image marker (cut short)"))
        }
        if starts(b, with: Array("GIF87a".utf8)) || starts(b, with: Array("GIF89a".utf8)) {
            return b.count >= 14 && b[b.count - 1] == 0x3B
                ? .success(.gif) : .failure(.of("truncated", "a GIF without its trailer (cut short)"))
        }
        if starts(b, with: Array("RIFF".utf8)) {
            return isWholeWebP(b) ? .success(.webp) : .failure(.of("truncated", "a RIFF file that is not a whole WebP"))
        }
        return .failure(describeForeign(b))
    }

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    private static func starts(_ b: UnsafeBufferPointer<UInt8>, with prefix: [UInt8], at offset: Int = 0) -> Bool {
        guard offset >= 0, b.count - offset >= prefix.count else { return false }
        for (index, byte) in prefix.enumerated() where b[offset + index] != byte { return false }
        return true
    }

    /// Signature, a 13-byte `IHDR` chunk right after it, and a 0-length `IEND` chunk (with its
    /// fixed CRC) as the last 12 bytes.
    private static func isWholePNG(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let ihdr: [UInt8] = [0, 0, 0, 13] + Array("IHDR".utf8)
        let iend: [UInt8] = [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
        // 8 signature + 25 IHDR chunk + 12 IEND chunk at least.
        return b.count >= 45 && starts(b, with: ihdr, at: 8) && starts(b, with: iend, at: b.count - 12)
    }

    /// `RIFF`, a little-endian size equal to the bytes after it, `WEBP`, then a known first chunk.
    private static func isWholeWebP(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count >= 20, starts(b, with: Array("WEBP".utf8), at: 8) else { return false }
        let size = Int(b[4]) | Int(b[5]) << 8 | Int(b[6]) << 16 | Int(b[7]) << 24  // at most 2³² − 1: no overflow
        guard size == b.count - 8 else { return false }
        return ["VP8 ", "VP8L", "VP8X"].contains { starts(b, with: Array($0.utf8), at: 12) }
    }

    /// Names what a refused file looks like: markup (HTML, SVG, XML) or unknown bytes.
    private static func describeForeign(_ b: UnsafeBufferPointer<UInt8>) -> Refusal {
        // Markup starts with optional whitespace or a byte order mark, then `<`.
        var index = 0
        if starts(b, with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        while index < b.count, index < 1024, [0x20, 0x09, 0x0A, 0x0D].contains(b[index]) { index += 1 }
        guard index < b.count, b[index] == UInt8(ascii: "<") else {
            return .of("unknown", "not a JPEG, PNG, WebP or GIF (starts with \(hex(b.prefix(8))))")
        }
        let head = String(decoding: b[index..<min(b.count, index + 4096)], as: UTF8.self).lowercased()
        if head.contains("<svg") { return .of("svg", "an SVG document, not a bundled image format") }
        if head.contains("<html") || head.contains("<!doctype html") || head.contains("<body") || head.contains("<head")
        {
            return .of("html", "an HTML document, not an image (an error or login page?)")
        }
        return .of("markup", "markup (XML or HTML), not an image")
    }

    private static func hex(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        bytes.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
        }.joined(separator: " ")
    }
}
