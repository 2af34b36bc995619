@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Keeps the memory the process frees instead of handing it back to the system (glibc), so that a
/// row timing one large run against ten small ones back to back compares like with like: by default
/// glibc returns a large run's freed heap when it is freed, and each large sample faults it in again,
/// while the ten small runs reuse one another's. Kept, every sample of either size runs on memory
/// its warm-up faulted in. `CACHE_BENCH_MALLOC=default` leaves glibc's policy alone.
/// Returns what it did, for the run's log.
func keepFreedMemory() -> String {
    #if canImport(Glibc)
    guard ProcessInfo.processInfo.environment["CACHE_BENCH_MALLOC"] != "default" else {
        return "malloc: glibc's default (freed memory goes back to the system)"
    }
    // malloc.h is not part of the Glibc module: look mallopt up, with its two parameters' values.
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    let trimThreshold: Int32 = -1
    let mmapThreshold: Int32 = -3  // M_TRIM_THRESHOLD, M_MMAP_THRESHOLD
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else {
        return "malloc: no mallopt; the default policy applies"
    }
    let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
    let trim = mallopt(trimThreshold, Int32.max)
    let mmap = mallopt(mmapThreshold, 32 << 20)  // glibc's ceiling on 64-bit
    return trim == 1 && mmap == 1
        ? "malloc: freed memory kept in the process (CACHE_BENCH_MALLOC=default to hand it back)"
        : "malloc: glibc refused mallopt; its default policy applies"
    #else
    return "malloc: the system's default"
    #endif
}

/// One measured operation and its floor, both timed in the same run.
struct Result: Encodable {
    var operation: String
    var size: String
    var medianNanoseconds: Double
    var p99Nanoseconds: Double
    var floor: String
    var floorMedianNanoseconds: Double
    /// What the three values count when they are not times: `calls` (the simulated day), `MiB` (peak
    /// memory, against a floor of 1 MiB).
    var unit: String? = nil
    var ratio: Double { medianNanoseconds / floorMedianNanoseconds }

    enum CodingKeys: String, CodingKey {
        case operation, size, medianNanoseconds, p99Nanoseconds, floor, floorMedianNanoseconds, ratio, unit
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(operation, forKey: .operation)
        try container.encode(size, forKey: .size)
        try container.encode(medianNanoseconds, forKey: .medianNanoseconds)
        try container.encode(p99Nanoseconds, forKey: .p99Nanoseconds)
        try container.encode(floor, forKey: .floor)
        try container.encode(floorMedianNanoseconds, forKey: .floorMedianNanoseconds)
        try container.encode(ratio, forKey: .ratio)
        try container.encodeIfPresent(unit, forKey: .unit)
    }
}

/// Samples of one operation in nanoseconds per call. Fast operations are timed in batches of
/// `batch` calls and divided, so the clock's own cost does not dominate.
struct Samples {
    var values: [Double]

    var median: Double { percentile(0.5) }
    var p99: Double { percentile(0.99) }

    func percentile(_ fraction: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(Int(Double(sorted.count - 1) * fraction), sorted.count - 1)]
    }
}

let clock = ContinuousClock()

func nanoseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
}

/// Times `body` `samples` times after `warmup` untimed runs; each sample runs it `batch` times.
func measure(samples: Int = 200, warmup: Int = 20, batch: Int = 1, _ body: () throws -> Void) rethrows -> Samples {
    for _ in 0..<warmup { for _ in 0..<batch { try body() } }
    var values: [Double] = []
    values.reserveCapacity(samples)
    for _ in 0..<samples {
        let start = clock.now
        for _ in 0..<batch { try body() }
        values.append(nanoseconds(clock.now - start) / Double(batch))
    }
    return Samples(values: values)
}

