@_spi(CatalogTools) import CasinoCatalog
import Foundation
@_spi(CatalogTools) import XMLGameFeed

/// The XML feed reader on hostile bytes (DTDs, entities, deep nesting, huge text): an
/// ``XMLFeedError`` or a feed, never a trap, a hang or an entity expansion.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXML(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    var limits = XMLFeedReader.Limits.default
    limits.maxBytes = 1 << 20
    if let feed = try? XMLFeedReader.read(data: data, name: "fuzz.xml", limits: limits) {
        _ = feed.categories.count
    }
    return 0
}
