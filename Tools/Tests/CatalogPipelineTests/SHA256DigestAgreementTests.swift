@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Testing

/// The runtime's plain-Swift SHA-256 (behind ``CatalogCoding/contentHash(of:)``) against
/// swift-crypto's, which the pipeline uses: the content hashes both sides compute must agree.
@Suite struct SHA256DigestAgreementTests {
    @Test func agreesWithSwiftCryptoAtEveryPaddingBoundary() throws {
        // Given payloads whose canonical JSON has every length around one and two blocks, and a larger one
        var random = SystemRandomNumberGenerator()
        var lengths = Array(0...200)
        lengths.append(100_003)
        for length in lengths {
            let letters = (0..<length).map { _ in UInt8.random(in: 0x61...0x7A, using: &random) }  // a...z
            let text = String(decoding: letters, as: UTF8.self)
            let canonical = try CanonicalJSON.encode(text)
            // Then both digests are equal
            #expect(
                try CatalogCoding.contentHash(of: text)
                    == CatalogRules.contentHashPrefix + FileNaming.hexSHA256(canonical),
                "length \(canonical.count)")
        }
    }
}