/// Times an operation and its floor with their samples interleaved (floor, operation, floor, …),
/// so that a slow stretch of this shared machine hits both alike and their ratio stays honest.
func measurePair(
    samples: Int = 200, warmup: Int = 20, batch: Int = 1, floor: () throws -> Void, operation: () throws -> Void
) rethrows -> (floor: Samples, operation: Samples) {
    for _ in 0..<warmup {
        for _ in 0..<batch { try floor() }
        for _ in 0..<batch { try operation() }
    }
    var floorValues: [Double] = []
    var operationValues: [Double] = []
    for _ in 0..<samples {
        var start = clock.now
        for _ in 0..<batch { try floor() }
        floorValues.append(nanoseconds(clock.now - start) / Double(batch))
        start = clock.now
        for _ in 0..<batch { try operation() }
        operationValues.append(nanoseconds(clock.now - start) / Double(batch))
    }
    return (Samples(values: floorValues), Samples(values: operationValues))
}

/// The async twin of ``measure(samples:warmup:batch:_:)``.
nonisolated(nonsending) func measureAsync(
    samples: Int = 200, warmup: Int = 20, batch: Int = 1, _ body: () async throws -> Void
) async rethrows
    -> Samples
{
    for _ in 0..<warmup { for _ in 0..<batch { try await body() } }
    var values: [Double] = []
    for _ in 0..<samples {
        let start = clock.now
        for _ in 0..<batch { try await body() }
        values.append(nanoseconds(clock.now - start) / Double(batch))
    }
    return Samples(values: values)
}

/// ``measurePair(samples:warmup:batch:floor:operation:)`` for an async operation against a
/// synchronous floor, their samples interleaved the same way.
nonisolated(nonsending) func measurePairAsync(
    samples: Int = 200, warmup: Int = 20, batch: Int = 1, floor: () -> Void, operation: () async throws -> Void
) async rethrows -> (floor: Samples, operation: Samples) {
    for _ in 0..<warmup {
        for _ in 0..<batch { floor() }
        for _ in 0..<batch { try await operation() }
    }
    var floorValues: [Double] = []
    var operationValues: [Double] = []
    for _ in 0..<samples {
        var start = clock.now
        for _ in 0..<batch { floor() }
        floorValues.append(nanoseconds(clock.now - start) / Double(batch))
        start = clock.now
        for _ in 0..<batch { try await operation() }
        operationValues.append(nanoseconds(clock.now - start) / Double(batch))
    }
    return (Samples(values: floorValues), Samples(values: operationValues))
}

func format(_ nanoseconds: Double) -> String {
    if nanoseconds < 1_000 { return String(format: "%.0f ns", nanoseconds) }
    if nanoseconds < 1_000_000 { return String(format: "%.1f µs", nanoseconds / 1_000) }
    return String(format: "%.2f ms", nanoseconds / 1_000_000)
}

func printTable(_ results: [Result]) {
    let header = ["operation", "size", "median", "p99", "floor", "floor median", "ratio"]
    let rows = results.map { row in
        let value = { (value: Double) in row.unit.map { "\(Int(value)) \($0)" } ?? format(value) }
        return [
            row.operation, row.size, value(row.medianNanoseconds), value(row.p99Nanoseconds), row.floor,
            value(row.floorMedianNanoseconds), String(format: "%.2f×", row.ratio),
        ]
    }
    let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max()! }
    func line(_ cells: [String]) -> String {
        "| "
            + cells.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
            .joined(separator: " | ") + " |"
    }
    print(line(header))
    print("|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|")
    for row in rows { print(line(row)) }
}

/// A synthetic recording of `games` games in `categories` categories for one edition (en-iPhone),
/// written to `work/recording` and normalized: the catalogue the runtime benchmarks start from.
func sampleCatalog(games: Int, categories: Int, in work: URL) throws -> Catalog {
    var sample = SampleRecording(games: games, categories: categories)
    sample.editions = [try Edition(id: "en-iPhone")]
    let recording = work.appendingPathComponent("recording")
    try sample.write(to: recording)
    return try Normalizer(configuration: .default, logger: benchLogger)
        .normalize(RecordedProviderSource(directory: recording)).catalog
}
