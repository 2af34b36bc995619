@_spi(CatalogTools) import CasinoCatalog
import Foundation
@_spi(CatalogTools) import Gzip

/// Snapshot and manifest decoding with the schema's rules, as the validator and the app's bundled
/// tier apply them: hostile JSON (or gzip of it) gives a decoding error or violations, never a trap.
/// Canonical JSON's transcoder too: an error or a canonical form that is its own canonical form; and
/// the direct writer of payloads agrees with it byte for byte.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSnapshot(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var data = Data(bytes: start, count: count)
    if let inflated = try? Gzip.decompress(data, limit: 1 << 20) { data = inflated }
    if let canonical = try? CanonicalJSON.canonicalized(data) {
        precondition((try? CanonicalJSON.canonicalized(canonical)) == canonical, "canonical JSON is not a fixed point")
        precondition(
            (try? CanonicalJSON.requireCanonical(canonical)) != nil, "canonical JSON is refused as not canonical")
    }
    let decoder = CatalogCoding.decoder()
    if let snapshot = try? decoder.decode(Snapshot<GamesPage>.self, from: data) {
        _ = snapshot.payload.violations()
        _ = snapshot.payload.hasMore
        _ = snapshot.key.description
        precondition(
            (try? CanonicalPayload.encode(snapshot.payload)) == (try? CanonicalJSON.encode(snapshot.payload)),
            "the direct writer and canonical JSON disagree on a page")
    }
    if let snapshot = try? decoder.decode(Snapshot<CategoryList>.self, from: data) {
        _ = snapshot.payload.violations()
        precondition(
            (try? CanonicalPayload.encode(snapshot.payload)) == (try? CanonicalJSON.encode(snapshot.payload)),
            "the direct writer and canonical JSON disagree on a category list")
    }
    if let manifest = try? decoder.decode(Manifest.self, from: data) {
        for limits in [SnapshotLimits.default, tinyLimits] { _ = manifest.violations(limits: limits) }
    }
    if let text = String(data: data, encoding: .utf8), let key = SnapshotKey(text) {
        precondition(SnapshotKey(key.description) == key, "a key does not survive its string form")
    }
    return 0
}

private let tinyLimits: SnapshotLimits = {
    var limits = SnapshotLimits()
    limits.maxFileCount = 1
    limits.maxFileBytes = 1
    limits.maxInflatedBytes = 1
    limits.maxManifestBytes = 1
    return limits
}()
