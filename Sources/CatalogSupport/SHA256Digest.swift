package import Foundation

#if canImport(CryptoKit)
import CryptoKit
#endif

/// SHA-256 for the runtime: content hashes of cached entries (what the bulk validation sends), and
/// the check of every snapshot file read and every over-the-air file installed.
///
/// CryptoKit's on Apple platforms (hardware where the device has it), elsewhere FIPS 180-4 in plain
/// Swift: Linux runs the tools and the tests, where no app ships. The runtime depends on nothing but
/// Foundation, zlib and swift-log, and neither Foundation on Linux nor zlib has a SHA-256; the tools
/// use swift-crypto, and tests hold the plain Swift one to it.
package enum SHA256Digest {
    /// The 32-byte digest of `data`.
    package static func hash(_ data: Data) -> [UInt8] {
        #if canImport(CryptoKit)
        Array(SHA256.hash(data: data))
        #else
        portableHash(data)
        #endif
    }

    /// The digest in plain Swift (FIPS 180-4).
    static func portableHash(_ data: Data) -> [UInt8] {
        var state = Words(initialState)
        let length = data.count
        roundConstants.withUnsafeBufferPointer { constants in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
                /// Compresses `blocks` 64-byte blocks at `start` into `state`.
                func compress(_ start: UnsafeRawPointer, blocks: Int) {
                    for block in 0..<blocks { Self.compress(&state, start + 64 * block, constants, schedule) }
                }
                data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
                    let whole = length / 64
                    if whole > 0 { compress(buffer.baseAddress!, blocks: whole) }
                    let offset = whole * 64
                    // The tail, the 0x80 marker and the bit length: one or two more blocks.
                    var tail = [UInt8](buffer[offset..<length])
                    tail.append(0x80)
                    while tail.count % 64 != 56 { tail.append(0) }
                    let bits = UInt64(length) &* 8
                    for shift in stride(from: 56, through: 0, by: -8) {
                        tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
                    }
                    tail.withUnsafeBytes { padded in compress(padded.baseAddress!, blocks: padded.count / 64) }
                }
            }
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in [state.a, state.b, state.c, state.d, state.e, state.f, state.g, state.h] {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    /// The digest of `data` as 64 lowercase hex digits.
    package static func hex(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in hash(data) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static let initialState: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]

    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// The eight working words, in registers rather than an array.
    private struct Words {
        var a, b, c, d, e, f, g, h: UInt32

        init(_ words: [UInt32]) {
            (a, b, c, d, e, f, g, h) = (words[0], words[1], words[2], words[3], words[4], words[5], words[6], words[7])
        }
    }

    /// One 64-byte block at `block` into `state`; `schedule` is 64 words of scratch.
    @inline(__always)
    private static func compress(
        _ state: inout Words, _ block: UnsafeRawPointer, _ constants: UnsafeBufferPointer<UInt32>,
        _ schedule: UnsafeMutableBufferPointer<UInt32>
    ) {
        for index in 0..<16 {
            schedule[index] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
        }
        for index in 16..<64 {
            let early = schedule[index - 15]
            let late = schedule[index - 2]
            let sigma0 = rotate(early, 7) ^ rotate(early, 18) ^ (early >> 3)
            let sigma1 = rotate(late, 17) ^ rotate(late, 19) ^ (late >> 10)
            schedule[index] = schedule[index - 16] &+ sigma0 &+ schedule[index - 7] &+ sigma1
        }
        var (a, b, c, d, e, f, g, h) = (state.a, state.b, state.c, state.d, state.e, state.f, state.g, state.h)
        for index in 0..<64 {
            let sum1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
            let choice = (e & f) ^ (~e & g)
            let first = h &+ sum1 &+ choice &+ constants[index] &+ schedule[index]
            let sum0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            h = g
            g = f
            f = e
            e = d &+ first
            d = c
            c = b
            b = a
            a = first &+ sum0 &+ majority
        }
        state.a &+= a
        state.b &+= b
        state.c &+= c
        state.d &+= d
        state.e &+= e
        state.f &+= f
        state.g &+= g
        state.h &+= h
    }

    @inline(__always)
    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }
}
