public import Foundation

/// Small, real, deterministic images written byte by byte, for samples, tests and benchmarks:
/// a PNG, a baseline JPEG, a GIF and a lossless WebP that every decoder reads, with no image
/// library and no compressor whose output could differ between platforms.
///
/// - PNG: 8-bit RGB, stored (uncompressed) deflate blocks, so its size is exactly predictable.
/// - JPEG: baseline, YCbCr without subsampling, one flat colour per 8×8 block (DC only): a mosaic.
/// - GIF: GIF89a with a 16-colour palette, LZW with a clear code every few pixels.
/// - WebP: lossless (VP8L), one colour.
///
/// ```swift
/// let tile = SyntheticImage.jpeg(width: 64, height: 48) { x, y in (UInt8(x * 4), UInt8(y * 5), 160) }
/// ```
public enum SyntheticImage {
    /// A colour: red, green, blue.
    public typealias RGB = (red: UInt8, green: UInt8, blue: UInt8)

    // MARK: - PNG

    /// An 8-bit RGB PNG of `width` × `height` pixels, `pixel(x, y)` each.
    public static func png(width: Int, height: Int, pixel: (Int, Int) -> RGB) -> Data {
        var raw: [UInt8] = []
        raw.reserveCapacity((width * 3 + 1) * height)
        for y in 0..<height {
            raw.append(0)  // filter: none
            for x in 0..<width {
                let colour = pixel(x, y)
                raw += [colour.red, colour.green, colour.blue]
            }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, raw.count - offset)
            let isLast = offset + count == raw.count
            zlib.append(isLast ? 1 : 0)
            zlib += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            zlib += raw[offset..<offset + count]
            offset += count
        } while offset < raw.count
        zlib += bigEndian(adler32(raw))
        var header = bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [8, 2, 0, 0, 0]
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", header) + chunk("IDAT", zlib) + chunk("IEND", [])
        return Data(png)
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    // MARK: - JPEG

    /// A baseline JPEG of `width` × `height` pixels (multiples of 8 look best) whose every 8×8
    /// block is the flat colour `block(column, row)`.
    public static func jpeg(width: Int, height: Int, block: (Int, Int) -> RGB) -> Data {
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += [0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        bytes += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 8, count: 64)
        bytes += [0xFF, 0xC0, 0x00, 0x11, 0x08] + bigEndian16(height) + bigEndian16(width)
        bytes += [0x03, 0x01, 0x11, 0x00, 0x02, 0x11, 0x00, 0x03, 0x11, 0x00]
        // DC table 0: the standard luminance DC table (categories 0…11); AC table 0: EOB only.
        bytes += [0xFF, 0xC4, 0x00, 0x1F, 0x00, 0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0] + Array(0...11)
        bytes += [0xFF, 0xC4, 0x00, 0x14, 0x10, 1] + [UInt8](repeating: 0, count: 15) + [0x00]
        bytes += [0xFF, 0xDA, 0x00, 0x0C, 0x03, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x00, 0x3F, 0x00]
        var writer = BitWriter(msbFirst: true)
        var predictors = [0, 0, 0]
        for row in 0..<(height + 7) / 8 {
            for column in 0..<(width + 7) / 8 {
                let colour = block(column, row)
                let (r, g, b) = (Int(colour.red), Int(colour.green), Int(colour.blue))
                let components = [
                    (77 * r + 150 * g + 29 * b) >> 8,
                    ((-43 * r - 85 * g + 128 * b) >> 8) + 128,
                    ((128 * r - 107 * g - 21 * b) >> 8) + 128,
                ]
                for (index, sample) in components.enumerated() {
                    // With quantizer 8, a block's DC coefficient is its level-shifted sample.
                    let value = min(max(sample, 0), 255) - 128
                    let difference = value - predictors[index]
                    predictors[index] = value
                    let category = difference == 0 ? 0 : Int.bitWidth - abs(difference).leadingZeroBitCount
                    let (code, length) = dcCodes[category]
                    writer.write(code, count: length)
                    if category > 0 {
                        writer.write(difference > 0 ? difference : difference + (1 << category) - 1, count: category)
                    }
                    writer.write(0, count: 1)  // EOB: every AC coefficient is zero
                }
            }
        }
        for byte in writer.finish(padding: 1) {
            bytes.append(byte)
            if byte == 0xFF { bytes.append(0x00) }
        }
        bytes += [0xFF, 0xD9]
        return Data(bytes)
    }

