import Foundation
import Testing

@testable import CatalogSupport

@Suite struct SHA256DigestTests {
    /// FIPS 180-4's examples and the empty message.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ])
    func matchesTheStandardsExamples(message: String, expected: String) {
        #expect(SHA256Digest.hex(Data(message.utf8)) == expected)
    }

    @Test func hashesAMillionBytesAcrossManyBlocks() {
        // Given FIPS 180-4's long example: one million "a"
        let message = Data(repeating: UInt8(ascii: "a"), count: 1_000_000)
        // Then the digest is the published one
        #expect(SHA256Digest.hex(message) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func givesThirtyTwoBytesMatchingItsHex() {
        let digest = SHA256Digest.hash(Data("abc".utf8))
        #expect(digest.count == 32)
        #expect(digest.map { String(format: "%02x", $0) }.joined() == SHA256Digest.hex(Data("abc".utf8)))
    }
}
