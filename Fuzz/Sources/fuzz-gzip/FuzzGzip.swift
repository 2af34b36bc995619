import Foundation
@_spi(CatalogTools) import Gzip

/// Gzip with caps: hostile input never traps, never produces more than its limit, and any bytes
/// compress and decompress back to themselves. The first byte picks a limit, hostile ones included.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGzip(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let limits = [-1, 0, 1, 64, 4096, 1 << 20, Int.max]
    let limit = limits[Int(data.first ?? 0) % limits.count]
    let expected: Int? = data.count > 1 ? [nil, -1, 0, 10, Int.max][Int(data[1]) % 5] : nil
    if let inflated = try? Gzip.decompress(data, limit: limit, expectedSize: expected) {
        precondition(inflated.count <= limit, "decompress returned more than its limit")
        if let expected { precondition(inflated.count == expected, "decompress ignored the expected size") }
    }
    for level in [Gzip.level, Gzip.fastLevel] {
        guard let packed = try? Gzip.compress(data, level: level) else { preconditionFailure("compress failed") }
        let back = try? Gzip.decompress(packed, limit: data.count, expectedSize: data.count)
        precondition(back == data, "a round trip changed the bytes")
    }
    return 0
}
