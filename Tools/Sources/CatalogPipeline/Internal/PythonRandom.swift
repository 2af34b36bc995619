import Foundation

/// CPython's `random.Random`, reproduced exactly for the calls the curated data uses, so
/// `CuratedRecording` draws the same numbers as the Python script that first generated `data/`.
///
/// The generator is MT19937 seeded like `random.Random(seed)` with a non-negative integer
/// (`init_by_array` over the seed's 32-bit words, least significant first), and the derived
/// methods follow CPython 3.11's `Lib/random.py`: `getrandbits`, `_randbelow_with_getrandbits`,
/// `randrange`, `randint` and `sample`.
///
/// ```swift
/// var random = PythonRandom(seed: 20_261_120)
/// random.randint(1, 100)   // 57, as random.Random(20261120).randint(1, 100)
/// ```
struct PythonRandom: Sendable {
    private static let stateSize = 624
    private static let shiftSize = 397

    private var state = [UInt32](repeating: 0, count: PythonRandom.stateSize)
    private var index = PythonRandom.stateSize

    /// `random.Random(seed)` for a non-negative integer seed.
    init(seed: UInt64) {
        // CPython splits abs(seed) into 32-bit words, least significant first; zero is one word.
        var key: [UInt32] = [UInt32(truncatingIfNeeded: seed)]
        if seed >> 32 != 0 { key.append(UInt32(truncatingIfNeeded: seed >> 32)) }
        initByArray(key)
    }

    /// MT19937's `init_genrand`.
    private mutating func initGenrand(_ value: UInt32) {
        state[0] = value
        for i in 1..<Self.stateSize {
            let previous = state[i - 1]
            state[i] = 1_812_433_253 &* (previous ^ (previous >> 30)) &+ UInt32(i)
        }
        index = Self.stateSize
    }

    /// MT19937's `init_by_array`, as CPython's `random_seed` calls it.
    private mutating func initByArray(_ key: [UInt32]) {
        let n = Self.stateSize
        initGenrand(19_650_218)
        var i = 1
        var j = 0
        for _ in 0..<max(n, key.count) {
            let previous = state[i - 1]
            state[i] = (state[i] ^ ((previous ^ (previous >> 30)) &* 1_664_525)) &+ key[j] &+ UInt32(j)
            i += 1
            j += 1
            if i >= n {
                state[0] = state[n - 1]
                i = 1
            }
            if j >= key.count { j = 0 }
        }
        for _ in 0..<(n - 1) {
            let previous = state[i - 1]
            state[i] = (state[i] ^ ((previous ^ (previous >> 30)) &* 1_566_083_941)) &- UInt32(i)
            i += 1
            if i >= n {
                state[0] = state[n - 1]
                i = 1
            }
        }
        state[0] = 0x8000_0000
    }

    /// MT19937's `genrand_uint32`: the next 32 random bits.
    mutating func nextUInt32() -> UInt32 {
        let n = Self.stateSize
        let m = Self.shiftSize
        if index >= n {
            for k in 0..<n {
                let y = (state[k] & 0x8000_0000) | (state[(k + 1) % n] & 0x7FFF_FFFF)
                state[k] = state[(k + m) % n] ^ (y >> 1) ^ (y & 1 == 0 ? 0 : 0x9908_B0DF)
            }
            index = 0
        }
        var y = state[index]
        index += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C_5680
        y ^= (y << 15) & 0xEFC6_0000
        y ^= y >> 18
        return y
    }

    /// `getrandbits(k)` for `0 <= k <= 64`: words of 32 bits, least significant first, the last
    /// one cut to the bits left.
    mutating func getrandbits(_ k: Int) -> UInt64 {
        precondition((0...64).contains(k), "getrandbits supports 0...64 bits here")
        var result: UInt64 = 0
        var remaining = k
        var shift: UInt64 = 0
        while remaining > 0 {
            var word = UInt64(nextUInt32())
            if remaining < 32 { word >>= UInt64(32 - remaining) }
            result |= word << shift
            shift += 32
            remaining -= 32
        }
        return result
    }

    /// `_randbelow_with_getrandbits(n)`: a random integer in `0..<n`, for `n > 0`.
    mutating func randbelow(_ n: Int) -> Int {
        precondition(n > 0, "randbelow needs a positive bound")
        let k = Int.bitWidth - n.leadingZeroBitCount  // n.bit_length()
        var r = getrandbits(k)
        while r >= UInt64(n) { r = getrandbits(k) }
        return Int(r)
    }

    /// `randrange(stop)`: a random integer in `0..<stop`.
    mutating func randrange(_ stop: Int) -> Int {
        randbelow(stop)
    }

    /// `randint(a, b)`: a random integer in `a...b` (`randrange(a, b + 1)`).
    mutating func randint(_ a: Int, _ b: Int) -> Int {
        a + randbelow(b + 1 - a)
    }

    /// `sample(population, k)`: `k` distinct positions of `population`, in selection order.
    ///
    /// CPython 3.11 tracks the unselected pool in a list when the population is no bigger than a
    /// `k`-element set would be, and the selected positions in a set otherwise; the branch decides
    /// which numbers are drawn, so it is reproduced, float logarithm included.
    mutating func sample<C: RandomAccessCollection>(_ population: C, count k: Int) -> [C.Element] {
        let n = population.count
        precondition((0...n).contains(k), "Sample larger than population or is negative")
        func element(_ offset: Int) -> C.Element {
            population[population.index(population.startIndex, offsetBy: offset)]
        }
        var setSize = 21  // size of a small set minus size of an empty list
        if k > 5 {
            // 4 ** _ceil(_log(k * 3, 4)); math.log(x, base) is log(x) / log(base).
            let exponent = Int((log(Double(k * 3)) / log(4.0)).rounded(.up))
            setSize += (0..<exponent).reduce(1) { power, _ in power * 4 }
        }
        var result: [C.Element] = []
        result.reserveCapacity(k)
        if n <= setSize {
            var pool = (0..<n).map(element)
            for i in 0..<k {
                let j = randbelow(n - i)
                result.append(pool[j])
                pool[j] = pool[n - i - 1]  // move a non-selected item into the vacancy
            }
        } else {
            var selected = Set<Int>()
            for _ in 0..<k {
                var j = randbelow(n)
                while selected.contains(j) { j = randbelow(n) }
                selected.insert(j)
                result.append(element(j))
            }
        }
        return result
    }
}
