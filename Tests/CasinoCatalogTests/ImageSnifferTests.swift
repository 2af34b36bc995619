@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

@Suite struct ImageSnifferTests {
    /// A PNG's framing: the signature, a 13-byte IHDR chunk, the IEND chunk.
    static let png: [UInt8] = {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
        bytes += Array("IHDR".utf8)
        bytes += [0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0, 0x90, 0x77, 0x53, 0xDE, 0, 0, 0, 0]
        bytes += Array("IEND".utf8)
        bytes += [0xAE, 0x42, 0x60, 0x82]
        return bytes
    }()
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0xFF, 0xD9]
    static let gif: [UInt8] = [0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0, 0, 0, 0x2C, 0, 0, 0x3B]

    static func webp(chunk: String = "VP8L", sizeDelta: Int = 0) -> [UInt8] {
        let payload: [UInt8] = Array(chunk.utf8) + [2, 0, 0, 0, 0x2F, 0]
        let size = 4 + payload.count + sizeDelta
        var bytes: [UInt8] = Array("RIFF".utf8)
        bytes += [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), 0, 0]
        bytes += Array("WEBP".utf8)
        return bytes + payload
    }

    static func text(_ text: String) -> [UInt8] { Array(text.utf8) }

    static let images: [(bytes: [UInt8], type: ImageMediaType)] = [
        (png, .png), (jpeg, .jpeg), (gif, .gif), (webp(), .webp), (webp(chunk: "VP8 "), .webp),
        (webp(chunk: "VP8X"), .webp),
    ]

    static let refusals: [(bytes: [UInt8], code: String)] = [
        (text("<!DOCTYPE html><html><body>404</body></html>"), "html"),
        (text("\u{FEFF}  \n<html><head><title>Login</title></head></html>"), "html"),
        (text("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>"), "svg"),
        (text("<svg viewBox=\"0 0 1 1\"/>"), "svg"),
        (text("<rss/>"), "markup"),
        (Array(png.dropLast(12)), "truncated"),
        (Array(png.prefix(20)), "truncated"),
        (Array(jpeg.dropLast(2)), "truncated"),
        (Array(gif.dropLast()), "truncated"),
        (webp(sizeDelta: 7), "truncated"),
        (webp(chunk: "ALPH"), "truncated"),
        (text("RIFF"), "truncated"),
        ([], "empty"),
        ([0x00, 0x01, 0x02], "unknown"),
        (text("%PDF-1.7"), "unknown"),
    ]

    @Test(arguments: images)
    func recognizesTheFourBundledFormatsFromTheirBytes(bytes: [UInt8], type: ImageMediaType) {
        #expect(ImageSniffer.sniff(Data(bytes)) == .success(type))
    }

    @Test(arguments: refusals)
    func refusesWhatIsNotAWholeBundledImageAndSaysWhatItIs(bytes: [UInt8], code: String) {
        guard case .failure(let refusal) = ImageSniffer.sniff(Data(bytes)) else {
            Issue.record("accepted \(bytes.prefix(16))")
            return
        }
        #expect(refusal.code == code)
    }

    @Test func everyTypeHasItsExtensionAndBack() {
        for type in ImageMediaType.allCases {
            #expect(ImageMediaType(fileExtension: type.fileExtension) == type)
        }
        #expect(ImageMediaType(fileExtension: "svg") == nil)
    }
}
