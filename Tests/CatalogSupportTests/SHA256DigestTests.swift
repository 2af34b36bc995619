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

    @Test func theProcessorsInstructionsAndPlainSwiftAgreeAtEveryLength() throws {
        // Given a processor with the SHA instructions, found where Linux lists them (`sha_ni`); on
        // Apple platforms CryptoKit's serves and there is nothing to compare
        #if os(Linux) && arch(x86_64)
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        #expect(SHA256Digest.isHardwareAvailable == cpuinfo.contains(" sha_ni"))
        #endif
        guard SHA256Digest.isHardwareAvailable else { return }
        // When messages of every length across four blocks, and a large one, are hashed both ways
        var random = SystemRandomNumberGenerator()
        for length in Array(0...260) + [65_537, 1_000_003] {
            let message = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &random) })
            // Then the digests are equal, and the one `hash` gives
            let portable = SHA256Digest.portableHash(message)
            #expect(SHA256Digest.digest(message, inHardware: true) == portable, "length \(length)")
            #expect(SHA256Digest.hash(message) == portable, "length \(length)")
        }
    }

    @Test func givesThirtyTwoBytesMatchingItsHex() {
        let digest = SHA256Digest.hash(Data("abc".utf8))
        #expect(digest.count == 32)
        #expect(digest.map { String(format: "%02x", $0) }.joined() == SHA256Digest.hex(Data("abc".utf8)))
    }
}