    /// The standard DC table's codes by category: (code, length).
    private static let dcCodes: [(Int, Int)] = [
        (0b00, 2), (0b010, 3), (0b011, 3), (0b100, 3), (0b101, 3), (0b110, 3), (0b1110, 4), (0b11110, 5),
        (0b111110, 6), (0b1111110, 7), (0b11111110, 8), (0b111111110, 9),
    ]

    // MARK: - GIF

    /// A GIF89a of `width` × `height` pixels over `palette` (up to 16 colours), `pixel(x, y)` an
    /// index into it.
    public static func gif(width: Int, height: Int, palette: [RGB], pixel: (Int, Int) -> Int) -> Data {
        var bytes = Array("GIF89a".utf8) + littleEndian16(width) + littleEndian16(height)
        bytes += [0xF3, 0x00, 0x00]  // a global table of 16 colours, 8 bits per primary
        for index in 0..<16 {
            let colour = index < palette.count ? palette[index] : (0, 0, 0)
            bytes += [colour.0, colour.1, colour.2]
        }
        bytes += [0x2C, 0, 0, 0, 0] + littleEndian16(width) + littleEndian16(height) + [0x00]
        // LZW with minimum code size 4: clear 16, end 17, 5-bit codes. A clear every 12 codes keeps
        // the table below 32 entries, so codes never widen: each pixel is one literal code.
        bytes.append(4)
        var writer = BitWriter(msbFirst: false)
        var sinceClear = 0
        writer.write(16, count: 5)
        for y in 0..<height {
            for x in 0..<width {
                if sinceClear == 12 {
                    writer.write(16, count: 5)
                    sinceClear = 0
                }
                writer.write(min(max(pixel(x, y), 0), 15), count: 5)
                sinceClear += 1
            }
        }
        writer.write(17, count: 5)
        let data = writer.finish(padding: 0)
        var offset = 0
        while offset < data.count {
            let count = min(255, data.count - offset)
            bytes.append(UInt8(count))
            bytes += data[offset..<offset + count]
            offset += count
        }
        bytes += [0x00, 0x3B]
        return Data(bytes)
    }

    // MARK: - WebP

    /// A lossless WebP of `width` × `height` pixels (1…16384), all `colour`.
    public static func webp(width: Int, height: Int, colour: RGB) -> Data {
        var writer = BitWriter(msbFirst: false)
        writer.write(width - 1, count: 14)
        writer.write(height - 1, count: 14)
        writer.write(0, count: 1)  // alpha unused
        writer.write(0, count: 3)  // version 0
        writer.write(0, count: 1)  // no transform
        writer.write(0, count: 1)  // no colour cache
        writer.write(0, count: 1)  // no meta prefix codes
        // Five simple prefix codes of one symbol each (green, red, blue, alpha, distance): a symbol
        // then costs no bits, so the pixels themselves take none.
        for symbol in [Int(colour.green), Int(colour.red), Int(colour.blue), 255] {
            writer.write(1, count: 1)  // simple code
            writer.write(0, count: 1)  // one symbol
            writer.write(1, count: 1)  // of 8 bits
            writer.write(symbol, count: 8)
        }
        writer.write(1, count: 1)
        writer.write(0, count: 1)
        writer.write(0, count: 1)  // of 1 bit
        writer.write(0, count: 1)
        var payload: [UInt8] = [0x2F] + writer.finish(padding: 0)
        let size = payload.count
        if size % 2 == 1 { payload.append(0) }
        let chunk = Array("VP8L".utf8) + littleEndian32(size) + payload
        return Data(Array("RIFF".utf8) + littleEndian32(4 + chunk.count) + Array("WEBP".utf8) + chunk)
    }

    // MARK: - Helpers

    /// Packs bits into bytes: most significant first (JPEG) or least significant first (GIF, WebP).
    private struct BitWriter {
        let msbFirst: Bool
        var bytes: [UInt8] = []
        var current = 0
        var filled = 0

        init(msbFirst: Bool) { self.msbFirst = msbFirst }

        mutating func write(_ value: Int, count: Int) {
            for index in 0..<count {
                let bit = msbFirst ? (value >> (count - 1 - index)) & 1 : (value >> index) & 1
                current |= msbFirst ? bit << (7 - filled) : bit << filled
                filled += 1
                if filled == 8 {
                    bytes.append(UInt8(current))
                    current = 0
                    filled = 0
                }
            }
        }

        /// The bytes, the last one filled with `padding` bits.
        mutating func finish(padding: Int) -> [UInt8] {
            while filled != 0 { write(padding, count: 1) }
            return bytes
        }
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func bigEndian16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    private static func littleEndian16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    private static func littleEndian32(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24 & 0xFF)]
    }
}
