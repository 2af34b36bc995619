@_spi(Internals) import CasinoCatalog
import CatalogPipeline
import Foundation
import Testing

/// The runtime's plain-Swift SHA-256 against swift-crypto's, which the pipeline uses: the
/// content hashes both sides compute must agree.
@Suite struct SHA256DigestAgreementTests {
    @Test func agreesWithSwiftCryptoAtEveryPaddingBoundary() {
        // Given messages of every length around one and two blocks, and a larger one
        var random = SystemRandomNumberGenerator()
        var lengths = Array(0...200)
        lengths.append(100_003)
        for length in lengths {
            let message = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &random) })
            // Then both digests are equal
            #expect(SHA256Digest.hex(message) == FileNaming.hexSHA256(message), "length \(length)")
        }
    }
}
