import Testing

@testable import CatalogPipeline

/// The curated data depends on drawing exactly CPython's numbers; these name the generator when a
/// change breaks that, before any data file differs. Expected values come from python3 3.11.
@Suite struct PythonRandomTests {
    @Test func seedsLikeCPythonAndDrawsItsFirstWords() {
        // Given random.Random(20261120)
        var random = PythonRandom(seed: 20_261_120)
        // Then getrandbits(32) x 3 are CPython's
        #expect(
            [random.getrandbits(32), random.getrandbits(32), random.getrandbits(32)] == [
                1_904_530_516, 2_512_209_022, 2_229_673_195,
            ])
    }

    @Test(arguments: [(0, 3_626_764_237), ((1 << 40) + 7, 2_635_837_658)] as [(UInt64, UInt64)])
    func seedsWithTheSeedsThirtyTwoBitWords(seed: UInt64, first: UInt64) {
        var random = PythonRandom(seed: seed)
        #expect(random.getrandbits(32) == first)
    }

    @Test func drawsWideAndNarrowBitsLikeGetrandbits() {
        // Given random.Random(2**40 + 7) after one getrandbits(32)
        var random = PythonRandom(seed: (1 << 40) + 7)
        _ = random.getrandbits(32)
        // Then getrandbits(64) joins two words, least significant first, and getrandbits(5) keeps the top bits
        #expect(random.getrandbits(64) == 15_032_552_342_854_607_970)
        #expect(random.getrandbits(5) == 30)
    }

    @Test func randintRandrangeAndSampleMatchCPython() {
        // Given random.Random(20261120)
        var random = PythonRandom(seed: 20_261_120)
        // When randint, randrange, sample (the set branch) and randint are called in turn
        // Then each is what CPython returns
        #expect(random.randint(1, 100) == 57)
        #expect(random.randrange(9) == 8)
        #expect(random.sample(10_000..<59_999, count: 5) == [35335, 29245, 57108, 23954, 56622])
        #expect(random.randint(9400, 9699) == 9471)
    }

    @Test func sampleChoosesCPythonsPoolOrSetBranchByPopulationAndCount() {
        var random = PythonRandom(seed: 20_261_120)
        // n = 20 <= 21: the pool branch
        #expect(random.sample(Array(0..<20), count: 5) == [14, 18, 16, 12, 9])
        // k = 7: set size 21 + 4 ** ceil(log(21, 4)) = 85, so n = 80 is the pool branch...
        #expect(random.sample(0..<80, count: 7) == [27, 17, 53, 13, 54, 78, 16])
        // ...and n = 100 the set branch
        #expect(random.sample(0..<100, count: 7) == [39, 27, 59, 47, 42, 20, 74])
    }

    @Test func theCuratedPoolsFirstDrawIsTheScriptsGameIDs() {
        // rng.sample(range(10000, 59999), 120)[:5] in the script's build_pool()
        var random = PythonRandom(seed: CuratedCatalogue.seed)
        #expect(Array(random.sample(10_000..<59_999, count: 120).prefix(5)) == [39060, 48333, 44022, 35335, 29245])
    }
}
