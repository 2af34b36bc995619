import Foundation

/// A seeded hash of a few short strings and integers: what the memory tier hashes its keys with
/// (seeded per tier, for ``MemoryTierIndex``) instead of SipHash.
///
/// A memory hit hashes its key once, and SipHash (its seeding, the string path and the
/// finalization) was a fifth of the hit. This hash reads UTF-8 eight bytes at a time and mixes each
/// word with a folded 64×64→128-bit multiply, as wyhash does. It is not keyed against hash
/// flooding beyond the tier's random seed: the keys are the app's and its provider's
/// identifiers, and the tier holds a few hundred entries.
///
/// Swift's `==` on strings is canonical equivalence ("é" precomposed equals "e" + U+0301, the
/// Kelvin sign U+212A equals "K"), so the bytes hashed are those of the NFC form: ASCII is already
/// NFC and is hashed as it is; anything else is normalized first.
struct KeyHasher {
    private var state: UInt64

    init(seed: Int) {
        state = UInt64(truncatingIfNeeded: seed) ^ 0x243F_6A88_85A3_08D3
    }

    @inline(__always)
    private static func fold(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return product.high ^ product.low
    }

    @inline(__always)
    mutating func combine(_ word: UInt64) {
        state = Self.fold(state ^ word ^ 0xA076_1D64_78BD_642F, 0xE703_7ED1_A0B4_28DB)
    }

    @inline(__always)
    mutating func combine(_ value: Int) {
        combine(UInt64(truncatingIfNeeded: value))
    }

    /// Inlined into the memory tier's hit (a call was a frame and a return on every hit); the rare
    /// path, a string to normalize, is a call.
    @inline(__always)
    mutating func combine(_ string: String) {
        let hashed = string.utf8.withContiguousStorageIfAvailable { bytes -> (state: UInt64, isASCII: Bool) in
            var copy = self
            let isASCII = copy.combine(bytes: UnsafeRawBufferPointer(bytes))
            return (copy.state, isASCII)
        }
        if let hashed, hashed.isASCII {
            state = hashed.state
            return
        }
        combine(normalizing: string)
    }

    /// Not ASCII, or not stored as contiguous UTF-8 (a bridged string): hashes the NFC form's bytes.
    @inline(never)
    private mutating func combine(normalizing string: String) {
        var normalized = string.precomposedStringWithCanonicalMapping
        normalized.withUTF8 { _ = combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Mixes the length, then each eight bytes, then the last one to seven as one word (read as
    /// two overlapping four-byte or three single-byte loads, as wyhash does, rather than copied);
    /// whether every byte is ASCII.
    @inline(__always)
    private mutating func combine(bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        combine(count)
        var high: UInt64 = 0
        var offset = 0
        while offset + 8 <= count {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            high |= word
            combine(word)
            offset += 8
        }
        let rest = count - offset
        if rest >= 4 {
            let first = UInt64(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            let last = UInt64(bytes.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
            high |= first | last
            combine(first << 32 | last)
        } else if rest > 0 {
            let word = UInt64(bytes[offset]) << 16 | UInt64(bytes[offset + rest / 2]) << 8 | UInt64(bytes[count - 1])
            high |= word
            combine(word)
        }
        return high & 0x8080_8080_8080_8080 == 0
    }

    func finalize() -> Int {
        Int(truncatingIfNeeded: Self.fold(state ^ 0x8EBC_6AF0_9C88_C6E3, 0x5899_65CC_7537_4CC3))
    }
}
